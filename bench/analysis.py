"""Speed of the post-game analysis (engine/ai/analysis.py): seconds per game, plays analysed.

    .venv/bin/python bench/analysis.py [--games 6] [--depth expert|quick] [--seed 1]

For each game (short, long) and each kind of play ("random": both sides play random legal plays, the
longest and wildest games; "intermediate": the computer's intermediate level on both sides, closer to a
typical game), `--games` seeded finished games are analysed one at a time in this process. Printed: the
turns and unforced plays analysed per game and the seconds per game (median, max); the last line is one
JSON object. Target (issue 15): ≤ 15 s for a typical game. This prints figures; no test asserts them.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import argparse
import json
import random
import statistics
import time

from engine import Game, Phase
from engine.ai import choose_play
from engine.ai.analysis import DEPTHS, analyse
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=6, help="games per (game, kind) set")
    parser.add_argument("--depth", choices=DEPTHS, default="expert")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    summary = bench(args.games, args.depth, args.seed)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
