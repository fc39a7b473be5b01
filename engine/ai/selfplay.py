"""Playing whole games between two players without a Game record (used by tuning and the benchmark)."""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from engine.ai.long_net import encode_counts, equity
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


def mirrored_points(rules: Rules, a: Player, b: Player, pairs: Iterable[int], seed: int) -> list[int]:
    """A's points in each game of the mirrored pairs `pairs`: pair k's dice drawn from a source seeded by
    (seed, k) and played twice, A starting then B starting (train.match and the training pool's games)."""
    points: list[int] = []
    for pair in pairs:
        for a_starts in (True, False):
            dice = random.Random(seed * 1_000_003 + pair)
            rng = random.Random(seed * 7_919 + pair)
            points.append(play_game(rules, a, b, a_starts, dice, rng).a_points)
    return points


def points_interval(points: Sequence[int]) -> tuple[float, float]:
    """Points per game over `points` (one game each) and the half-width of its 95 % interval."""
    n = len(points)
    ppg = sum(points) / n
    return ppg, 1.96 * (statistics.stdev(points) if n > 1 else 0.0) / math.sqrt(n)


def percentile(values: Sequence[float], q: float) -> float:
    """The `q` quantile (0..1) of `values` by rank (nan for none): decision times' p99 and the like."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


@dataclass(frozen=True, eq=False)
class SelfPlayGame:
    """One self-play game: every position met (N×26 counts, each from its side to move: xs the mover's,
    os the other's), whether the last mover's win was a mars, and the turns played."""

    xs: np.ndarray
    os: np.ndarray
    mars: bool
    turns: int


def self_play_game(
    rules: Rules, forward: Callable[[np.ndarray], np.ndarray], rng: random.Random, explore: float
) -> SelfPlayGame:
    """One game of a net against itself, greedy at 1 ply (`forward`: encoded positions → N×3 outputs),
    with a random play at probability `explore`; the dice and the exploration draw from `rng`."""
    position = rules.start_position()
    xs: list[tuple[int, ...]] = [position.x]
    os: list[tuple[int, ...]] = [position.o]
    first = True
    for turn in range(MAX_TURNS):
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        while first and d1 == d2:
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        first = False
        plays = rules.legal_plays(position, Dice(d1, d2))
        won = [i for i, p in enumerate(plays) if p.position.x[0] == 15]
        if won:
            chosen = max(won, key=lambda i: (rules.score_loser(plays[i].position.o).points, -i))
            mars = rules.score_loser(plays[chosen].position.o).points >= 2
            return SelfPlayGame(np.array(xs, dtype=np.int8), np.array(os, dtype=np.int8), mars, turn + 1)
        if len(plays) == 1:
            chosen = 0
        elif explore and rng.random() < explore:
            chosen = rng.randrange(len(plays))
        else:
            inputs = encode_counts(
                np.array([p.position.o for p in plays]), np.array([p.position.x for p in plays])
            )
            chosen = int(np.argmin(equity(forward(inputs))))
        position = plays[chosen].position.swapped()
        xs.append(position.x)
        os.append(position.o)
    raise RuntimeError(f"self-play game not over after {MAX_TURNS} turns: {rules.describe(position)}")
