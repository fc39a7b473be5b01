"""Long nardy (RULES.md §6): no hitting, one checker off the head a turn, no trapping six-block."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from engine.dice import Dice
from engine.errors import InvalidPositionError
from engine.position import Position
from engine.position_id import long_position_from_id, long_position_id
from engine.rules.base import Rules
from engine.rules.generator import Counts, Outcomes, RawMove
from engine.scoring import WinKind
from engine.sides import long_mirror

_START = (0,) * 24 + (15, 0)
_MIRROR = (0,) + tuple(long_mirror(p) for p in range(1, 25))
_SEED001_FIRST_ROLLS = {(1, 2), (2, 6), (3, 5)}


class LongNardy(Rules):
    """Long nardy: both sides run the same way from their heads; a single checker closes a point."""

    name: ClassVar[str] = "long"
    has_bar: ClassVar[bool] = False
    default_opening_dice_are_first_roll: ClassVar[bool] = False
    default_next_game_starter: ClassVar[str] = "previous_winner"

    def start_position(self) -> Position:
        return Position(_START, _START, True, True)

    def mirror(self, point: int) -> int:
        return _MIRROR[point]

    # ----- §6.6 the six-block rule ----------------------------------------------------------------
    def _run_is_illegal(self, o: Counts | tuple[int, ...], front: int) -> bool:
        """A run of six or more whose frontmost O-relative point is `front` traps O illegally."""
        rule = self.options.block_rule
        if rule == "ahead":
            # Once O has borne off, all O's checkers are home, ahead of any run (RULES §6.6): nothing is trapped.
            return not o[0] and not any(o[1:front])
        if rule == "opponent_home":
            return not (o[0] or any(o[1:7]))
        return False

    def _makes_block(self, x: Counts, o: Counts, src: int, dst: int) -> bool:
        """Would moving src -> dst leave X holding an illegal six-block (checked per step)?"""
        if x[dst] or self.options.block_rule == "none" or self.options.block_timing != "per_step":
            return False
        vacated = src if x[src] == 1 else -1

        def held(q: int) -> bool:
            point = _MIRROR[q]
            return point == dst or (point != vacated and x[point] > 0)

        q0 = _MIRROR[dst]
        lo = q0
        while lo > 1 and held(lo - 1):
            lo -= 1
        hi = q0
        while hi < 24 and held(hi + 1):
            hi += 1
        return hi - lo >= 5 and self._run_is_illegal(o, lo)

    def _holds_illegal_block(self, x: tuple[int, ...] | Counts, o: tuple[int, ...] | Counts) -> bool:
        if self.options.block_rule == "none":
            return False
        run = 0
        for q in range(1, 25):
            if x[_MIRROR[q]]:
                run += 1
                if run >= 6 and self._run_is_illegal(o, q - run + 1):
                    return True
            else:
                run = 0
        return False

    @staticmethod
    def _may_hold_block(position: Position) -> bool:
        """Cheap pre-check: a six-block needs six occupied points of one side."""
        return sum(1 for n in position.x[1:25] if n) >= 6 or sum(1 for n in position.o[1:25] if n) >= 6

    def _final_position_ok(self, x: tuple[int, ...], o: tuple[int, ...]) -> bool:
        if self.options.block_timing == "end_of_turn":
            return not self._holds_illegal_block(x, o)
        return True

    # ----- §6.3 single moves, §6.5 the head rule --------------------------------------------------
    def _single_moves(
        self, x: Counts, o: Counts, die: int, head_left: int, refused: list[bool] | None = None
    ) -> Iterable[RawMove]:
        """X's legal single moves by `die`; `refused`, if given, is set to [True] when the block rule
        refused one (the only way one move's legality can depend on the moves made before it)."""
        moves: list[RawMove] = []
        home = not any(x[7:25])
        highest = True
        for p in range(24, 0, -1):
            if not x[p]:
                continue
            t = p - die
            if p == 24 and head_left <= 0:
                pass
            elif t > 0:
                if not o[_MIRROR[t]]:
                    if not self._makes_block(x, o, p, t):
                        moves.append((p, t, die, False))
                    elif refused is not None:
                        refused[0] = True
            elif home and (t == 0 or highest):
                moves.append((p, 0, die, False))
            highest = False
        return moves

    def _search_outcomes(self, position: Position, dice: Dice, head_limit: int) -> tuple[int, Outcomes]:
        """For the computer's search (legal_outcomes): doubles under the per-step block rule need the full
        search only when the order of the moves can matter, that is when the block rule refuses a move.
        The fast generator (moves in non-increasing order of their source, each set of moves once) is run
        first; if the block rule refused no move on its way, every move it tried was legal whatever came
        before, and its outcomes are the full search's. Otherwise: the full search."""
        if dice.is_double and not self._fast_path(dice) and self.options.block_timing == "per_step":
            refused = [False]

            def single_moves(x: Counts, o: Counts, die: int, head_left: int) -> Iterable[RawMove]:
                return self._single_moves(x, o, die, head_left, refused)

            found = self._double_outcomes(position, dice.a, head_limit, single_moves)
            if not refused[0]:
                return found
        return self._outcomes(position, dice, head_limit)

    def _o_in_x_order(self, o: tuple[int, ...]) -> tuple[int, ...]:
        return o[13:25] + o[1:13]

    def _fast_path(self, dice: Dice) -> bool:
        # Doubles under the per-step block rule depend on move order (RULES L4): full search there.
        if self.options.block_timing != "per_step":
            return False
        return not dice.is_double or self.options.block_rule == "none"

    def _apply(self, x: Counts, o: Counts, move: RawMove) -> None:
        x[move[0]] -= 1
        x[move[1]] += 1

    def _head_limit(self, position: Position, dice: Dice) -> int:
        if not (position.x_first_turn and dice.is_double):
            return 1
        rule = self.options.head_exception
        if rule == "principle":
            longest, _ = self._outcomes(position, dice, 1)
            return 2 if longest < 4 else 1
        if dice.a in (3, 4, 6):
            return 2
        if (
            rule == "seed001_list"
            and dice.a == 5
            and not position.o_first_turn
            and position.opening_roll in _SEED001_FIRST_ROLLS
        ):
            return 2
        return 1

    def _turn_flags(self, position: Position, dice: Dice) -> tuple[bool, bool, tuple[int, int] | None]:
        opening = None
        if self.options.head_exception == "seed001_list" and position.x_first_turn and position.o_first_turn:
            opening = (min(dice.a, dice.b), max(dice.a, dice.b))
        return (False, position.o_first_turn, opening)

    # ----- validity, scoring, ids -------------------------------------------------------------------
    def validate(self, position: Position) -> None:
        super().validate(position)
        for who, side in (("X", position.x), ("O", position.o)):
            if side[25]:
                raise InvalidPositionError(
                    f"{who} has checkers on a bar, which long nardy has not: {self.describe(position)}"
                )
            if side[0] and any(side[7:25]):
                raise InvalidPositionError(
                    f"{who} has borne off with checkers outside home (no hitting in long nardy): {self.describe(position)}"
                )
        if self._may_hold_block(position) and (
            self._holds_illegal_block(position.x, position.o)
            or self._holds_illegal_block(position.o, position.x)
        ):
            raise InvalidPositionError(f"an illegal six-block stands on the board: {self.describe(position)}")

    def is_race(self, position: Position) -> bool:
        """Long nardy: both sides have all their checkers in their own last twelve points."""
        return not any(position.x[13:25]) and not any(position.o[13:25])

    def score_loser(self, loser: tuple[int, ...]) -> WinKind:
        if loser[0]:
            return WinKind.OIN
        if self.options.koks_3 and loser[24]:
            return WinKind.KOKS
        if self.options.home_mars_3 and sum(loser[1:7]) == 15:
            return WinKind.HOME_MARS
        return WinKind.MARS

    def position_id(self, position: Position) -> str:
        return long_position_id(position)

    def position_from_id(self, text: str) -> Position:
        position = long_position_from_id(text)
        self.validate(position)
        return position
