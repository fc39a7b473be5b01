"""Helpers for the renderer's tests: build views quickly, decode the image, read and classify pixels."""

from __future__ import annotations

import io
from collections import deque
from collections.abc import Callable

from PIL import Image

from engine.sides import Side, to_absolute
from render import BoardView, render_board

RGB = tuple[int, int, int]


def points_of(game: str, white: dict[int, int], black: dict[int, int]) -> tuple[int, ...]:
    """24 absolute counts from each side's checkers keyed by that side's OWN point numbers."""
    points = [0] * 24
    for side, own, sign in ((Side.WHITE, white, 1), (Side.BLACK, black, -1)):
        for point, count in own.items():
            points[to_absolute(game, side, point) - 1] = sign * count
    return tuple(points)


SHORT_START = points_of("short", {24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
LONG_START = points_of("long", {24: 15}, {24: 15})


def picture(view: BoardView) -> Image.Image:
    """What the bot would send, decoded (RGB)."""
    data = render_board(view)
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


def pixel(image: Image.Image, xy: tuple[int, int]) -> RGB:
    value = image.getpixel(xy)
    assert isinstance(value, tuple) and len(value) == 3, value
    return value[0], value[1], value[2]


def colour_at(image: Image.Image, xy: tuple[int, int], radius: int = 2) -> RGB:
    """The mean colour of the square of side 2*radius+1 around `xy` (smooths JPEG noise)."""
    x, y = xy
    pixels = [
        pixel(image, (x + dx, y + dy))
        for dx in range(-radius, radius + 1)
        for dy in range(-radius, radius + 1)
    ]
    n = len(pixels)
    return (sum(p[0] for p in pixels) // n, sum(p[1] for p in pixels) // n, sum(p[2] for p in pixels) // n)


def distance(a: RGB, b: RGB) -> float:
    return float(sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5)


def near(a: RGB, b: RGB, tolerance: float = 40) -> bool:
    return distance(a, b) <= tolerance


def luminance(rgb: RGB) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def blobs(image: Image.Image, box: tuple[int, int, int, int], is_ink: Callable[[RGB], bool]) -> int:
    """The number of 4-connected groups of pixels inside `box` for which `is_ink(rgb)` holds (3+ pixels)."""
    left, top, right, bottom = box
    ink = {(x, y) for x in range(left, right) for y in range(top, bottom) if is_ink(pixel(image, (x, y)))}
    groups = 0
    while ink:
        queue = deque([ink.pop()])
        size = 1
        while queue:
            x, y = queue.popleft()
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if n in ink:
                    ink.remove(n)
                    queue.append(n)
                    size += 1
        if size >= 3:
            groups += 1
    return groups


def count_pixels(
    image: Image.Image, centre: tuple[int, int], radius: int, is_ink: Callable[[RGB], bool]
) -> int:
    """Pixels within `radius` of `centre` for which `is_ink(rgb)` holds."""
    cx, cy = centre
    return sum(
        1
        for x in range(cx - radius, cx + radius + 1)
        for y in range(cy - radius, cy + radius + 1)
        if (x - cx) ** 2 + (y - cy) ** 2 <= radius * radius and is_ink(pixel(image, (x, y)))
    )
