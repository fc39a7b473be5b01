"""Benchmark of the board page (issue 24, the page's part): `python bench/webapp.py [--rounds N]`.

Prints the page weight (every file of bot/web/static, raw and gzip-compressed at level 9 as a server would
send it) and the time to the first board in Debian's Chromium against testkit's stub server: from the
navigation's start to the first state drawn (the page's performance mark `nardy:first-board`), each round
in a fresh browser context (nothing cached; the stub in a process of its own), on a desktop and on a phone viewport, for both variants:
median and p90 in ms. Goals (the issue): under 150 KB compressed, under 1 s to the first board. The last
line is one JSON object: {"bytes": ..., "gzip_bytes": ..., "first_board_ms": {"desktop": {...}, ...}}.
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing
import statistics
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.web import STATIC_DIR
from testkit.browser import DESKTOP, PHONE, StubServer, StubTable, chromium_path, launch

WEIGHT_GOAL = 150 * 1024
FIRST_BOARD_GOAL_MS = 1000.0


def page_weight() -> dict[str, tuple[int, int]]:
    """file name -> (bytes, gzip level 9 bytes) for every file the page loads."""
    return {
        path.name: (len(data), len(gzip.compress(data, 9, mtime=0)))
        for path in sorted(STATIC_DIR.iterdir())
        if path.is_file()
        for data in [path.read_bytes()]
    }


def serve(conn: Connection) -> None:
    """The stub server with a game of each variant, in a process of its own (so that the browser's driver
    in this process does not slow its answers): sends its page's URL, stops when told."""
    with StubServer() as server:
        for variant, dice in (("short", (6, 1)), ("long", (5, 3))):
            server.add(StubTable.start(variant, variant, dice))
        conn.send(server.url)
        conn.recv()


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="page loads timed per viewport (default 20)")
    args = parser.parse_args()

    weights = page_weight()
    for name, (raw, packed) in weights.items():
        print(f"{name:12} {raw:7d} B  {packed:6d} B gzip")
    total = sum(raw for raw, _ in weights.values())
    total_gzip = sum(packed for _, packed in weights.values())
    verdict = "under" if total_gzip < WEIGHT_GOAL else "OVER"
    print(f"{'all':12} {total:7d} B  {total_gzip:6d} B gzip ({verdict} the goal of {WEIGHT_GOAL // 1024} KB)")

    if chromium_path() is None:
        print("no Chromium (apt-get install chromium): the time to the first board is not measured")
        print(json.dumps({"bytes": total, "gzip_bytes": total_gzip, "first_board_ms": None}))
        return 0
    from playwright.sync_api import sync_playwright

    figures: dict[str, dict[str, float]] = {}
    context_of = multiprocessing.get_context("spawn")
    ours, theirs = context_of.Pipe()
    serving = context_of.Process(target=serve, args=(theirs,), daemon=True)
    serving.start()
    base = ours.recv()
    with sync_playwright() as playwright:
        browser = launch(playwright)
        version = browser.version
        for device, options in (("desktop", DESKTOP), ("phone", PHONE)):
            times: list[float] = []
            walls: list[float] = []
            for k in range(args.rounds + 1):  # the first load warms Chromium's own caches: not counted
                context = browser.new_context(**options)
                page = context.new_page()
                start = time.perf_counter()
                page.goto(f"{base}?game={'short' if k % 2 else 'long'}")
                page.wait_for_selector("#board[data-version]")
                wall = (time.perf_counter() - start) * 1000
                mark = page.evaluate(
                    "performance.getEntriesByName('nardy:first-board').map(e => e.startTime)[0]"
                )
                context.close()
                if k:
                    times.append(float(mark))
                    walls.append(wall)
            figures[device] = {
                "median": round(statistics.median(times), 1),
                "p90": round(p90(times), 1),
                "max": round(max(times), 1),
                "wall_median": round(statistics.median(walls), 1),
            }
            verdict = "under" if figures[device]["p90"] < FIRST_BOARD_GOAL_MS else "OVER"
            print(
                f"first board, {device:7}: median {figures[device]['median']:6.1f} ms, "
                f"p90 {figures[device]['p90']:6.1f} ms, max {figures[device]['max']:6.1f} ms "
                f"(the test's wall clock: median {figures[device]['wall_median']:.1f} ms; {verdict} the goal of "
                f"{FIRST_BOARD_GOAL_MS:.0f} ms) over {args.rounds} fresh contexts"
            )
        browser.close()
    ours.send("stop")
    serving.join(10)
    print(f"Chromium {version}, headless, stub server on 127.0.0.1 (a process of its own)")
    print(json.dumps({"bytes": total, "gzip_bytes": total_gzip, "first_board_ms": figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
