"""The computer opponent: a function from (rules, position, dice, level, rng) to one legal play.

Short nardy uses bgsage's neural network (MPL-2.0); long nardy a self-play network of its own
(long_net.py). See `levels.py` for the table of players; `analysis.py` judges plays by the expert's own
decisions.
"""

from __future__ import annotations

import random

from engine.ai.levels import BENCH_LEVELS, LEVELS, player_for
from engine.ai.player import Evaluator, Player, SearchPlayer
from engine.dice import Dice
from engine.moves import Play
from engine.position import Position
from engine.rules import Rules

__all__ = ["BENCH_LEVELS", "LEVELS", "Evaluator", "Player", "SearchPlayer", "choose_play", "player_for"]


def choose_play(
    rules: Rules, position: Position, dice: Dice | tuple[int, int], level: str, rng: random.Random
) -> Play:
    """One of rules.legal_plays(position, dice), chosen at `level` (deterministic for a seeded rng)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
    return player_for(rules.name, level).choose(rules, position, Dice.of(dice), rng)
