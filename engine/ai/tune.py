"""Hill-climb the long nardy weights by self-play: `python -m engine.ai.tune --rounds N --games G`.

Each round perturbs one weight of the current best, plays G games (pairs of games with the same
dice, each side starting once) between the candidate and the best at 0-ply, and keeps the candidate
when it wins clearly more than half. Writes the expert set of long_weights.json when done.
"""

from __future__ import annotations

import argparse
import json
import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from engine.ai.long_eval import FEATURES, LinearEvaluator, LongWeights, shipped_weights
from engine.ai.player import SearchPlayer
from engine.ai.selfplay import play_game
from engine.rules import find_rules

WEIGHTS_FILE = Path(__file__).with_name("long_weights.json")


def _match(args: tuple[LongWeights, LongWeights, int, int]) -> int:
    """Points won by the first weight set over `pairs` pairs of games from `seed`."""
    cand, best, seed, pairs = args
    rules = find_rules("long")
    a = SearchPlayer(LinearEvaluator(cand))
    b = SearchPlayer(LinearEvaluator(best))
    total = 0
    for i in range(pairs):
        for a_starts in (True, False):
            dice = random.Random(seed * 100_003 + i)
            total += play_game(rules, a, b, a_starts, dice, random.Random(i)).a_points
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    best = shipped_weights("expert")
    pairs = args.games // 2 // args.workers
    with ProcessPoolExecutor(args.workers) as pool:
        retry: tuple[str, int, float] | None = (
            None  # after a win: the same step again; after a clear loss: the opposite
        )
        reversal = False
        for round_no in range(args.rounds):
            if retry is not None:
                part, index, step = retry
            else:
                part = rng.choice(("contact", "contact", "contact", "race"))
                index = rng.randrange(1, len(FEATURES))  # the pip weight stays -1: it sets the scale
                step = max(0.1, abs(getattr(best, part)[index]) * 0.5) * rng.choice((-1, 1))
            weights = list(getattr(best, part))
            weights[index] += step
            cand = (
                LongWeights(tuple(weights), best.race)
                if part == "contact"
                else LongWeights(best.contact, tuple(weights))
            )
            seed = args.seed * 1000 + round_no
            points = sum(pool.map(_match, [(cand, best, seed * 10 + w, pairs) for w in range(args.workers)]))
            games = pairs * 2 * args.workers
            kept = points > 0.04 * games
            if kept:
                retry, reversal = (part, index, step), True
            elif points < -0.04 * games and not reversal:
                retry, reversal = (part, index, -step), True
            else:
                retry, reversal = None, False
            print(
                f"round {round_no}: {part}.{FEATURES[index]} {weights[index] - step:+.3f} -> {weights[index]:+.3f}: "
                f"{points:+d} points in {games} games{' KEPT' if kept else ''}",
                flush=True,
            )
            if kept:
                best = cand
                data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
                data["expert"] = best.to_json()
                WEIGHTS_FILE.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
