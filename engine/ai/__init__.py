"""The computer opponent: a function from (rules, position, dice, level, rng) to one legal play."""

from __future__ import annotations

import random

from engine.dice import Dice
from engine.moves import Play
from engine.position import Position
from engine.rules import Rules

LEVELS: tuple[str, ...] = ("beginner", "intermediate", "expert")


def choose_play(rules: Rules, position: Position, dice: Dice | tuple[int, int], level: str, rng: random.Random) -> Play:
    """One of rules.legal_plays(position, dice), chosen at `level` (deterministic for a seeded rng)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
    plays = rules.legal_plays(position, dice)
    return plays[rng.randrange(len(plays))]
