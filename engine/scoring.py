"""Results of a finished game (RULES.md §2.8, §5.6, §6.8)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engine.sides import Side


class WinKind(Enum):
    """What a win is worth. KOKS is short nardy's backgammon (3) and long nardy's optional koks (3)."""

    OIN = "oin"  # single win, 1 point
    MARS = "mars"  # gammon / mars, 2 points
    KOKS = "koks"  # backgammon / koks, 3 points
    HOME_MARS = "home_mars"  # long nardy option HOME_MARS_3, 3 points

    @property
    def points(self) -> int:
        return {WinKind.OIN: 1, WinKind.MARS: 2, WinKind.KOKS: 3, WinKind.HOME_MARS: 3}[self]


@dataclass(frozen=True, slots=True)
class Result:
    winner: Side
    points: int
    kind: WinKind
    resigned: bool = False
    dropped: bool = False  # the loser passed a double (short nardy's cube): `points` is the cube's value

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "winner": self.winner.label,
            "points": self.points,
            "kind": self.kind.value,
            "resigned": self.resigned,
        }
        if self.dropped:
            out["dropped"] = True
        return out

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Result:
        return cls(
            Side[str(data["winner"]).upper()],
            int(data["points"]),  # type: ignore[call-overload]
            WinKind(data["kind"]),
            bool(data["resigned"]),
            bool(data.get("dropped", False)),
        )
