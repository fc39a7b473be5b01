"""Decision times of a long nardy player on positions from real games: the positions met in N games
between two intermediates (dice seeded), each decided once by the player measured. Prints the median,
p90, p99 and max; the last line is one JSON object.

    .venv/bin/python bench/long_decisions.py --level expert --games 4
    .venv/bin/python bench/long_decisions.py --level long_v1 --games 4
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Game, Phase
from engine.ai import BENCH_LEVELS, LEVELS, player_for


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--level", choices=LEVELS + BENCH_LEVELS, required=True)
    parser.add_argument("--games", type=int, default=4)
    args = parser.parse_args(argv)
    guide = player_for("long", "intermediate")
    states = []
    for seed in range(args.games):
        dice = random.Random(seed)
        game = Game.new("long").opening_roll(3, 5)
        while not game.is_over:
            if game.phase is Phase.ROLL:
                game = game.roll(dice.randint(1, 6), dice.randint(1, 6))
                continue
            assert game.dice is not None
            states.append((game.position, game.dice))
            game = game.play(guide.choose(game.rules, game.position, game.dice, dice))
    player = player_for("long", args.level)
    rng = random.Random(3)
    times = []
    for position, roll in states:
        start = time.perf_counter()
        player.choose(game.rules, position, roll, rng)
        times.append(time.perf_counter() - start)
    times.sort()

    def at(q: float) -> float:
        return times[min(len(times) - 1, int(q * len(times)))] * 1e3

    summary = {
        "level": args.level,
        "decisions": len(times),
        "median_ms": round(statistics.median(times) * 1e3, 2),
        "p90_ms": round(at(0.9), 2),
        "p99_ms": round(at(0.99), 2),
        "max_ms": round(times[-1] * 1e3, 2),
    }
    print(
        f"{args.level}: {len(times)} decisions, median {summary['median_ms']} ms, p90 {summary['p90_ms']} ms, "
        f"p99 {summary['p99_ms']} ms, max {summary['max_ms']} ms"
    )
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
