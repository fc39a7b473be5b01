"""Strength of a long nardy network (engine/ai/long_net.py) against the frozen long expert `long_v1`
(the linear evaluator with the 21-roll lookahead on its 3 best plays): mirrored games (each dice
sequence played once with each side starting), points per game with a 95 % interval, and the net's
decision times. The last line printed is one JSON object.

    .venv/bin/python bench/long_net.py --games 300 --search 1ply
    .venv/bin/python bench/long_net.py --games 300 --search lookahead --weights /tmp/longnet/best.npz

--search 1ply: SearchPlayer(LongNetEvaluator(net)); lookahead: the same with
deep=LookaheadEvaluator(LongNetEvaluator(net)) on the 3 best plays of the first pass.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import find_rules
from engine.ai.long_net import LongNet, LongNetEvaluator, shipped_net
from engine.ai.player import LookaheadEvaluator, Player, SearchPlayer
from engine.ai.selfplay import percentile, play_game, points_interval
from engine.ai.train import long_v1


def net_player(weights: str | None, search: str) -> Player:
    net = LongNet.load(weights) if weights else shipped_net()
    evaluator = LongNetEvaluator(net)
    if search == "1ply":
        return SearchPlayer(evaluator)
    return SearchPlayer(evaluator, deep=LookaheadEvaluator(evaluator), candidates=3)


def _run(args: tuple[str | None, str, int, list[int]]) -> list[tuple[int, list[float]]]:
    """Games of the given pairs: (the net's points, its decision times) for each."""
    weights, search, seed, pairs = args
    rules = find_rules("long")
    a, b = net_player(weights, search), long_v1()
    results = []
    for pair in pairs:
        for a_starts in (True, False):
            dice = random.Random(seed * 1_000_003 + pair)
            rng = random.Random(seed * 7_919 + pair)
            outcome = play_game(rules, a, b, a_starts, dice, rng)
            results.append((outcome.a_points, outcome.a_times))
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, required=True, help="games in all (two per dice sequence)")
    parser.add_argument("--search", choices=("1ply", "lookahead"), default="1ply")
    parser.add_argument("--weights", help="a net .npz (default: the shipped engine/ai/long_net.npz)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="processes playing games in parallel")
    args = parser.parse_args(argv)
    pairs = list(range(max(1, args.games // 2)))
    chunks = [pairs[w :: args.workers] for w in range(args.workers)]
    jobs = [(args.weights, args.search, args.seed, chunk) for chunk in chunks if chunk]
    started = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            parts = list(pool.map(_run, jobs))
    else:
        parts = [_run(job) for job in jobs]
    wall = time.perf_counter() - started
    points = [p for part in parts for p, _ in part]
    times = [t for part in parts for _, ts in part for t in ts]
    n = len(points)
    ppg, half = points_interval(points)
    wins = sum(1 for p in points if p > 0)
    median, p99 = statistics.median(times) * 1e3, percentile(times, 0.99) * 1e3
    weights = args.weights or "engine/ai/long_net.npz"
    print(f"long nardy: net ({args.search}, {weights}) vs long_v1, {n} mirrored games, seed {args.seed}")
    print(
        f"net wins {wins} ({wins / n:.1%}); points per game {ppg:+.3f}, 95% CI [{ppg - half:+.3f}, {ppg + half:+.3f}]"
    )
    print(f"net decisions {len(times)}: median {median:.2f} ms, p99 {p99:.2f} ms; wall {wall:.0f} s")
    summary = {
        "a": f"net-{args.search}",
        "b": "long_v1",
        "weights": weights,
        "games": n,
        "win_rate": round(wins / n, 4),
        "ppg": round(ppg, 4),
        "ci95": [round(ppg - half, 4), round(ppg + half, 4)],
        "median_ms": round(median, 3),
        "p99_ms": round(p99, 3),
        "wall_s": round(wall, 1),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
