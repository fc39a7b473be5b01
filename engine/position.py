"""Positions: both sides' checkers, each counted from its own side (GNU Backgammon style).

`x` is the side to move, `o` the other side. Each is a tuple of 26 counts: index 0 = borne off,
1..24 = the side's own points (1 = deepest home point), 25 = the bar (short nardy only).
Long nardy also keeps turn state that is not visible on the board (RULES.md §4.6): whether each
side is still before its first turn, and (only for HEAD_EXCEPTION=seed001_list) the first
player's first roll.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.errors import InvalidPositionError

CHECKERS = 15
SLOTS = 26


def _counts(spec: Mapping[int, int], who: str) -> tuple[int, ...]:
    counts = [0] * SLOTS
    for point, n in spec.items():
        if not 0 <= point <= 25:
            raise InvalidPositionError(f"{who}: point {point} is outside 0..25")
        if n < 0:
            raise InvalidPositionError(f"{who}: negative count {n} on point {point}")
        counts[point] += n
    if sum(counts) < CHECKERS and 0 not in spec:
        counts[0] = CHECKERS - sum(counts)  # unlisted checkers are borne off
    return tuple(counts)


def describe_counts(counts: tuple[int, ...]) -> str:
    """`{24:2, 13:5, 8:3, 6:5}`, highest point first (RULES.md §1.5 notation; 25 = bar, 0 = off)."""
    parts = [f"{p}:{counts[p]}" for p in range(len(counts) - 1, -1, -1) if counts[p]]
    return "{" + ", ".join(parts) + "}"


@dataclass(frozen=True, slots=True)
class Position:
    """A position from the point of view of the side to move (X)."""

    x: tuple[int, ...]
    o: tuple[int, ...]
    x_first_turn: bool = False
    o_first_turn: bool = False
    opening_roll: tuple[int, int] | None = None

    @classmethod
    def from_counts(
        cls,
        x: Mapping[int, int],
        o: Mapping[int, int],
        *,
        x_first_turn: bool = False,
        o_first_turn: bool = False,
        opening_roll: tuple[int, int] | None = None,
    ) -> Position:
        """Build a position from RULES.md notation: `{24:2, 13:5, 8:3, 6:5}`; missing checkers are off."""
        return cls(_counts(x, "X"), _counts(o, "O"), x_first_turn, o_first_turn, opening_roll)

    def swapped(self) -> Position:
        """The same position seen by the other side (who moves next)."""
        return Position(self.o, self.x, self.o_first_turn, self.x_first_turn, self.opening_roll)

    def pips(self) -> tuple[int, int]:
        """Pip counts (X, O): Σ point × checkers, the bar counting 25."""
        return (
            sum(p * n for p, n in enumerate(self.x)),
            sum(p * n for p, n in enumerate(self.o)),
        )

    def describe(self) -> str:
        flags = ""
        if self.x_first_turn or self.o_first_turn:
            flags = f" first_turn(X={self.x_first_turn}, O={self.o_first_turn})"
        return f"X {describe_counts(self.x)} O {describe_counts(self.o)}{flags}"

    def __repr__(self) -> str:
        args = f"x={describe_counts(self.x)}, o={describe_counts(self.o)}"
        if self.x_first_turn:
            args += ", x_first_turn=True"
        if self.o_first_turn:
            args += ", o_first_turn=True"
        if self.opening_roll is not None:
            args += f", opening_roll={self.opening_roll!r}"
        return f"Position.from_counts({args})"

    def __str__(self) -> str:
        """RULES.md notation, one side a line (Rules.diagram draws the board with the game's geometry)."""
        return self.describe().replace(" O {", "\nO {")


def check_shape(position: Position) -> None:
    """Checks that do not depend on the game: 26 counts per side, 15 checkers each."""
    for who, counts in (("X", position.x), ("O", position.o)):
        if len(counts) != SLOTS:
            raise InvalidPositionError(
                f"{who} has {len(counts)} slots, expected {SLOTS}: {position.describe()}"
            )
        for point, n in enumerate(counts):
            if type(n) is not int or n < 0:
                raise InvalidPositionError(f"{who} has count {n!r} on point {point}: {position.describe()}")
        if type(counts) is not tuple:
            raise InvalidPositionError(f"{who} counts must be a tuple, got {type(counts).__name__}")
        if sum(counts) != CHECKERS:
            raise InvalidPositionError(
                f"{who} has {sum(counts)} checkers, expected {CHECKERS}: {position.describe()}"
            )


@dataclass(frozen=True, slots=True)
class Board:
    """A position in absolute coordinates for display: index i of `points` is absolute point i+1
    (White's numbering); >0 White checkers, <0 Black checkers."""

    points: tuple[int, ...]
    bar: tuple[int, int]
    off: tuple[int, int]
