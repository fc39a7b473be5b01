"""The rating chart (render/stats.py): a valid PNG for no points, one point and many, in both themes."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from render.stats import HEIGHT, WIDTH, ChartTexts, Series, rating_chart
from render.theme import THEMES, palette

TEXTS = ChartTexts("Rating of Alice", "date", "rating", "No rated matches yet")
DAY = 86400.0


def opened(png: bytes) -> Image.Image:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGB")


def colours_of(image: Image.Image) -> set[object]:
    return {c for _, c in image.getcolors(WIDTH * HEIGHT) or []}


@pytest.mark.parametrize("theme", THEMES)
def test_a_chart_without_points_is_the_empty_axes_in_the_themes_background(theme: str) -> None:
    image = opened(rating_chart([], TEXTS, theme))
    assert image.size == (WIDTH, HEIGHT)
    assert image.getpixel((2, 2)) == palette(theme).background


def test_a_single_point_is_drawn_as_a_dot() -> None:
    image = opened(rating_chart([Series("Short", ((1_700_000_000.0, 1510.0),))], TEXTS))
    assert (242, 182, 50) in colours_of(image)


def test_many_points_in_both_variants_draw_two_lines() -> None:
    short = Series(
        "Short nardy", tuple((1_700_000_000 + i * DAY, 1500 + 7 * i - (i % 3) * 9) for i in range(100))
    )
    long = Series("Long nardy", tuple((1_700_000_000 + i * 3 * DAY, 1500 - 4 * i) for i in range(30)))
    image = opened(rating_chart([short, long], TEXTS, "dark", size=(640, 360)))
    assert image.size == (640, 360)
    assert {(242, 182, 50), (96, 176, 236)} <= colours_of(image)


def test_strange_text_and_equal_ratings_still_draw() -> None:
    texts = ChartTexts("\u202e" + "Я" * 500 + "\x00", "", "рейтинг", "")
    same = Series("Короткие", tuple((1_700_000_000.0 + i, 1500.0) for i in range(5)))
    assert opened(rating_chart([same], texts)).size == (WIDTH, HEIGHT)


def test_a_run_in_seconds_draws_its_lines_from_zero() -> None:
    p50 = Series("p50", tuple((float(t), 5.0 + (t % 4)) for t in range(5, 60)))
    p99 = Series("p99", tuple((float(t), 20.0 + (t % 7)) for t in range(5, 60)))
    texts = ChartTexts("Press to answer", "time into the run", "milliseconds", "no data")
    image = opened(rating_chart([p50, p99], texts, seconds=True))
    assert image.size == (WIDTH, HEIGHT)
    assert {(242, 182, 50), (96, 176, 236)} <= colours_of(image)
