"""Dice values. The engine never rolls: dice always come in from outside."""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import InvalidDiceError


@dataclass(frozen=True, slots=True)
class Dice:
    """One roll of two dice, in the order given."""

    a: int
    b: int

    def __post_init__(self) -> None:
        for die in (self.a, self.b):
            if type(die) is not int or not 1 <= die <= 6:
                raise InvalidDiceError(f"die {die!r} out of range 1..6 in roll ({self.a!r}, {self.b!r})")

    @classmethod
    def of(cls, dice: Dice | tuple[int, int] | list[int] | str) -> Dice:
        """Accept a Dice, a pair of ints or text like "6-1"."""
        if isinstance(dice, Dice):
            return dice
        if isinstance(dice, str):
            return cls.parse(dice)
        try:
            a, b = dice
        except (TypeError, ValueError):
            raise InvalidDiceError(f"dice must be two values, got {dice!r}") from None
        return cls(a, b)

    @classmethod
    def parse(cls, text: str) -> Dice:
        parts = text.strip().replace(":", "-").split("-")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise InvalidDiceError(f"dice text {text!r} is not like '6-1'")
        return cls(int(parts[0]), int(parts[1]))

    @property
    def is_double(self) -> bool:
        return self.a == self.b

    @property
    def values(self) -> tuple[int, ...]:
        """The die values to play: two, or four for doubles."""
        return (self.a,) * 4 if self.a == self.b else (self.a, self.b)

    @property
    def high(self) -> int:
        return max(self.a, self.b)

    def __str__(self) -> str:
        return f"{self.a}-{self.b}"


ALL_ROLLS: tuple[Dice, ...] = tuple(Dice(a, b) for a in range(1, 7) for b in range(a, 7))
"""The 21 distinct rolls (a <= b); a non-double comes up with probability 2/36, a double 1/36."""


def roll_weight(dice: Dice) -> int:
    """How many of the 36 equally likely ordered rolls give this roll."""
    return 1 if dice.is_double else 2
