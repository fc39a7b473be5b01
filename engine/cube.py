"""The doubling cube of short nardy (backgammon), as one frozen value.

RULES.md leaves the cube out of its scope ("if added later, multiply by the cube value"); this module is
that addition, with the rules every backgammon server uses:

- Before rolling, the player on turn may offer to double the stakes if the cube is in the middle or is
  theirs. The opponent takes (the cube's value doubles and it becomes theirs) or passes (the game ends:
  the doubler wins the cube's value before the double).
- A game's result is its points (1, 2 or 3) times the cube's value.
- In a match: no doubling in the Crawford game (the first game after a player comes within one point of
  winning the match), and no double by a player who already wins the match with a single game at the
  cube's value (such a double could only help the opponent: the "dead cube"). There are no automatic
  doubles (ties of the opening roll are simply rolled again) and no beavers.
- In a single game (money play) the Jacoby rule may be on: a mars or koks counts as a single game while
  the cube was never turned.

Long nardy is played without the cube.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from engine.errors import WrongPhaseError
from engine.sides import Side

MAX_CUBE = 64


@dataclass(frozen=True, slots=True)
class Cube:
    """The cube of one game: its value and owner, a pending offer, and the rules it is played under."""

    value: int = 1
    owner: Side | None = None  # None: in the middle (either side may double)
    offered: bool = False  # the side on turn offered a double; the other side must take or pass
    crawford: bool = False  # the match's Crawford game: no doubling at all
    jacoby: bool = False  # single games: a mars or koks counts 1 while the cube is at 1
    needs: tuple[int, int] | None = None  # in a match: the points white and black still need; None: money

    def __post_init__(self) -> None:
        if self.value not in {2**n for n in range(7)}:
            raise ValueError(f"cube value {self.value} is not a power of two from 1 to {MAX_CUBE}")
        if self.needs is not None and min(self.needs) < 1:
            raise ValueError(f"cube needs {self.needs}: each side needs at least one point")
        if self.jacoby and self.needs is not None:
            raise ValueError("the Jacoby rule is for single games, not matches")

    def may_double(self, side: Side) -> bool:
        """Whether `side`, on turn and about to roll, may offer a double now."""
        if self.crawford or self.offered or self.value >= MAX_CUBE:
            return False
        if self.owner is not None and self.owner is not side:
            return False
        return self.needs is None or self.value < self.needs[side]

    def doubled(self) -> Cube:
        """The cube with a double offered (by the side on turn)."""
        return replace(self, offered=True)

    def taken(self, taker: Side) -> Cube:
        if not self.offered:
            raise WrongPhaseError("no double was offered: nothing to take")
        return replace(self, value=self.value * 2, owner=taker, offered=False)

    def points(self, base: int) -> int:
        """What a game won by `base` points (1, 2 or 3) is worth under this cube."""
        if self.jacoby and self.value == 1:
            return 1
        return base * self.value

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "owner": self.owner.label if self.owner is not None else None,
            "offered": self.offered,
            "crawford": self.crawford,
            "jacoby": self.jacoby,
            "needs": list(self.needs) if self.needs is not None else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Cube:
        owner = data.get("owner")
        needs = data.get("needs")
        return cls(
            value=int(data.get("value", 1)),
            owner=Side[str(owner).upper()] if owner else None,
            offered=bool(data.get("offered", False)),
            crawford=bool(data.get("crawford", False)),
            jacoby=bool(data.get("jacoby", False)),
            needs=(int(needs[0]), int(needs[1])) if needs is not None else None,
        )

    def rules_only(self) -> Cube:
        """This cube's rules with the cube in the middle at 1: how its game began."""
        return Cube(crawford=self.crawford, jacoby=self.jacoby, needs=self.needs)


@dataclass(frozen=True, slots=True)
class CubeAction:
    """One cube action of the record: before turn `turn` (an index into Game.history), `side` did `action`."""

    turn: int
    side: Side
    action: str  # "double" | "take" | "pass"

    def to_json(self) -> list[object]:
        return [self.turn, self.side.label, self.action]

    @classmethod
    def from_json(cls, data: Any) -> CubeAction:
        turn, side, action = data
        if action not in ("double", "take", "pass"):
            raise ValueError(f"cube action {action!r} is not double, take or pass")
        return cls(int(turn), Side[str(side).upper()], str(action))
