"""The interface both games share (RULES.md §2-§3): one `Rules` class per game, its geometry, scoring and
position ids, over the shared turn mechanics it inherits.

- engine/rules/generator.py generates a full turn (`legal_plays`) from each game's single-move law
  (`_single_moves`) and how a move changes the board (`_apply`);
- engine/rules/picker.py picks a turn one single move at a time (`turn_step`, `turn_endings`);
- engine/rules/notation.py reads a play written as text (`parse_play`).
"""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar

from engine.errors import InvalidPositionError, NardyError
from engine.options import Options
from engine.position import Board, Position, check_shape
from engine.rules.notation import PlayNotation
from engine.rules.picker import MovePicker
from engine.scoring import WinKind
from engine.sides import Side


class Rules(MovePicker, PlayNotation):
    """One game's rules. Instances are immutable and cheap; find them with `find_rules(name)`.

    A game fills in the hooks below and the generator's (`_single_moves`, `_apply`: generator.py)."""

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
    def score_loser(self, loser: tuple[int, ...]) -> WinKind:
        """What a win is worth against a loser with these counts (in the loser's own numbering)."""

    @abstractmethod
    def position_id(self, position: Position) -> str:
        """The compact text id of a position (round-trips with position_from_id)."""

    @abstractmethod
    def position_from_id(self, text: str) -> Position:
        """Decode a position id."""

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

    def describe(self, position: Position) -> str:
        """The position for an error message: its id and a description."""
        try:
            return f"position {self.position_id(position)} ({position.describe()})"
        except NardyError:  # an impossible position may have no id
            return f"position ({position.describe()})"

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
