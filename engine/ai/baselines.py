"""Benchmark opponents that are not offered to users: a uniformly random player and long nardy's
greedy player (the play that moves the most pips while keeping the most made points)."""

from __future__ import annotations

import random

from engine.dice import Dice
from engine.moves import Play
from engine.position import Position
from engine.rules import Rules


class RandomPlayer:
    """Any legal play, uniformly."""

    def choose(self, rules: Rules, position: Position, dice: Dice, rng: random.Random) -> Play:
        plays = rules.legal_plays(position, dice)
        return plays[rng.randrange(len(plays))]


class GreedyPlayer:
    """The most pips moved (borne-off checkers count their point), then the most occupied points;
    ties broken at random."""

    def choose(self, rules: Rules, position: Position, dice: Dice, rng: random.Random) -> Play:
        plays = rules.legal_plays(position, dice)
        before = position.pips()[0]

        def key(play: Play) -> tuple[int, int]:
            x = play.position.x
            return (before - play.position.pips()[0], sum(1 for p in range(1, 25) if x[p]))

        best = max(key(p) for p in plays)
        top = [p for p in plays if key(p) == best]
        return top[rng.randrange(len(top))]
