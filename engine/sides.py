"""Colours and board geometry shared by both games (RULES.md §1.2-§1.4).

Points are numbered from each side's own point of view (1 = deepest home point, 24 = farthest,
0 = borne off, 25 = the bar). Absolute numbering (A1..A24) is White's own numbering.
"""

from __future__ import annotations

from enum import IntEnum

OFF = 0
BAR = 25


class Side(IntEnum):
    """A player's colour. White's own numbering is the absolute numbering."""

    WHITE = 0
    BLACK = 1

    @property
    def other(self) -> Side:
        return Side(1 - self)

    @property
    def label(self) -> str:
        return self.name.lower()


def long_mirror(point: int) -> int:
    """RULES §1.3: a long-nardy point in the other side's numbering (an involution on 1..24)."""
    return point + 12 if point <= 12 else point - 12


def short_mirror(point: int) -> int:
    """RULES §1.3: a short-nardy point in the other side's numbering (an involution on 1..24)."""
    return 25 - point


def to_absolute(game: str, side: Side, point: int) -> int:
    """The absolute point (White's numbering) of `side`'s own point 1..24."""
    if not 1 <= point <= 24:
        raise ValueError(f"point {point} is not a board point (1..24)")
    if side is Side.WHITE:
        return point
    return short_mirror(point) if game == "short" else long_mirror(point)


def from_absolute(game: str, side: Side, point: int) -> int:
    """`side`'s own number for the absolute point 1..24 (both maps are involutions)."""
    return to_absolute(game, side, point)
