"""The interface both games share, and the shared turn mechanics (RULES.md §2-§3).

A full turn is generated one die per recursion level, every prefix recorded; then only the plays
using the most dice are kept (and, when just one die of a non-double can be used, the larger if
possible). Plays are deduplicated by the position they lead to. Each game supplies its single-move
law (`_single_moves`), how a move changes the board (`_apply`), and its geometry and scoring.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from engine.dice import Dice
from engine.errors import (
    AmbiguousMoveError,
    IllegalPlayError,
    InvalidDiceError,
    InvalidMoveError,
    InvalidPositionError,
    NardyError,
)
from engine.moves import Move, Play, parse_hops
from engine.options import Options
from engine.position import Board, Position, check_shape
from engine.scoring import WinKind
from engine.sides import Side

# A raw single move inside the generator: (src, dst, die, hit).
RawMove = tuple[int, int, int, bool]
Counts = list[int]
Ending = tuple[tuple[int, ...], tuple[int, ...]]  # (X counts, O counts) at the end of a turn
Outcomes = dict[Ending, tuple[RawMove, ...]]
# Every node of a full search, keyed by (x, o, dice left), with one path reaching it.
Nodes = dict[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], tuple[RawMove, ...]]

_MOVES: dict[RawMove, Move] = {}


def _move(raw: RawMove) -> Move:
    """Moves are immutable: one shared instance per distinct move."""
    move = _MOVES.get(raw)
    if move is None:
        move = _MOVES[raw] = Move(*raw)
    return move


@dataclass(frozen=True, slots=True)
class TurnStep:
    """The move picker's view of a turn in progress."""

    moves_made: tuple[Move, ...]
    position: Position
    dice_left: tuple[int, ...]
    next_moves: tuple[Move, ...]
    can_finish: bool
    play: Play | None

    def find(self, src: int, die: int) -> Move | None:
        """The next legal move of the checker on `src` with `die`, if there is one."""
        for move in self.next_moves:
            if move.src == src and move.die == die:
                return move
        return None


