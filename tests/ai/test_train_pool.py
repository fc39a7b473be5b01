"""Training on many cores (engine/ai/train_pool.py) and warm starts (Trainer.warm): the same seed and
worker count give the same weights, a run stopped at a drain resumes exactly, a widened net judges as its
start did, and the evaluation is shared among the workers."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from engine import Dice, find_rules
from engine.ai.levels import packaged_net
from engine.ai.long_net import LongNet, LongNetEvaluator
from engine.ai.train import TrainConfig, Trainer
from engine.ai.train_pool import PoolPlan, train_pool

TINY = TrainConfig(hidden=8, lr=3e-3, explore=0.1, explore_games=3, seed=4)
PLAN = PoolPlan(workers=2, per_actor=1, checkpoint_games=4, eval_every=0)
WEIGHTS = ("w1", "b1", "w2", "b2")


def test_a_parallel_run_stopped_at_a_drain_resumes_to_the_same_weights_as_a_straight_run(
    tmp_path: Path,
) -> None:
    checkpoint = tmp_path / "ckpt.npz"
    train_pool(Trainer.new(TINY), 4, PLAN, checkpoint=checkpoint)
    stopped = Trainer.load(checkpoint)
    assert (stopped.games, stopped.rounds) == (4, 2)
    resumed = train_pool(stopped, 8, PLAN)
    straight = train_pool(Trainer.new(TINY), 8, PLAN)
    assert resumed.games == straight.games == 8
    for name in WEIGHTS:
        np.testing.assert_array_equal(resumed.params[name], straight.params[name])
    assert not np.array_equal(straight.params["w1"], Trainer.new(TINY).params["w1"]), "it learnt something"


def test_a_warm_start_widened_to_more_units_judges_every_position_as_its_start_net() -> None:
    start = packaged_net("long_net_intermediate.npz")
    trainer = Trainer.warm(TrainConfig(hidden=start.hidden + 24, seed=2), start)
    widened = trainer.net()
    assert (widened.hidden, trainer.games) == (start.hidden + 24, start.games)
    rules = find_rules("long")
    position = rules.start_position()
    rng = random.Random(3)
    for _ in range(20):  # a few positions of a random game
        plays = rules.legal_plays(position, _dice(rng))
        position = plays[rng.randrange(len(plays))].position.swapped()
        after = [p.position for p in rules.legal_plays(position, _dice(rng))]
        mine = LongNetEvaluator(widened).values(rules, position, after)
        theirs = LongNetEvaluator(start).values(rules, position, after)
        np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-12)


def test_a_warm_start_cannot_drop_units() -> None:
    start = packaged_net("long_net_intermediate.npz")
    with pytest.raises(ValueError, match=r"hidden 8 is fewer than the start net's \d+"):
        Trainer.warm(TrainConfig(hidden=8), start)


def test_the_curve_is_measured_by_the_workers_and_the_best_net_is_kept(tmp_path: Path) -> None:
    plan = PoolPlan(
        workers=2, per_actor=1, checkpoint_games=2, eval_every=2, eval_games=4, eval_opponent="random"
    )
    trainer = train_pool(
        Trainer.warm(TrainConfig(hidden=80, seed=5), packaged_net("long_net_intermediate.npz")),
        2_502,
        plan,
        curve_path=tmp_path / "curve.png",
        best_path=tmp_path / "best.npz",
    )
    assert [p.games for p in trainer.curve] == [2_502]
    assert trainer.curve[0].ppg > 0.5, "a trained net beats random play"
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"
    assert LongNet.load(tmp_path / "best.npz").games == 2_502


def _dice(rng: random.Random) -> Dice:
    return Dice(rng.randint(1, 6), rng.randint(1, 6))
