"""Speed of `legal_plays`: median and p99 per call over a fixed, seeded corpus from random play.

    .venv/bin/python bench/engine.py [positions per game]

Both games' corpora come from seeded random play (both sides playing random legal plays from the
start); gnubg-nn is timed on the short corpus, each position decoded from its Position ID to a
gnubg board. After an untimed warm-up pass over the corpus, each call is timed REPEATS times and its
fastest time kept (this keeps other processes' noise out of the p99). The last line
is one JSON object; `ratio` is the slower game's median over gnubg-nn's. Targets (issue 2): ratio
<= 1.0, p99 <= 5 ms for both games. This prints figures; no test asserts them.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path and its name would hide the engine package.
ROOT = Path(__file__).resolve().parent.parent
if sys.path and Path(sys.path[0] or ".").resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)

import json
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial

import gnubg_nn

from engine import Dice, Position, Rules, find_rules
from testkit.random_play import random_play_positions

SEED = 20260207
DEFAULT_POSITIONS = 4000
REPEATS = 3


def corpus(game: str, n: int) -> list[tuple[Position, Dice]]:
    return list(random_play_positions(find_rules(game), random.Random(SEED), n))


def time_calls(call: Callable[[int], object], n: int) -> list[float]:
    """Microseconds of each call(i), i = 0..n-1: the fastest of REPEATS timed passes after one untimed pass."""
    for i in range(n):
        call(i)
    clock = time.perf_counter_ns
    best = [float("inf")] * n
    for _ in range(REPEATS):
        for i in range(n):
            start = clock()
            call(i)
            best[i] = min(best[i], (clock() - start) / 1000)
    return best


def ours(rules: Rules, positions: Sequence[tuple[Position, Dice]], i: int) -> object:
    return rules.legal_plays(*positions[i])


def gnubgs(boards: Sequence[object], rolls: Sequence[tuple[int, int]], i: int) -> object:
    return gnubg_nn.moves(boards[i], *rolls[i])


def p99(times: Sequence[float]) -> float:
    return statistics.quantiles(times, n=100, method="inclusive")[98]


def report(name: str, times: Sequence[float]) -> tuple[float, float]:
    median, high = statistics.median(times), p99(times)
    print(
        f"{name:<8} {len(times):>6} calls  median {median:8.1f} us  p99 {high:8.1f} us  max {max(times):8.1f} us"
    )
    return median, high


def main(argv: list[str]) -> None:
    n = int(argv[1]) if len(argv) > 1 else DEFAULT_POSITIONS
    print(
        f"python {platform.python_version()} on {platform.machine()}, {n} positions per game, seed {SEED}, "
        f"best of {REPEATS} per call"
    )
    figures: dict[str, float] = {}
    for game in ("short", "long"):
        rules = find_rules(game)
        positions = corpus(game, n)
        moves = sum(len(rules.legal_plays(p, d)) for p, d in positions)
        print(f"{game}: {moves / n:.1f} outcomes per position on average")
        figures[f"{game}_median_us"], figures[f"{game}_p99_us"] = report(
            game, time_calls(partial(ours, rules, positions), n)
        )
        if game == "short":
            boards = [gnubg_nn.board_from_position_id(rules.position_id(p)) for p, _ in positions]
            rolls = [(d.a, d.b) for _, d in positions]
            figures["gnubg_median_us"], _ = report("gnubg-nn", time_calls(partial(gnubgs, boards, rolls), n))
    figures["ratio"] = max(figures["short_median_us"], figures["long_median_us"]) / figures["gnubg_median_us"]
    keys = ["short_median_us", "short_p99_us", "long_median_us", "long_p99_us", "gnubg_median_us", "ratio"]
    print(json.dumps({k: round(figures[k], 2) for k in keys}))


if __name__ == "__main__":
    main(sys.argv)