class Rules(ABC):
    """One game's rules. Instances are immutable and cheap; find them with `find_rules(name)`."""

    name: ClassVar[str]
    has_bar: ClassVar[bool]
    default_opening_dice_are_first_roll: ClassVar[bool]
    default_next_game_starter: ClassVar[str]

    def __init__(self, options: Options | None = None) -> None:
        self.options = options or Options()

    def __repr__(self) -> str:
        return f"find_rules({self.name!r}, {self.options!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and other.name == self.name and other.options == self.options

    def __hash__(self) -> int:
        return hash((self.name, self.options))

    # ----- options resolved for this game ---------------------------------------------------------
    @property
    def opening_dice_are_first_roll(self) -> bool:
        value = self.options.opening_dice_are_first_roll
        return self.default_opening_dice_are_first_roll if value is None else value

    @property
    def next_game_starter(self) -> str:
        return self.options.next_game_starter or self.default_next_game_starter

    # ----- per-game hooks -------------------------------------------------------------------------
    @abstractmethod
    def start_position(self) -> Position:
        """Both sides on their starting points, before anyone's first turn."""

    @abstractmethod
    def mirror(self, point: int) -> int:
        """The other side's number for this side's point 1..24."""

    @abstractmethod
    def _single_moves(self, x: Counts, o: Counts, die: int, head_left: int) -> Iterable[RawMove]:
        """Every legal single move with `die` for X (RULES §5.3 / §6.3), `head_left` moves from the head left."""

    @abstractmethod
    def _apply(self, x: Counts, o: Counts, move: RawMove) -> None:
        """Change the counts in place."""

    @abstractmethod
    def score_loser(self, loser: tuple[int, ...]) -> WinKind:
        """What a win is worth against a loser with these counts (in the loser's own numbering)."""

    @abstractmethod
    def position_id(self, position: Position) -> str:
        """The compact text id of a position (round-trips with position_from_id)."""

    @abstractmethod
    def position_from_id(self, text: str) -> Position:
        """Decode a position id."""

    def _head_limit(self, position: Position, dice: Dice) -> int:
        """How many single moves may leave the head this turn (long nardy); unlimited elsewhere."""
        return 15

    def _turn_flags(self, position: Position, dice: Dice) -> tuple[bool, bool, tuple[int, int] | None]:
        """(x_first_turn, o_first_turn, opening_roll) of the positions a turn leads to."""
        return (False, False, None)

    def _final_position_ok(self, x: tuple[int, ...], o: tuple[int, ...]) -> bool:
        """RULES §2.3 step 1 (long nardy, BLOCK_TIMING=end_of_turn); always true elsewhere."""
        return True

    def validate(self, position: Position) -> None:
        """Raise InvalidPositionError if the position is impossible in this game."""
        x, o = position.x, position.o
        if not (
            type(x) is tuple
            and type(o) is tuple
            and len(x) == 26
            and len(o) == 26
            and sum(x) == 15
            and sum(o) == 15
            and min(x) >= 0
            and min(o) >= 0
        ):
            check_shape(position)  # says exactly what is wrong
        if x[0] == 15 and o[0] == 15:
            raise InvalidPositionError(f"both sides have borne off every checker: {self.describe(position)}")
        if any(a and b for a, b in zip(x[1:25], self._o_in_x_order(o))):
            p = next(p for p in range(1, 25) if x[p] and o[self.mirror(p)])
            raise InvalidPositionError(
                f"X-point {p} holds checkers of both colours: {self.describe(position)}"
            )

    def _o_in_x_order(self, o: tuple[int, ...]) -> tuple[int, ...]:
        """O's counts on X-points 1..24, in that order."""
        return tuple(o[self.mirror(p)] for p in range(1, 25))

    # ----- shared mechanics -----------------------------------------------------------------------
    def describe(self, position: Position) -> str:
        try:
            return f"position {self.position_id(position)} ({position.describe()})"
        except NardyError:  # an impossible position may have no id
            return f"position ({position.describe()})"

    def _search(self, position: Position, dice: Dice, head_limit: int) -> Nodes:
        nodes: Nodes = {}
        single_moves = self._single_moves
        apply = self._apply
        head_start = position.x[24]

        def explore(x: Counts, o: Counts, left: tuple[int, ...], path: tuple[RawMove, ...]) -> None:
            key = (tuple(x), tuple(o), left)
            if key in nodes:
                return
            nodes[key] = path
            if x[0] == 15 or not left:
                return
            tried = 0
            for i, die in enumerate(left):
                if die == tried:
                    continue
                tried = die
                rest = left[:i] + left[i + 1 :]
                head_left = head_limit - (head_start - x[24])
                for move in single_moves(x, o, die, head_left):
                    x2 = x[:]
                    o2 = o[:]
                    apply(x2, o2, move)
                    explore(x2, o2, rest, path + (move,))

        explore(list(position.x), list(position.o), dice.values, ())
        return nodes

    def _kept(self, nodes: Nodes, dice: Dice) -> tuple[int, Outcomes]:
        """RULES §2.3 steps 1-3: the length M and the kept outcomes (final x, o) -> one path to them."""
        candidates = [(key, path) for key, path in nodes.items() if self._final_position_ok(key[0], key[1])]
        longest = max(len(path) for _, path in candidates)
        kept = [(key, path) for key, path in candidates if len(path) == longest]
        if longest == 1 and not dice.is_double:
            larger = [(key, path) for key, path in kept if path[0][2] == dice.high]
            if larger:
                kept = larger
        outcomes: Outcomes = {}
        for (x, o, _), path in kept:
            outcomes.setdefault((x, o), path)
        return longest, outcomes

    def _outcomes(self, position: Position, dice: Dice, head_limit: int) -> tuple[int, Outcomes]:
        """RULES §2.3: the number of dice M the kept plays use, and the kept outcomes -> one path each."""
        if self._fast_path(dice):
            if dice.is_double:
                longest, outcomes = self._double_outcomes(position, dice.a, head_limit)
            else:
                longest, outcomes = self._non_double_outcomes(position, dice, head_limit)
        else:
            longest, outcomes = self._kept(self._search(position, dice, head_limit), dice)
        if self.options.full_pip_rule and self.name == "short" and len(outcomes) > 1:
            best = min(sum(p * n for p, n in enumerate(x)) for x, _ in outcomes)
            outcomes = {k: v for k, v in outcomes.items() if sum(p * n for p, n in enumerate(k[0])) == best}
        return longest, outcomes

    def _fast_path(self, dice: Dice) -> bool:
        """Whether the specialised generators apply (they need order-independent single moves)."""
        return True

    def _non_double_outcomes(self, position: Position, dice: Dice, head_limit: int) -> tuple[int, Outcomes]:
        """Two dice, two orders, two levels: no intermediate bookkeeping needed."""
        single_moves = self._single_moves
        apply = self._apply
        x0, o0 = list(position.x), list(position.o)
        both: Outcomes = {}
        one: dict[int, Outcomes] = {dice.a: {}, dice.b: {}}
        for first, second in ((dice.a, dice.b), (dice.b, dice.a)):
            for m1 in single_moves(x0, o0, first, head_limit):
                x1, o1 = x0[:], o0[:]
                apply(x1, o1, m1)
                follow = [] if x1[0] == 15 else single_moves(x1, o1, second, head_limit - (m1[0] == 24))
                if not follow:
                    one[first].setdefault((tuple(x1), tuple(o1)), (m1,))
                for m2 in follow:
                    x2, o2 = x1[:], o1[:]
                    apply(x2, o2, m2)
                    both.setdefault((tuple(x2), tuple(o2)), (m1, m2))
        if both:
            return 2, both
        high, low = one[dice.high], one[min(dice.a, dice.b)]
        if high or low:
            return 1, high or low
        return 0, {(position.x, position.o): ()}

    def _double_outcomes(
        self,
        position: Position,
        die: int,
        head_limit: int,
        single_moves: Callable[[Counts, Counts, int, int], Iterable[RawMove]] | None = None,
    ) -> tuple[int, Outcomes]:
        """Doubles: moves taken in non-increasing order of their source point, so each set of moves
        is generated once (valid while single-move legality does not depend on the order)."""
        single_moves = single_moves or self._single_moves
        apply = self._apply
        head_start = position.x[24]
        best = [0]
        found: Outcomes = {}

        def leaf(x: Counts, o: Counts, path: tuple[RawMove, ...]) -> None:
            depth = len(path)
            if depth > best[0]:
                best[0] = depth
                found.clear()
            if depth == best[0]:
                found.setdefault((tuple(x), tuple(o)), path)

        def explore(x: Counts, o: Counts, path: tuple[RawMove, ...], top: int) -> None:
            extended = False
            if len(path) < 4 and x[0] < 15:
                for move in single_moves(x, o, die, head_limit - (head_start - x[24])):
                    if move[0] > top:
                        continue
                    extended = True
                    x2, o2 = x[:], o[:]
                    apply(x2, o2, move)
                    explore(x2, o2, path + (move,), move[0])
            if not extended:
                leaf(x, o, path)

        explore(list(position.x), list(position.o), (), 25)
        return best[0], found

    def _generate(self, position: Position, dice: Dice) -> tuple[int, int, Outcomes]:
        """Validate, then (head limit, M, kept outcomes): the one place a turn is generated."""
        self.validate(position)
        head_limit = self._head_limit(position, dice)
        return (head_limit, *self._outcomes(position, dice, head_limit))

    def _plays(self, position: Position, dice: Dice, outcomes: Outcomes) -> list[Play]:
        x_first, o_first, opening = self._turn_flags(position, dice)
        return [
            Play(tuple(map(_move, path)), Position(x, o, x_first, o_first, opening))
            for (x, o), path in outcomes.items()
        ]

    def _plays_and_length(self, position: Position, dice: Dice) -> tuple[int, list[Play]]:
        _, longest, outcomes = self._generate(position, dice)
        return longest, self._plays(position, dice, outcomes)

    def legal_plays(self, position: Position, dice: Dice | tuple[int, int]) -> list[Play]:
        """Every distinct legal outcome of the turn (RULES §2.3-§2.4). A pass is one empty play."""
        return self._plays_and_length(position, self._dice(position, dice))[1]

    def legal_outcomes(self, position: Position, dice: Dice) -> list[Position]:
        """The positions of `legal_plays(position, dice)`, in the same order, without their moves: the
        computer's search looks at thousands of replies and needs only where each leads. `position` is
        trusted (the search's positions come from the generator itself: no validation) and `dice` must be
        a Dice. tests/engine/test_legal_outcomes.py keeps it equal to legal_plays."""
        head_limit = self._head_limit(position, dice)
        _, outcomes = self._search_outcomes(position, dice, head_limit)
        x_first, o_first, opening = self._turn_flags(position, dice)
        return [Position(x, o, x_first, o_first, opening) for x, o in outcomes]

    def _search_outcomes(self, position: Position, dice: Dice, head_limit: int) -> tuple[int, Outcomes]:
        """The kept outcomes for the search (legal_outcomes): `_outcomes`, unless a game knows a faster
        way to the same outcomes."""
        return self._outcomes(position, dice, head_limit)

    def max_dice_used(self, position: Position, dice: Dice | tuple[int, int]) -> int:
        """M of RULES §2.3: how many dice the legal plays use."""
        return self._plays_and_length(position, self._dice(position, dice))[0]

    def turn_plays(self, position: Position, dice: Dice | tuple[int, int]) -> list[Play]:
        """`legal_plays` for a turn being played in a game: the turn's generation is memoised by content
        and shared with `turn_step`. (The computer's search, which visits thousands of positions once
        each, uses `legal_plays`, which is not.)"""
        dice = self._dice(position, dice)
        return self._plays(position, dice, _turn_outcomes(self, position, dice)[2])

    def turn_step(
        self, position: Position, dice: Dice | tuple[int, int], moves: Sequence[Move | tuple[int, int]] = ()
    ) -> TurnStep:
        """The legal next single moves after `moves` (each a Move or (src, die)) within a turn.

        Memoised by content (a TurnStep is an immutable value): a turn is picked one tap at a time, and
        the press, its board, its keyboard and the auto-complete all ask for the same steps."""
        dice = self._dice(position, dice)
        pairs = tuple(_src_and_die(m) for m in moves)
        try:
            hash(pairs)
        except TypeError:  # something odd given as a move (it is refused below): not memoised
            return self._turn_step(position, dice, pairs)
        return _turn_step(self, position, dice, pairs)

    def _turn_step(self, position: Position, dice: Dice, moves: tuple[tuple[int, int], ...]) -> TurnStep:
        head_limit, longest, outcomes = _turn_outcomes(self, position, dice)
        targets = set(outcomes)
        larger_only = (
            longest == 1 and not dice.is_double and any(p[0][2] == dice.high for p in outcomes.values())
        )
        reach_cache: dict[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], bool] = {}

        def completes(x: Counts, o: Counts, left: tuple[int, ...], depth: int) -> bool:
            key = (tuple(x), tuple(o), left)
            if key in reach_cache:
                return reach_cache[key]
            result = False
            if depth == longest:
                result = (key[0], key[1]) in targets
            elif x[0] < 15:
                for move in self._candidates(x, o, left, head_limit, position.x[24]):
                    x2, o2 = x[:], o[:]
                    self._apply(x2, o2, move)
                    rest = _without(left, move[2])
                    if completes(x2, o2, rest, depth + 1):
                        result = True
                        break
            reach_cache[key] = result
            return result

        x, o = list(position.x), list(position.o)
        left = dice.values
        made: list[Move] = []
        for src, die in moves:
            options = self._next_moves(
                x, o, left, len(made), completes, larger_only, dice, head_limit, position
            )
            chosen = next((m for m in options if m[0] == src and m[2] == die), None)
            if chosen is None:
                raise IllegalPlayError(
                    f"move from {src} with die {die} is not legal after "
                    f"{' '.join(map(str, made)) or 'no moves'} with {dice} in {self.describe(position)}"
                )
            self._apply(x, o, chosen)
            left = _without(left, die)
            made.append(_move(chosen))
        nxt = self._next_moves(x, o, left, len(made), completes, larger_only, dice, head_limit, position)
        done = len(made) == longest and (tuple(x), tuple(o)) in targets
        flags = self._turn_flags(position, dice)
        partial = Position(
            tuple(x), tuple(o), position.x_first_turn, position.o_first_turn, position.opening_roll
        )
        play = Play(tuple(made), Position(tuple(x), tuple(o), *flags)) if done else None
        return TurnStep(tuple(made), partial, left, tuple(map(_move, nxt)), done, play)

    def turn_endings(
        self,
        position: Position,
        dice: Dice | tuple[int, int],
        moves: Sequence[Move | tuple[int, int]] = (),
        at_most: int | None = None,
    ) -> frozenset[Position]:
        """The distinct positions the turn can still end in after `moves` (as `turn_step` takes them):
        one means the rest of the turn makes no difference (the picker may finish it by itself).
        With `at_most`, the search stops once it has found more than that many (and returns those)."""
        dice = self._dice(position, dice)
        step = self.turn_step(position, dice, moves)  # validates the moves made
        head_limit, longest, outcomes = _turn_outcomes(self, position, dice)
        larger_only = (
            longest == 1 and not dice.is_double and any(p[0][2] == dice.high for p in outcomes.values())
        )
        limit = len(outcomes) if at_most is None else at_most
        seen: set[Ending] = set()
        memo: set[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = set()  # nodes fully explored

        def explore(x: Counts, o: Counts, left: tuple[int, ...], depth: int) -> None:
            key = (tuple(x), tuple(o), left)
            if key in memo:
                return  # its endings are in `seen` already
            if depth == longest:
                if (key[0], key[1]) in outcomes:
                    seen.add((key[0], key[1]))
            elif x[0] < 15:
                for move in self._candidates(x, o, left, head_limit, position.x[24]):
                    if larger_only and move[2] != dice.high:
                        continue
                    x2, o2 = x[:], o[:]
                    self._apply(x2, o2, move)
                    explore(x2, o2, _without(left, move[2]), depth + 1)
                    if len(seen) > limit:
                        return  # enough: the search ends here, this node unfinished
            memo.add(key)

        partial = step.position
        explore(list(partial.x), list(partial.o), step.dice_left, len(step.moves_made))
        flags = self._turn_flags(position, dice)
        return frozenset(Position(x, o, *flags) for x, o in seen)

    def _candidates(
        self, x: Counts, o: Counts, left: tuple[int, ...], head_limit: int, head_start: int
    ) -> list[RawMove]:
        """Single moves with any die left, the dice tried in the order rolled (as the generator does)."""
        out: list[RawMove] = []
        for die in dict.fromkeys(left):
            out.extend(self._single_moves(x, o, die, head_limit - (head_start - x[24])))
        return out

    def _next_moves(
        self,
        x: Counts,
        o: Counts,
        left: tuple[int, ...],
        depth: int,
        completes: Callable[[Counts, Counts, tuple[int, ...], int], bool],
        larger_only: bool,
        dice: Dice,
        head_limit: int,
        position: Position,
    ) -> list[RawMove]:
        result: list[RawMove] = []
        if depth >= 4 or x[0] == 15:
            return result
        for move in self._candidates(x, o, left, head_limit, position.x[24]):
            if larger_only and move[2] != dice.high:
                continue
            x2, o2 = x[:], o[:]
            self._apply(x2, o2, move)
            if completes(x2, o2, _without(left, move[2]), depth + 1):
                result.append(move)
        return result

    def parse_play(self, position: Position, dice: Dice | tuple[int, int], text: str) -> Play:
        """The legal play written as `text` (`24/18 13/11*`, `bar/22`, `6/off`, `24/13`, `6/2(2)`).

        Hit marks choose between plays that differ only in hitting; text that still fits several
        different plays raises AmbiguousMoveError."""
        dice = self._dice(position, dice)
        try:
            hops = parse_hops(text)
        except InvalidMoveError as exc:
            raise InvalidMoveError(f"{exc} in {self.describe(position)}") from None
        head_limit, longest, outcomes = self._generate(position, dice)
        by_position = {p.position: p for p in self._plays(position, dice, outcomes)}
        flags = self._turn_flags(position, dice)
        found: dict[Position, tuple[bool, tuple[RawMove, ...]]] = {}  # outcome -> (hit marks fit, moves)

        def walk(
            x: Counts,
            o: Counts,
            left: tuple[int, ...],
            i: int,
            at: int | None,
            exact: bool,
            path: tuple[RawMove, ...],
        ) -> None:
            if i == len(hops):
                pos = Position(tuple(x), tuple(o), *flags)
                if pos in by_position and (pos not in found or (exact and not found[pos][0])):
                    found[pos] = (exact, path)
                return
            src, dst, marked = hops[i]
            start = src if at is None else at
            for move in self._candidates(x, o, left, head_limit, position.x[24]):
                if move[0] != start or move[1] < dst:
                    continue  # another checker, or overshooting the hop's target
                x2, o2 = x[:], o[:]
                self._apply(x2, o2, move)
                if move[1] == dst:
                    walk(
                        x2,
                        o2,
                        _without(left, move[2]),
                        i + 1,
                        None,
                        exact and move[3] == marked,
                        path + (move,),
                    )
                else:  # a combined move written as one hop, e.g. 24/13: go on with the same checker
                    walk(x2, o2, _without(left, move[2]), i, move[1], exact and not move[3], path + (move,))

        single_die = not dice.is_double and longest == 1
        order = (
            (dice.high, dice.a + dice.b - dice.high) if single_die else dice.values
        )  # as the generator keeps them
        walk(list(position.x), list(position.o), order, 0, None, True, ())
        if not found:
            raise IllegalPlayError(f"play {text!r} is not legal with {dice} in {self.describe(position)}")
        fitting = [p for p, (exact, _) in found.items() if exact] or list(found)
        if len(fitting) > 1:
            options = ", ".join(str(by_position[p]) for p in fitting)
            raise AmbiguousMoveError(
                f"play {text!r} fits {len(fitting)} plays ({options}) with {dice} in {self.describe(position)}"
            )
        # The moves as written (so a record replays to the same text), leading to the legal outcome.
        return Play(tuple(map(_move, found[fitting[0]][1])), by_position[fitting[0]].position)

    def _dice(self, position: Position, dice: Dice | tuple[int, int]) -> Dice:
        try:
            return Dice.of(dice)
        except InvalidDiceError as exc:
            raise InvalidDiceError(f"{exc} in {self.describe(position)}") from None

    # ----- what the renderer and the computer opponent need ---------------------------------------
    def pip_counts(self, position: Position) -> tuple[int, int]:
        return position.pips()

    def on_bar(self, position: Position) -> tuple[int, int]:
        return position.x[25], position.o[25]

    def is_race(self, position: Position) -> bool:
        """True when no checker of either side can ever meet one of the other side again."""
        x, o = position.x, position.o
        if x[25] or o[25]:
            return False
        x_back = max((p for p in range(1, 25) if x[p]), default=0)
        o_back_in_x = min((self.mirror(q) for q in range(1, 25) if o[q]), default=25)
        return self._race_from(x_back, o_back_in_x, position)

    def _race_from(self, x_back: int, o_back_in_x: int, position: Position) -> bool:
        return x_back < o_back_in_x

    def absolute(self, position: Position, turn: Side) -> Board:
        """The position in absolute coordinates (White's numbering) when `turn` is the side to move."""
        white, black = (position.x, position.o) if turn is Side.WHITE else (position.o, position.x)
        points = [0] * 24
        for p in range(1, 25):
            points[p - 1] += white[p]
            if black[p]:
                points[self.mirror(p) - 1] -= black[p]
        return Board(tuple(points), (white[25], black[25]), (white[0], black[0]))

    def diagram(self, position: Position) -> str:
        """An ASCII board from X's side: points 13..24 on top, 12..1 below; x = X, o = O."""

        def cell(p: int) -> str:
            if position.x[p]:
                return f"x{position.x[p]}"
            n = position.o[self.mirror(p)]
            return f"o{n}" if n else "."

        lines = [
            " ".join(f"{p:>3}" for p in range(13, 25)),
            " ".join(f"{cell(p):>3}" for p in range(13, 25)),
            " ".join(f"{cell(p):>3}" for p in range(12, 0, -1)),
            " ".join(f"{p:>3}" for p in range(12, 0, -1)),
            f"X bar {position.x[25]} off {position.x[0]} | O bar {position.o[25]} off {position.o[0]}",
        ]
        return "\n".join(lines)


def _src_and_die(move: Move | tuple[int, int]) -> tuple[int, int]:
    """A move given to `turn_step` as its (src, die), taken as given (a pair of anything else is refused there)."""
    if isinstance(move, Move):
        return move.src, move.die
    src, die = move
    return src, die


def _without(left: tuple[int, ...], die: int) -> tuple[int, ...]:
    i = left.index(die)
    return left[:i] + left[i + 1 :]


@lru_cache(maxsize=256)
def _turn_outcomes(rules: Rules, position: Position, dice: Dice) -> tuple[int, int, Outcomes]:
    """`rules._generate` memoised by content for `turn_step`: a turn is picked one tap at a time and
    each tap (and a look-ahead over the orders still possible) asks again for the same position and
    dice. Callers only read the outcomes. `legal_plays` does not go through here."""
    return rules._generate(position, dice)


@lru_cache(maxsize=4096)
def _turn_step(rules: Rules, position: Position, dice: Dice, moves: tuple[tuple[int, int], ...]) -> TurnStep:
    """`rules.turn_step` memoised by content (an engine error is raised again on every call, not kept)."""
    return rules._turn_step(position, dice, moves)
