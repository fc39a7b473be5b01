"""Seeded random play and random valid positions, shared by the engine's cross-check and property tests
and the benchmarks.

Everything here takes its randomness from an explicit `random.Random`: the same seed gives the same
positions on every machine and every run.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine import Dice, Game, Phase, Position, Rules, Side, to_absolute
from testkit.reference_long import l_point, violates_block

CHECKERS = 15


def random_dice(rng: random.Random) -> Dice:
    return Dice(rng.randint(1, 6), rng.randint(1, 6))


def random_game(variant: str, rng: random.Random, actions: int | None = None) -> Game:
    """`variant` played with random dice and random legal plays from `rng`: to the end, or for `actions`
    steps (an opening roll, a roll and a play are a step each)."""
    game = Game.new(variant)
    while game.phase is not Phase.OVER and (actions is None or actions > 0):
        if game.phase is Phase.OPENING:
            game = game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase is Phase.ROLL:
            game = game.roll(rng.randint(1, 6), rng.randint(1, 6))
        else:
            game = game.play(rng.choice(game.legal_plays()))
        actions = None if actions is None else actions - 1
    return game


def random_play_positions(rules: Rules, rng: random.Random, turns: int) -> Iterator[tuple[Position, Dice]]:
    """`turns` (position, dice) pairs met while both sides play random legal plays from the start.

    A finished game starts over from the start position, so every yielded position is still in play."""
    position = rules.start_position()
    for _ in range(turns):
        dice = random_dice(rng)
        yield position, dice
        after = rng.choice(rules.legal_plays(position, dice)).position
        position = rules.start_position() if after.x[0] == CHECKERS else after.swapped()


def random_short_position(rng: random.Random) -> Position:
    """A valid short-nardy position, not yet won by either side, with bar and borne-off checkers likely.

    Each side's checkers go to a few random slots; one time in three the side to move is bearing off
    (all its checkers home or off), and O keeps clear of X's points."""
    x = [0] * 26
    bearing_off = rng.random() < 1 / 3
    x_slots = list(range(7)) if bearing_off else list(range(26))
    x_slots = rng.sample(x_slots, rng.randint(1, min(7, len(x_slots))))
    for _ in range(CHECKERS):
        x[rng.choice(x_slots)] += 1
    if x[0] == CHECKERS:
        x[0], x[1] = CHECKERS - 1, 1
    o = [0] * 26
    # O's slots: off, bar and its own points whose X-point (25 - q) X does not hold.
    free = [0, 25] + [q for q in range(1, 25) if not x[25 - q]]
    o_slots = rng.sample(free, rng.randint(1, min(7, len(free))))
    for _ in range(CHECKERS):
        o[rng.choice(o_slots)] += 1
    if o[0] == CHECKERS:
        o[0], o[25] = CHECKERS - 1, 1
    return Position(tuple(x), tuple(o))


def both_colours_on_a_point(game: str, position: Position) -> list[int]:
    """The absolute points (White's numbering, X taken as White) that hold checkers of both sides."""
    x_points = {to_absolute(game, Side.WHITE, p) for p in range(1, 25) if position.x[p]}
    o_points = {to_absolute(game, Side.BLACK, q) for q in range(1, 25) if position.o[q]}
    return sorted(x_points & o_points)


def random_long_position(rng: random.Random, block_rule: str = "ahead") -> Position:
    """A valid long-nardy position: no bar, borne-off checkers only with all the rest home, one colour a
    point, no illegal six-block for either side; random first-turn flags. Heads and homes are likely."""
    while True:
        x = _long_side(rng, taken=set())
        o = _long_side(rng, taken={l_point(p) for p in range(1, 25) if x[p]})
        if (
            x[0] < CHECKERS
            and o[0] < CHECKERS
            and not violates_block(x, o, block_rule)
            and not violates_block(o, x, block_rule)
        ):
            break
    x_first, o_first = rng.random() < 0.2, rng.random() < 0.2
    opening = (rng.randint(1, 6), rng.randint(1, 6)) if rng.random() < 0.2 else None
    return Position(x, o, x_first, o_first, None if opening is None else (min(opening), max(opening)))


def _long_side(rng: random.Random, taken: set[int]) -> tuple[int, ...]:
    """15 checkers for one side, avoiding its own points in `taken`."""
    counts = [0] * 26
    bearing_off = rng.random() < 0.3
    slots = [p for p in (range(7) if bearing_off else range(1, 25)) if p not in taken]
    chosen = rng.sample(slots, rng.randint(1, min(9, len(slots))))
    if not bearing_off and rng.random() < 0.5 and 24 not in taken:
        chosen.append(24)  # the head
    for _ in range(CHECKERS):
        counts[rng.choice(chosen)] += 1
    return tuple(counts)
