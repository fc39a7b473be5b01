"""Playing whole games between two players without a Game record (used by tuning and the benchmark)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from engine.ai.player import Player
from engine.dice import Dice
from engine.rules import Rules

# A guard against a bug looping forever: no real game comes near this many turns.
MAX_TURNS = 2000


@dataclass
class GameOutcome:
    """Points won by player A (negative when B won) and each player's decision times in seconds."""

    a_points: int
    turns: int
    a_times: list[float] = field(default_factory=list)
    b_times: list[float] = field(default_factory=list)


def play_game(
    rules: Rules, a: Player, b: Player, a_starts: bool, dice: random.Random, rng: random.Random
) -> GameOutcome:
    """One game to the end; dice from `dice`, the players' own randomness from `rng`.

    The first roll is a non-double (the opening roll decides who starts, RULES §2.7)."""
    position = rules.start_position()
    a_to_move = a_starts
    outcome = GameOutcome(0, 0)
    first = True
    for turn in range(MAX_TURNS):
        d1, d2 = dice.randint(1, 6), dice.randint(1, 6)
        while first and d1 == d2:
            d1, d2 = dice.randint(1, 6), dice.randint(1, 6)
        first = False
        player = a if a_to_move else b
        start = time.perf_counter()
        play = player.choose(rules, position, Dice(d1, d2), rng)
        (outcome.a_times if a_to_move else outcome.b_times).append(time.perf_counter() - start)
        if play.position.x[0] == 15:
            points = rules.score_loser(play.position.o).points
            outcome.a_points = points if a_to_move else -points
            outcome.turns = turn + 1
            return outcome
        position = play.position.swapped()
        a_to_move = not a_to_move
    raise RuntimeError(f"game not over after {MAX_TURNS} turns: {rules.describe(position)}")
