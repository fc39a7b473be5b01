"""What a new game is: the variant, and a single game or a match to 3, 5 or 7, with or without the cube.

One short text carries it through menus, lobbies, invitations, challenges and quick-match queues:
"short" and "long" are single games without the cube (as before matches existed); "short.5" is a match to
5, "short.5c" the same with the doubling cube, "short.1cj" a single game with the cube and the Jacoby rule;
a time control follows a dash ("short.5c-live", "long-blitz": bot/model/clock.py). Quick match pairs seekers of
the same text only."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from itertools import product
from types import MappingProxyType
from typing import Any

from engine import GAMES
from engine.match import LENGTHS, Match

_FORMAT = re.compile(
    r"^(?P<variant>short|long)(?:\.(?P<length>[1357])(?P<cube>c?)(?P<jacoby>j?))?(?:-(?P<clock>live|blitz))?$"
)
PATTERN = (
    r"(?:short|long)(?:\.[1357]c?j?)?(?:-(?:live|blitz))?"  # for callback data (bot/telegram/callbacks.py)
)
CLOCKS = ("live", "blitz")  # the time controls a game may have (bot/model/clock.py TIME_CONTROLS)

FIELD_VALUES: Mapping[str, tuple[Any, ...]] = MappingProxyType(
    {  # every value each GameFormat field may take
        "variant": tuple(GAMES),
        "length": tuple(LENGTHS),
        "cube": (False, True),
        "jacoby": (False, True),
        "clock": (None, *CLOCKS),
    }
)


class BadFormat(ValueError):
    """A game format text this bot never makes."""


@dataclass(frozen=True)
class GameFormat:
    variant: str  # "short" | "long"
    length: int = 1  # 1: a single game; 3, 5, 7: a match to that many points
    cube: bool = False  # the doubling cube (short nardy only)
    jacoby: bool = False  # the Jacoby rule (single games with the cube only)
    clock: str | None = None  # a time control ("live", "blitz"), None: no clock (only the idle claim)

    def __post_init__(self) -> None:
        if self.variant not in GAMES:
            raise BadFormat(f"unknown variant {self.variant!r}")
        if self.length not in LENGTHS:
            raise BadFormat(f"match length {self.length} is not one of {LENGTHS}")
        if self.cube and self.variant != "short":
            raise BadFormat(f"{self.variant} nardy is played without the cube")
        if self.jacoby and (not self.cube or self.length != 1):
            raise BadFormat("the Jacoby rule is for single games with the cube")
        if self.clock is not None and self.clock not in CLOCKS:
            raise BadFormat(f"time control {self.clock!r} is not one of {CLOCKS}")

    def __str__(self) -> str:
        timed = f"-{self.clock}" if self.clock else ""
        if self.length == 1 and not self.cube:
            return self.variant + timed
        return f"{self.variant}.{self.length}{'c' if self.cube else ''}{'j' if self.jacoby else ''}{timed}"

    @classmethod
    def parse(cls, text: str) -> GameFormat:
        found = _FORMAT.match(text)
        if found is None:
            raise BadFormat(f"game format {text[:40]!r} is not like short, long, short.5c, short.1cj")
        return cls(
            found["variant"],
            int(found["length"] or 1),
            bool(found["cube"]),
            bool(found["jacoby"]),
            found["clock"],
        )

    def new_match(self) -> Match:
        return Match(length=self.length, cube=self.cube, jacoby=self.jacoby)

    @classmethod
    def of_match(cls, variant: str, match: Match, clock: str | None = None) -> GameFormat:
        return cls(variant, match.length, match.cube, match.jacoby, clock)

    @classmethod
    def every(cls) -> tuple[GameFormat, ...]:
        """Every format a game can have: each combination of every field's values (FIELD_VALUES) that is
        valid. Derived from the fields themselves, so a new field without its values is an error here, not a
        format that the quick-match sweeper, Stop searching and /forget silently never walk."""
        names = tuple(f.name for f in fields(cls))
        missing = set(names) ^ set(FIELD_VALUES)
        if missing:
            raise TypeError(
                f"GameFormat's fields and FIELD_VALUES (bot/model/game_format.py) disagree on {sorted(missing)}"
            )
        found: list[GameFormat] = []
        for values in product(*(FIELD_VALUES[name] for name in names)):
            try:
                found.append(cls(**dict(zip(names, values, strict=True))))
            except BadFormat:
                continue
        return tuple(found)

    def untimed(self) -> GameFormat:
        """The same format without a clock (a game against the computer has none)."""
        return GameFormat(self.variant, self.length, self.cube, self.jacoby)


ALL_FORMATS: tuple[str, ...] = tuple(str(f) for f in GameFormat.every())
# every format a game can have: 13 without a clock, 39 in all (each its own quick-match queue)
