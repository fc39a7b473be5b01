"""Benchmark of the game replay: `python bench/replay.py [--games N] [--seed S] [--format GIF|WEBP]`.

Plays N seeded random games of each variant to the end (random dice, random legal plays: longer than
people's games, short nardy's much longer with all its hits), renders each game's replay and prints, per
variant, the plays per game, the animation's size (KB) and the seconds per replay (building the views and
rendering them), median and max, and the longest game. The last line is one JSON object:
{"format": ..., "short": {"plays_median": ..., "kb_median": ..., "kb_max": ..., "s_median": ..., "s_max": ...,
"frames_max": ...}, "long": {...}}.
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

from render.replay import FORMATS, IMAGE_FORMAT, ReplayTexts, render_replay, replay_views
from testkit.random_play import random_game


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per variant (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random games (default 1)")
    parser.add_argument("--format", choices=FORMATS, default=IMAGE_FORMAT, help="animation format")
    args = parser.parse_args()

    texts = ReplayTexts(start="Алиса – Bob", result="Алиса выиграла: марс (2)", pips_label="пипсы")
    render_replay(replay_views(random_game("short", random.Random(0))))  # warm the caches
    summary: dict[str, object] = {"format": args.format}
    for variant in ("short", "long"):
        rng = random.Random(f"{args.seed}-{variant}")
        plays: list[int] = []
        sizes_kb: list[float] = []
        seconds: list[float] = []
        frames = 0
        for _ in range(args.games):
            game = random_game(variant, rng)
            start = time.perf_counter()
            views = replay_views(game, ("Алиса", "Bob"), texts)
            data = render_replay(views, image_format=args.format)
            seconds.append(time.perf_counter() - start)
            plays.append(len(game.history))
            sizes_kb.append(len(data) / 1024)
            frames = max(frames, len(views))
        longest = max(range(len(plays)), key=plays.__getitem__)
        figures = {
            "plays_median": statistics.median(plays),
            "kb_median": round(statistics.median(sizes_kb), 1),
            "kb_max": round(max(sizes_kb), 1),
            "s_median": round(statistics.median(seconds), 3),
            "s_max": round(max(seconds), 3),
            "frames_max": frames,
        }
        summary[variant] = figures
        print(
            f"{variant}: {args.games} games, plays median {figures['plays_median']} max {max(plays)}; "
            f"{args.format} KB median {figures['kb_median']} max {figures['kb_max']}; "
            f"seconds median {figures['s_median']} max {figures['s_max']}; "
            f"longest game {plays[longest]} plays ({plays[longest] + 2} frames): "
            f"{sizes_kb[longest]:.1f} KB in {seconds[longest]:.2f} s"
        )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
