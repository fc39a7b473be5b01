"""What the metrics cost a press, counted in-process: `python bench/metrics_cost.py [--presses 100000]`.

Makes, per simulated press, what a move through the fake Bot API counts (bot/observe/metrics.py): the update
and its outcome, the press->answer and press->board edited histograms, the save, two pictures, three Bot API
calls (the answer, an edit, a caption), a Redis connection check (nothing) and one scrape every 15 s of
presses at 100 presses a second (the exposition of every metric). Prints microseconds per press, next to
bench/load.py's CPU per move (7-11 ms on the 2-core machine) for the share; the last line is JSON."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from prometheus_client import generate_latest

from bot.observe.metrics import Metrics


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=100_000)
    args = parser.parse_args()
    metrics = Metrics()
    scrape_every = 1500  # presses between scrapes: 15 s at 100 presses a second
    began = time.process_time()  # CPU time: the shared machine's load does not count
    for i in range(args.presses):
        metrics.update("press", "applied")
        metrics.press_answer.observe(0.004)
        metrics.save.observe(0.0008)
        metrics.picture.observe(0.002)
        metrics.picture.observe(0.002)
        metrics.telegram_call("answerCallbackQuery", "ok")
        metrics.telegram_call("editMessageMedia", "ok")
        metrics.telegram_call("editMessageCaption", "ok")
        metrics.started.labels("short", "person")  # the lookup a start makes
        metrics.press_board.observe(0.009)
        if i % scrape_every == 0:
            generate_latest(metrics.registry)
    per_press = (time.process_time() - began) / args.presses * 1e6
    print(f"{per_press:.1f} µs of metrics per press ({args.presses} presses)")
    print(json.dumps({"presses": args.presses, "us_per_press": round(per_press, 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
