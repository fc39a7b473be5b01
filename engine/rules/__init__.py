"""One rules class per game behind the `Rules` interface (base.py; short.py, long.py), and the registry to
find them; the turn mechanics both games share beneath it: the full turn's generator (generator.py), the
move picker's steps (picker.py) and plays read from their notation (notation.py)."""

from __future__ import annotations

from engine.errors import NardyError
from engine.options import Options
from engine.rules.base import Rules
from engine.rules.long import LongNardy
from engine.rules.picker import TurnStep
from engine.rules.short import ShortNardy

VARIANTS: tuple[type[Rules], ...] = (ShortNardy, LongNardy)
GAMES: tuple[str, ...] = tuple(v.name for v in VARIANTS)


class UnknownGameError(NardyError):
    """No game of that name."""


def find_variant(name: str) -> type[Rules]:
    for variant in VARIANTS:
        if variant.name == name:
            return variant
    raise UnknownGameError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")


def find_rules(name: str, options: Options | None = None) -> Rules:
    """The rules of the game called `name` ("short" or "long") with these house rules."""
    return find_variant(name)(options)


__all__ = [
    "GAMES",
    "VARIANTS",
    "LongNardy",
    "Rules",
    "ShortNardy",
    "TurnStep",
    "UnknownGameError",
    "find_rules",
    "find_variant",
]
