"""A slow, literal second reading of the long-nardy turn rules (RULES.md §2.3, §2.5, §3, §6.3, §6.5, §6.6).

Long nardy has no independent engine to cross-check against, so the property tests compare the
engine with this: written from the rules text alone, with no code shared with `engine.rules`.
Positions are X's and O's 26 counts in their own numbering (index 0 = off, 1..24 = points).
"""

from __future__ import annotations

from engine import Dice, Options, Position

Counts = tuple[int, ...]


def l_point(point: int) -> int:
    """§1.3: the other side's number for this point (X-point t holds O's checkers counted on O-relative L(t))."""
    return point + 12 if point <= 12 else point - 12


def violates_block(x: Counts, o: Counts, rule: str) -> bool:
    """§6.6: X holds six consecutive points of O's path (O-relative q..q+5) that trap O illegally."""
    if rule == "none":
        return False
    for q in range(1, 20):
        if all(x[l_point(r)] > 0 for r in range(q, q + 6)):
            if rule == "ahead" and not any(o[r] for r in range(1, q)):
                return True
            if rule == "opponent_home" and not (o[0] or any(o[r] for r in range(1, 7))):
                return True
    return False


def single_moves(
    x: Counts, o: Counts, die: int, head_used: int, head_limit: int, options: Options
) -> list[tuple[int, int]]:
    """(from, to) for every legal single move of X with `die` (to = 0: borne off)."""
    moves: list[tuple[int, int]] = []
    all_home = all(x[p] == 0 for p in range(7, 25))
    for p in range(1, 25):
        if not x[p]:
            continue
        if p == 24 and head_used >= head_limit:
            continue
        t = p - die
        if t >= 1:
            if o[l_point(t)]:
                continue  # §6.3.1: one O checker closes a point
        else:
            if not all_home:
                continue
            if t < 0 and any(x[h] for h in range(p + 1, 25)):
                continue  # §2.5: a larger die bears off only from the highest point
            t = 0
        after = list(x)
        after[p] -= 1
        after[t] += 1
        if options.block_timing == "per_step" and violates_block(tuple(after), o, options.block_rule):
            continue
        moves.append((p, t))
    return moves


def outcomes(
    position: Position, dice: Dice, options: Options, head_limit: int | None = None
) -> tuple[int, set[Counts]]:
    """(M, the distinct final X counts of the legal plays) per §2.3; O never changes in long nardy."""
    if head_limit is None:
        head_limit = first_turn_head_limit(position, dice, options)
    values = (dice.a,) * 4 if dice.a == dice.b else (dice.a, dice.b)
    # Every play prefix: (final x, dice used, the die of a one-move play).
    plays: set[tuple[Counts, int, int]] = set()
    seen: set[tuple[Counts, tuple[int, ...], int]] = set()

    def explore(x: Counts, left: tuple[int, ...], head_used: int, first_die: int) -> None:
        if (x, left, head_used) in seen:
            return
        seen.add((x, left, head_used))
        plays.add((x, len(values) - len(left), first_die))
        if x[0] == 15:
            return
        for die in set(left):
            rest = list(left)
            rest.remove(die)
            for src, dst in single_moves(x, position.o, die, head_used, head_limit, options):
                after = list(x)
                after[src] -= 1
                after[dst] += 1
                explore(tuple(after), tuple(rest), head_used + (src == 24), first_die or die)

    explore(position.x, values, 0, 0)
    kept = plays
    if options.block_timing == "end_of_turn":
        kept = {p for p in kept if not violates_block(p[0], position.o, options.block_rule)}
    longest = max(p[1] for p in kept)
    kept = {p for p in kept if p[1] == longest}
    if dice.a != dice.b and longest == 1 and any(p[2] == max(dice.a, dice.b) for p in kept):
        kept = {p for p in kept if p[2] == max(dice.a, dice.b)}
    return longest, {p[0] for p in kept}


def first_turn_head_limit(position: Position, dice: Dice, options: Options) -> int:
    """§6.5: H for this turn."""
    if not (position.x_first_turn and dice.a == dice.b):
        return 1
    if options.head_exception == "principle":
        m1, _ = outcomes(position, dice, options, head_limit=1)
        return 2 if m1 < 4 else 1
    if dice.a in (3, 4, 6):
        return 2
    if (
        options.head_exception == "seed001_list"
        and dice.a == 5
        and not position.o_first_turn
        and position.opening_roll in {(1, 2), (2, 6), (3, 5)}
    ):
        return 2
    return 1
