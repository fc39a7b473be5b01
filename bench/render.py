"""Benchmark of the board renderer: `python bench/render.py [--rounds N]`.

Prints the median time to render and encode a typical board (mid-game short nardy: dice, a last move
with a hit, a checker on the bar, names, a status line), the time to encode a blank image of the same
size and format in the same run, their ratio, and the image size in bytes. The renders cycle through a
few typical boards so that no whole-picture cache could help; renders and blank encodes alternate. The last line is one JSON object:
{"median_ms": ..., "blank_encode_ms": ..., "ratio": ..., "bytes": ...}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image

from render import layout, render_board
from render.board import IMAGE_FORMAT, JPEG_QUALITY, draw_board, encode
from render.gallery import samples
from render.view import BoardView


def typical_boards() -> list[BoardView]:
    """The typical board first, then a few more mid-game boards to cycle through."""
    gallery = samples()
    typical = gallery["03-short-hit-white-view"]
    return [
        typical,
        gallery["04-short-hit-black-view"],
        gallery["05-short-bear-off"],
        gallery["07-long-six-block"],
        replace(typical, status="Ход: Bob · 2 : 1", dice=(6, 6), dice_used=(6,)),
    ]


def median_ms(samples_s: list[float]) -> float:
    return statistics.median(samples_s) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400, help="renders timed (default 400)")
    parser.add_argument(
        "--games",
        type=int,
        default=200,
        help="games whose boards are drawn in turn in the second measure (default 200)",
    )
    args = parser.parse_args()

    boards = typical_boards()
    start = time.perf_counter()
    typical_bytes = render_board(boards[0])  # builds the background and sprite caches
    cold_ms = (time.perf_counter() - start) * 1000
    for view in boards * 10:
        render_board(view)

    # Renders and blank encodes alternate, so that both see the same load on the machine.
    blank = Image.new("RGB", layout.SIZE, (28, 37, 44))
    render_times: list[float] = []
    draw_times: list[float] = []
    blank_times: list[float] = []
    for i in range(args.rounds):
        view = boards[i % len(boards)]
        t0 = time.perf_counter()
        image = draw_board(view)
        t1 = time.perf_counter()
        encode(image)
        t2 = time.perf_counter()
        encode(blank)
        t3 = time.perf_counter()
        render_times.append(t2 - t0)
        draw_times.append(t1 - t0)
        blank_times.append(t3 - t2)

    # A bot serving many games at once draws each game's names and status line in turn: the text caches
    # must hold them all, or every board lays its text out again.
    many = [
        replace(
            boards[g % len(boards)],
            names=(f"Игрок {g}", f"Player {g + 1000}"),
            status=f"Player {g + 1000} to move: {1 + g % 6}-{1 + turn % 6}",
            pips=(100 + turn, 120 + g % 50),
        )
        for turn in range(3)
        for g in range(args.games)
    ]
    for view in many:
        draw_board(view)
    many_times: list[float] = []
    for i in range(max(args.rounds, 2 * len(many))):
        view = many[i % len(many)]
        t0 = time.perf_counter()
        draw_board(view)
        many_times.append(time.perf_counter() - t0)

    sizes = [len(render_board(view)) for view in boards]
    result = {
        "median_ms": round(median_ms(render_times), 3),
        "blank_encode_ms": round(median_ms(blank_times), 3),
        "ratio": round(median_ms(render_times) / median_ms(blank_times), 3),
        "bytes": len(typical_bytes),
        "many_games_draw_ms": round(median_ms(many_times), 3),
    }
    print(f"image: {layout.WIDTH}x{layout.HEIGHT} {IMAGE_FORMAT} quality {JPEG_QUALITY}")
    print(f"first render (builds the caches): {cold_ms:.1f} ms")
    print(
        f"render+encode median over {args.rounds} renders of {len(boards)} boards: {result['median_ms']:.3f} ms"
    )
    print(f"  of which drawing: {median_ms(draw_times):.3f} ms")
    print(
        f"drawing with {args.games} games' boards in turn (each its own names, three status lines): "
        f"{result['many_games_draw_ms']:.3f} ms"
    )
    print(f"blank encode median: {result['blank_encode_ms']:.3f} ms")
    print(f"ratio: {result['ratio']:.3f}")
    print(f"bytes: typical board {result['bytes']}, boards cycled {min(sizes)}..{max(sizes)}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
