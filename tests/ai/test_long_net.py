"""Long nardy's network: its encoding, the shipped weights, its decisions and its TD(λ) trainer."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from engine import Dice, Position, find_rules
from engine.ai.baselines import RandomPlayer
from engine.ai.long_net import (
    INPUTS,
    SIDE_INPUTS,
    LongNet,
    LongNetEvaluator,
    encode,
    equity,
    shipped_net,
)
from engine.ai.player import LookaheadEvaluator, SearchPlayer
from engine.ai.train import CurvePoint, TrainConfig, Trainer, draw_curve, match, train

LONG = find_rules("long")
# The shipped weights (engine/ai/long_net.npz): a new net is a deliberate change of this line.
WEIGHTS_SHA256 = (
    "d0f66f7c6495c44c5eaa7d74419cea851fd9525384d774ccfee8dd30bc9e5396"  # long_net_v2, the expert's
)


def _mirror(q: int) -> int:
    return q + 12 if q <= 12 else q - 12


@cache
def sample_positions() -> tuple[Position, ...]:
    """Positions from a few random long nardy games (X to move), from the opening to the bear-off."""
    rng = random.Random(7)
    out: list[Position] = []
    for _ in range(6):
        position = LONG.start_position()
        while True:
            plays = LONG.legal_plays(position, Dice(rng.randint(1, 6), rng.randint(1, 6)))
            after = plays[rng.randrange(len(plays))].position
            if after.x[0] == 15:
                break
            position = after.swapped()
            out.append(position)
    return tuple(out[::3])


def reference_blocks(s: Sequence[int], t: Sequence[int]) -> list[float]:
    """Inputs 99..103 of side_inputs the slow, obvious way: S's checkers behind a run of ≥3, ≥4, ≥5 T
    points, S's checkers with any T checker ahead, S's rearmost point / 24."""
    held = [False] + [t[_mirror(p)] > 0 for p in range(1, 25)]  # T's points in S's numbering

    def longest_run_below(p: int) -> int:
        longest = run = 0
        for q in range(1, p):
            run = run + 1 if held[q] else 0
            longest = max(longest, run)
        return longest

    blocked = [sum(s[p] for p in range(1, 25) if longest_run_below(p) >= k) / 15 for k in (3, 4, 5)]
    behind = sum(s[p] for p in range(1, 25) if any(held[1:p])) / 15
    rearmost = max((p for p in range(1, 25) if s[p]), default=0) / 24
    return [*blocked, behind, rearmost]


def test_swapping_the_sides_swaps_the_two_halves_of_the_encoding() -> None:
    positions = sample_positions()
    mine, theirs = encode(positions), encode([p.swapped() for p in positions])
    assert mine.shape == (len(positions), INPUTS)
    np.testing.assert_array_equal(mine[:, :SIDE_INPUTS], theirs[:, SIDE_INPUTS : 2 * SIDE_INPUTS])
    np.testing.assert_array_equal(mine[:, SIDE_INPUTS : 2 * SIDE_INPUTS], theirs[:, :SIDE_INPUTS])
    np.testing.assert_array_equal(mine[:, -1], theirs[:, -1])  # the race flag is shared


def test_the_two_sides_scores_of_one_position_sum_to_zero() -> None:
    """The mover's score of a position is minus the equity of the opponent to move there, and the
    opponent's probabilities are the mover's complements (P(win) + P(lose) = 1)."""
    net = shipped_net()
    positions = sample_positions()
    scores = LongNetEvaluator().values(LONG, positions[0], positions)
    theirs = net.probabilities([p.swapped() for p in positions])
    np.testing.assert_allclose(np.array(scores) + equity(theirs), 0.0, atol=1e-12)
    assert ((theirs >= 0.0) & (theirs <= 1.0)).all()


def test_the_lookahead_over_the_net_scores_in_equity_units() -> None:
    """The opponent's best replies, scored by the net, averaged over its 21 rolls: no finished game here."""
    position = sample_positions()[4]
    evaluator = LongNetEvaluator()
    deep = LookaheadEvaluator(evaluator).values(LONG, position, [position])[0]
    assert abs(deep) < 3.0  # equity units, no finished game here


def test_encoding_a_batch_equals_encoding_one_by_one() -> None:
    positions = sample_positions()
    batch = encode(positions)
    for i, position in enumerate(positions):
        np.testing.assert_array_equal(batch[i], encode([position])[0], err_msg=position.describe())


def test_blocked_checker_inputs_match_a_plain_count() -> None:
    for position in sample_positions():
        row = encode([position])[0]
        np.testing.assert_allclose(
            row[99:104], reference_blocks(position.x, position.o), err_msg=position.describe()
        )
        np.testing.assert_allclose(
            row[SIDE_INPUTS + 99 : SIDE_INPUTS + 104],
            reference_blocks(position.o, position.x),
            err_msg=position.describe(),
        )


