"""Training long nardy's network on many cores: self-play actors in worker processes, one learner.

    OMP_NUM_THREADS=1 .venv/bin/python -m engine.ai.train --game long --workers 15 --games 120000 \\
        --init engine/ai/long_net_v1.npz --hidden 160 --checkpoint /tmp/longnet/ckpt.npz ...

The learner (the main process) holds the weights and the Adam state and takes the same TD(λ) step per game
as `Trainer.learn`; the actors only play. The run goes in rounds: in round r each of the W actors plays
`per_actor` games with a copy of the weights and a random source seeded by (seed, r, actor), and the
learner learns the round's games in actor order. Rounds overlap by one: round r + 2 is handed out, with
the weights learnt from rounds ≤ r, while the learner learns round r + 1, so the actors never wait for
the learner (the games are at most two rounds behind the weights, as in asynchronous TD-Gammon
training). The pipeline is drained at every checkpoint and evaluation (they come every
`--checkpoint-games` and `--eval-every` games), so a run is the same for a given seed and worker count
whether or not it was stopped and resumed (`--resume`). The evaluation's mirrored games against a frozen
opponent are shared among the actors too.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from multiprocessing import get_context
from multiprocessing.pool import AsyncResult, Pool
from pathlib import Path
from typing import Protocol

import numpy as np

from engine.ai.curve import CurvePoint, draw_curve
from engine.ai.levels import player_for
from engine.ai.long_net import LongNet, LongNetEvaluator
from engine.ai.player import SearchPlayer
from engine.ai.selfplay import SelfPlayGame, mirrored_points, points_interval, self_play_game
from engine.rules import find_rules

Weights = dict[str, np.ndarray]


class Learner(Protocol):
    """What the pool needs of a training run (train.Trainer is one)."""

    params: Weights
    games: int
    rounds: int
    curve: list[CurvePoint]

    @property
    def seed(self) -> int: ...

    def explore_now(self) -> float: ...

    def learn(self, game: SelfPlayGame) -> float: ...

    def net(self) -> LongNet: ...

    def save(self, path: str | Path) -> None: ...


@dataclass(frozen=True)
class PoolPlan:
    """How a parallel run is cut: `workers` actors, `per_actor` games each a round, the pipeline drained
    (and a checkpoint written) every `checkpoint_games` games, an evaluation every `eval_every` games."""

    workers: int
    per_actor: int = 8
    checkpoint_games: int = 5_000
    eval_every: int = 10_000
    eval_games: int = 400
    eval_opponent: str = "long_net_v1"

    def __post_init__(self) -> None:
        if self.workers < 1 or self.per_actor < 1:
            raise ValueError(f"pool plan: workers and per_actor must be at least 1, got {self}")


def _actor(task: tuple[Weights, int, int, int, int, float]) -> list[SelfPlayGame]:
    """Play one actor's share of a round: `count` self-play games seeded by (seed, round, actor)."""
    weights, seed, round_, actor, count, explore = task
    rng = random.Random(f"long-net:{seed}:{round_}:{actor}")
    forward = _net(weights).forward
    return [self_play_game(find_rules("long"), forward, rng, explore) for _ in range(count)]


def _evaluator(task: tuple[Weights, str, Sequence[int], int]) -> list[int]:
    """The net's points in the mirrored game pairs `pairs` against `opponent` (train.match's dice)."""
    weights, opponent, pairs, seed = task
    mine = SearchPlayer(LongNetEvaluator(_net(weights)))
    return mirrored_points(find_rules("long"), mine, player_for("long", opponent), pairs, seed)


def _net(weights: Weights) -> LongNet:
    return LongNet(weights["w1"], weights["b1"], weights["w2"], weights["b2"])


def _chunks(items: Sequence[int], parts: int) -> Iterable[Sequence[int]]:
    size = max(1, math.ceil(len(items) / parts))
    return (items[i : i + size] for i in range(0, len(items), size))


def pool_match(
    pool: Pool, weights: Weights, opponent: str, games: int, seed: int, parts: int
) -> tuple[float, float]:
    """`train.match` of the net against the named opponent, its game pairs shared among the pool."""
    pairs = list(range(max(1, games // 2)))
    tasks = [(weights, opponent, chunk, seed) for chunk in _chunks(pairs, parts)]
    points = [p for part in pool.map(_evaluator, tasks) for p in part]
    return points_interval(points)


def train_pool(
    trainer: Learner,
    games: int,
    plan: PoolPlan,
    *,
    seconds: float = math.inf,
    checkpoint: Path | None = None,
    curve_path: Path | None = None,
    best_path: Path | None = None,
) -> Learner:
    """Train on `plan.workers` processes until `trainer` has `games` games or, at the first drain after
    `seconds`, stop. Prints the progress and the curve; checkpoints at every drain."""
    per_round = plan.workers * plan.per_actor
    started, games_before = time.monotonic(), trainer.games
    best = max((p.ppg for p in trainer.curve), default=-math.inf)
    with get_context("spawn").Pool(plan.workers) as pool:

        def submit(round_: int) -> AsyncResult[list[list[SelfPlayGame]]]:
            weights = {k: v.copy() for k, v in trainer.params.items()}
            explore = trainer.explore_now()
            tasks = [(weights, trainer.seed, round_, a, plan.per_actor, explore) for a in range(plan.workers)]
            return pool.map_async(_actor, tasks)

        while trainer.games < games and time.monotonic() - started < seconds:
            # One stretch between drains: rounds until the next checkpoint or evaluation is due.
            eval_at = _next_multiple(trainer.games, plan.eval_every)
            stop = min(games, _next_multiple(trainer.games, plan.checkpoint_games), eval_at)
            rounds = max(1, math.ceil((stop - trainer.games) / per_round))
            first = trainer.rounds
            in_flight = [submit(first + i) for i in range(min(2, rounds))]
            for i in range(rounds):
                for part in in_flight.pop(0).get():
                    for game in part:
                        trainer.learn(game)
                trainer.rounds += 1
                if i + 2 < rounds:
                    in_flight.append(submit(first + i + 2))
            rate = (trainer.games - games_before) / max(time.monotonic() - started, 1e-9)
            print(f"games {trainer.games} rounds {trainer.rounds} ({rate:.0f} games/s)", flush=True)
            if trainer.games >= eval_at:
                _evaluate(pool, trainer, plan, curve_path)
                if best_path is not None and trainer.curve[-1].ppg > best:
                    best = trainer.curve[-1].ppg
                    trainer.net().save(best_path)
            if checkpoint is not None:
                trainer.save(checkpoint)
    return trainer


def _evaluate(pool: Pool, trainer: Learner, plan: PoolPlan, curve_path: Path | None) -> None:
    started = time.monotonic()
    weights = {k: v.copy() for k, v in trainer.params.items()}
    ppg, half = pool_match(pool, weights, plan.eval_opponent, plan.eval_games, 1, plan.workers)
    trainer.curve.append(CurvePoint(trainer.games, ppg, half))
    print(
        f"curve: games {trainer.games} ppg {ppg:+.3f} ± {half:.3f} vs {plan.eval_opponent} "
        f"({plan.eval_games} mirrored games, {time.monotonic() - started:.0f} s)",
        flush=True,
    )
    if curve_path is not None:
        draw_curve(
            trainer.curve, curve_path, f"long nardy net (1 ply) vs {plan.eval_opponent}: points per game"
        )


def _next_multiple(done: int, every: int) -> float:
    """The first multiple of `every` above `done` (infinity when `every` is 0: never)."""
    return (done // every + 1) * every if every > 0 else math.inf
