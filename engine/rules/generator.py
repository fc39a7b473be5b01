"""A full turn generated (RULES.md §2-§3), as GNU Backgammon generates one: one die per recursion level,
every prefix recorded; then only the plays using the most dice are kept (and, when just one die of a
non-double can be used, the larger if possible). Plays are deduplicated by the position they lead to.

`TurnGenerator` is the lowest layer of a game's `Rules` (engine/rules/base.py): each game supplies its
single-move law (`_single_moves`) and how a move changes the board (`_apply`), and may override the hooks
with defaults here (the head limit, the flags of a turn's positions, a final position's legality, a
preference among the kept outcomes, a faster way to the outcomes). The move picker (picker.py) and the play
parser (notation.py) build on it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import ClassVar

from engine.dice import Dice
from engine.errors import InvalidDiceError
from engine.moves import Move, Play
from engine.options import Options
from engine.position import Position

# A raw single move inside the generator: (src, dst, die, hit).
RawMove = tuple[int, int, int, bool]
Counts = list[int]
Ending = tuple[tuple[int, ...], tuple[int, ...]]  # (X counts, O counts) at the end of a turn
Outcomes = dict[Ending, tuple[RawMove, ...]]
# Every node of a full search, keyed by (x, o, dice left), with one path reaching it.
Nodes = dict[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], tuple[RawMove, ...]]

_MOVES: dict[RawMove, Move] = {}


def as_move(raw: RawMove) -> Move:
    """Moves are immutable: one shared instance per distinct move."""
    move = _MOVES.get(raw)
    if move is None:
        move = _MOVES[raw] = Move(*raw)
    return move


def without(left: tuple[int, ...], die: int) -> tuple[int, ...]:
    """The dice left after playing one `die`."""
    i = left.index(die)
    return left[:i] + left[i + 1 :]


class TurnGenerator(ABC):
    """The legal plays of a turn: the search, the rule that keeps the plays using the most dice, and the
    hooks a game fills in. `Rules` (engine/rules/base.py) gives `name`, `options`, `validate` and `describe`."""

    name: ClassVar[str]
    options: Options

    # ----- per-game hooks -------------------------------------------------------------------------
    @abstractmethod
    def _single_moves(self, x: Counts, o: Counts, die: int, head_left: int) -> Iterable[RawMove]:
        """Every legal single move with `die` for X (RULES §5.3 / §6.3), `head_left` moves from the head left."""

    @abstractmethod
    def _apply(self, x: Counts, o: Counts, move: RawMove) -> None:
        """Change the counts in place."""

    @abstractmethod
    def validate(self, position: Position) -> None:
        """Raise InvalidPositionError if the position is impossible in this game."""

    @abstractmethod
    def describe(self, position: Position) -> str:
        """The position for an error message: its id and a description."""

    def _head_limit(self, position: Position, dice: Dice) -> int:
        """How many single moves may leave the head this turn (long nardy); unlimited elsewhere."""
        return 15

    def _turn_flags(self, position: Position, dice: Dice) -> tuple[bool, bool, tuple[int, int] | None]:
        """(x_first_turn, o_first_turn, opening_roll) of the positions a turn leads to."""
        return (False, False, None)

    def _final_position_ok(self, x: tuple[int, ...], o: tuple[int, ...]) -> bool:
        """RULES §2.3 step 1 (long nardy, BLOCK_TIMING=end_of_turn); always true elsewhere."""
        return True

    def _preferred(self, outcomes: Outcomes) -> Outcomes:
        """A game's own preference among the outcomes kept by the most-dice law (short nardy's full pip rule,
        a house rule), applied by `_outcomes`: all of them unless a game says otherwise."""
        return outcomes

    def _fast_path(self, dice: Dice) -> bool:
        """Whether the specialised generators apply (they need order-independent single moves)."""
        return True

    def _search_outcomes(self, position: Position, dice: Dice, head_limit: int) -> tuple[int, Outcomes]:
        """The kept outcomes for the search (legal_outcomes): `_outcomes`, unless a game knows a faster
        way to the same outcomes."""
        return self._outcomes(position, dice, head_limit)

    # ----- the generator --------------------------------------------------------------------------
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
        return longest, self._preferred(outcomes)

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
            Play(tuple(map(as_move, path)), Position(x, o, x_first, o_first, opening))
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

    def max_dice_used(self, position: Position, dice: Dice | tuple[int, int]) -> int:
        """M of RULES §2.3: how many dice the legal plays use."""
        return self._plays_and_length(position, self._dice(position, dice))[0]

    def _candidates(
        self, x: Counts, o: Counts, left: tuple[int, ...], head_limit: int, head_start: int
    ) -> list[RawMove]:
        """Single moves with any die left, the dice tried in the order rolled (as the generator does)."""
        out: list[RawMove] = []
        for die in dict.fromkeys(left):
            out.extend(self._single_moves(x, o, die, head_limit - (head_start - x[24])))
        return out

    def _dice(self, position: Position, dice: Dice | tuple[int, int]) -> Dice:
        try:
            return Dice.of(dice)
        except InvalidDiceError as exc:
            raise InvalidDiceError(f"{exc} in {self.describe(position)}") from None