def test_the_shipped_weights_load_and_their_checksum_is_pinned() -> None:
    raw = resources.files("engine.ai").joinpath("long_net.npz").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == WEIGHTS_SHA256
    assert len(raw) <= 2 * 1024 * 1024
    net = shipped_net()
    assert net.w1.shape == (INPUTS, net.hidden) and net.w2.shape == (net.hidden, 3)
    assert net.games > 0


def test_weights_of_the_wrong_shape_are_refused_by_name(tmp_path: Path) -> None:
    net = shipped_net()
    arrays = net.arrays()
    arrays["w2"] = arrays["w2"][:, :2]
    path = tmp_path / "bad.npz"
    with open(path, "wb") as file:
        np.savez(file, w1=arrays["w1"], b1=arrays["b1"], w2=arrays["w2"], b2=arrays["b2"])
    with pytest.raises(ValueError, match=r"w2 has shape \(\d+, 2\), expected \(\d+, 3\) \(in .*bad\.npz\)"):
        LongNet.load(path)


def test_a_seeded_decision_is_deterministic() -> None:
    position = sample_positions()[3]
    dice = Dice(5, 3)
    for player in (
        SearchPlayer(LongNetEvaluator()),
        SearchPlayer(LongNetEvaluator(), deep=LookaheadEvaluator(LongNetEvaluator()), candidates=3),
        SearchPlayer(LongNetEvaluator(), noise=0.1),
    ):
        first = player.choose(LONG, position, dice, random.Random(5))
        again = player.choose(LONG, position, dice, random.Random(5))
        assert first == again
        assert first in LONG.legal_plays(position, dice)


def test_the_net_plays_whole_games_against_random_and_wins() -> None:
    ppg, _ = match(LONG, SearchPlayer(LongNetEvaluator()), RandomPlayer(), 4, 11)
    assert ppg > 1.0


TINY = TrainConfig(hidden=8, lr=3e-3, explore=0.1, explore_games=3, seed=4)


def test_the_same_seed_trains_the_same_weights() -> None:
    a = train(Trainer.new(TINY), 4, progress=False).net()
    b = train(Trainer.new(TINY), 4, progress=False).net()
    for name in ("w1", "b1", "w2", "b2"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_a_resumed_run_continues_exactly_where_it_stopped(tmp_path: Path) -> None:
    checkpoint = tmp_path / "ckpt.npz"
    train(Trainer.new(TINY), 3, checkpoint=checkpoint, progress=False)
    resumed = train(Trainer.load(checkpoint), 6, progress=False)
    straight = train(Trainer.new(TINY), 6, progress=False)
    assert resumed.games == straight.games == 6
    assert resumed.rng.getstate() == straight.rng.getstate()
    for name in ("w1", "b1", "w2", "b2"):
        np.testing.assert_array_equal(resumed.params[name], straight.params[name])


def test_a_few_hundred_games_of_training_beat_random_play() -> None:
    trainer = train(Trainer.new(TrainConfig(hidden=16, lr=3e-3, explore=0.0, seed=3)), 300, progress=False)
    ppg, _ = match(LONG, SearchPlayer(LongNetEvaluator(trainer.net())), RandomPlayer(), 20, 2)
    assert ppg > 0.5


def test_the_learning_curve_is_drawn_as_a_png(tmp_path: Path) -> None:
    path = tmp_path / "curve.png"
    draw_curve([CurvePoint(0, -1.2, 0.3), CurvePoint(500, -0.4, 0.3), CurvePoint(1000, 0.1, 0.25)], path, "t")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_intermediate_and_the_named_networks_load_and_their_checksums_are_pinned() -> None:
    from engine.ai.levels import INTERMEDIATE_NET, NAMED_NETS, packaged_net

    pinned = {
        INTERMEDIATE_NET: ("43a5970e61061fb536b560ed3fb11170af455f9d2392cfe1676e86425c2c5c83", 2_500, 80),
        # long_net_v1: the first shipped network; long_net_v2: the second, trained on from it on 15 cores.
        NAMED_NETS["long_net_v1"]: (
            "2be0d52f2cb39e97b6aefd1c136ea4b27e34c1bb033bad4b993f1d10711718fc",
            19_561,
            80,
        ),
        NAMED_NETS["long_net_v2"]: (WEIGHTS_SHA256, 110_041, 160),
    }
    for name, (sha, games, hidden) in pinned.items():
        raw = resources.files("engine.ai").joinpath(name).read_bytes()
        assert hashlib.sha256(raw).hexdigest() == sha, name
        assert (packaged_net(name).games, packaged_net(name).hidden) == (games, hidden), name


def test_the_baselines_long_v1_and_the_named_nets_play_legal_long_nardy_only() -> None:
    from engine.ai import player_for

    rules = find_rules("long")
    position = rules.start_position()
    for name in ("long_v1", "long_net_v1", "long_net_v2"):
        play = player_for("long", name).choose(rules, position, Dice(6, 5), random.Random(1))
        assert play in rules.legal_plays(position, Dice(6, 5))
        with pytest.raises(ValueError, match="long nardy player"):
            player_for("short", name)
