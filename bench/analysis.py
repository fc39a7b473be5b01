"""Speed of the post-game analysis (engine/ai/analysis.py): seconds per game, plays analysed.

    .venv/bin/python bench/analysis.py [--games 6] [--depth expert|quick] [--seed 1]
    .venv/bin/python bench/analysis.py --calibrate 300     # refit long nardy's equity curve

For each game (short, long) and each kind of play ("random": both sides play random legal plays, the
longest and wildest games; "intermediate": the computer's intermediate level on both sides, closer to a
typical game), `--games` seeded finished games are analysed one at a time in this process. Printed: the
turns and unforced plays analysed per game and the seconds per game (median, max); the last line is one
JSON object. Target (issue 15): ≤ 15 s for a typical game. This prints figures; no test asserts them.

`--calibrate N` plays N long nardy games at the intermediate level and fits, over the positions after
each play, the two curves analysis.py keeps as constants: expected signed points ≈ 2·tanh(v / s) (least
squares over s) and P(win) ≈ 1 / (1 + exp(−(b + k·v))) (maximum likelihood over b, k).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import argparse
import json
import math
import random
import statistics
import time

import numpy as np

from engine import Game, Phase, find_rules
from engine.ai import choose_play
from engine.ai.analysis import DEPTHS, analyse
from engine.ai.long_eval import score, shipped_weights
from testkit.random_play import random_dice

KINDS = ("random", "intermediate")


def seeded_game(game: str, kind: str, seed: int) -> Game:
    """A finished game: dice from random.Random(2·seed), plays random or by the intermediate level (their
    randomness from random.Random(2·seed + 1))."""
    dice = random.Random(2 * seed)
    rng = random.Random(2 * seed + 1)
    g = Game.new(game)
    while not g.is_over:
        if g.phase is Phase.OPENING:
            g = g.opening_roll(dice.randint(1, 6), dice.randint(1, 6))
            continue
        if g.phase is Phase.ROLL:
            roll = random_dice(dice)
            g = g.roll(roll.a, roll.b)
        to_play = g.dice
        assert to_play is not None
        if kind == "random":
            g = g.play(rng.choice(g.legal_plays()))
        else:
            g = g.play(choose_play(g.rules, g.position, to_play, kind, rng))
    return g


def bench(games: int, depth: str, seed: int) -> dict[str, object]:
    summary: dict[str, object] = {"depth": depth, "games_per_set": games}
    worst = 0.0
    for game in ("short", "long"):
        for kind in KINDS:
            times, turns, plays = [], [], []
            for i in range(games):
                g = seeded_game(game, kind, seed * 1000 + i)
                start = time.perf_counter()
                analysis = analyse(g, depth=depth)
                times.append(time.perf_counter() - start)
                turns.append(len(g.history))
                plays.append(len(analysis.plays))
            worst = max(worst, max(times))
            print(
                f"{game:5} {kind:12} {games} games: turns median {statistics.median(turns):.0f}, "
                f"unforced plays median {statistics.median(plays):.0f} (max {max(plays)}); "
                f"s/game median {statistics.median(times):.2f}, max {max(times):.2f}"
            )
            summary[f"{game}_{kind}"] = {
                "s_median": round(statistics.median(times), 3),
                "s_max": round(max(times), 3),
                "plays_median": statistics.median(plays),
                "turns_median": statistics.median(turns),
            }
    summary["s_max_all"] = round(worst, 3)
    return summary


def calibrate(games: int) -> dict[str, object]:
    """Fit long nardy's equity and win-chance curves to intermediate self-play (see the docstring)."""
    rules = find_rules("long")
    weights = shipped_weights("expert")
    samples: list[tuple[float, int, int]] = []  # (value for the mover, mover won, signed points)
    for i in range(games):
        g = seeded_game("long", "intermediate", 10_000 + i)
        assert g.result is not None
        replay = Game.new("long")
        for white_die, black_die in g.opening_rolls:
            replay = replay.opening_roll(white_die, black_die)
        for turn in g.history:
            if replay.phase is Phase.ROLL:
                replay = replay.roll(turn.dice.a, turn.dice.b)
            play = rules.parse_play(replay.position, turn.dice, turn.play)
            if play.position.x[0] < 15:
                won = g.result.winner is turn.side
                points = g.result.points if won else -g.result.points
                samples.append((score(weights, play.position), int(won), points))
            replay = replay.play(play)
    v, wins, signed = (np.array(column, dtype=np.float64) for column in zip(*samples))
    scales = np.arange(5.0, 40.5, 0.5)
    scale = float(scales[np.argmin([((signed - 2 * np.tanh(v / s)) ** 2).mean() for s in scales])])
    best = (-math.inf, 0.0, 0.0)
    for b in np.arange(-0.40, 0.21, 0.02):
        for k in np.arange(0.050, 0.401, 0.005):
            p = 1 / (1 + np.exp(-(b + k * v)))
            ll = float(np.log(np.clip(np.where(wins > 0, p, 1 - p), 1e-12, 1.0)).sum())
            if ll > best[0]:
                best = (ll, round(float(b), 2), round(float(k), 3))
    result: dict[str, object] = {
        "games": games,
        "positions": len(samples),
        "equity_scale": scale,
        "win_bias": best[1],
        "win_slope": best[2],
        "mars_share": round(float((np.abs(signed) >= 2).mean()), 3),
    }
    print(
        f"long nardy, {games} games, {len(samples)} positions: equity ≈ 2·tanh(v/{scale}), "
        f"P(win) ≈ σ({best[1]:+.2f} + {best[2]:.3f}·v)"
    )
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=6, help="games per (game, kind) set")
    parser.add_argument("--depth", choices=DEPTHS, default="expert")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--calibrate", type=int, metavar="GAMES", help="refit long nardy's curves instead")
    args = parser.parse_args(argv)
    if args.calibrate:
        print(json.dumps(calibrate(args.calibrate)))
        return
    summary = bench(args.games, args.depth, args.seed)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
