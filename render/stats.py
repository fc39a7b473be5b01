"""A player's rating over time as a small line chart (PNG): one line per variant, dates along the bottom,
ratings up the side, in the board's colours (light or dark theme); with `seconds`, any two lines over a run's
seconds from its start (bench/metrics_chart.py draws the metrics' panels so). A pure function of its data: no
clock, no Redis, no Telegram. Text goes through render/text.py (the bundled font, cleaned, fitted)."""

from __future__ import annotations

import io
import time
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from render.text import clean_text, fit_text, text_mask, text_width
from render.theme import DEFAULT_THEME, RGB, mix, palette

WIDTH, HEIGHT = 720, 400
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 70, 24, 56, 64
TITLE_SIZE, LABEL_SIZE, TICK_SIZE = 20, 14, 13
LINE_COLOURS: tuple[RGB, ...] = ((242, 182, 50), (96, 176, 236))  # the first variant gold, the second blue
DAY = 24 * 3600.0


@dataclass(frozen=True)
class Series:
    """One line: a label (the variant's name) and its (unix time, rating) points, oldest first."""

    label: str
    points: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class ChartTexts:
    """The chart's words, translated by the caller."""

    title: str  # "Rating of Alice"
    x_label: str  # "date"
    y_label: str  # "rating"
    empty: str  # said in the middle when no series has a point


def _text(image: Image.Image, at: tuple[int, int], text: str, size: int, colour: RGB, width: int) -> int:
    """Draw one line of `text` (cleaned and fitted to `width`) with its top-left at `at`; its width."""
    fitted = fit_text(clean_text(text), size, width)
    if not fitted:
        return 0
    mask = text_mask(fitted, size)
    image.paste(colour, (at[0], at[1], at[0] + mask.width, at[1] + mask.height), mask)
    return mask.width


def ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round values between low and high for the rating axis (steps of 1, 2 or 5 times a power of ten)."""
    span = max(high - low, 1e-9)
    raw = span / count
    magnitude = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1.0
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = (low // step + 1) * step if low % step else low
    ticks = []
    value = first
    while value <= high + 1e-9:
        ticks.append(value)
        value += step
    return ticks


def rating_span(points: Sequence[tuple[float, float]]) -> tuple[float, float, float, float]:
    """What a rating chart of `points` (time, rating) spans: (first time, last time, lowest, highest). One day or
    less is widened to a day's width with the points in its middle; the ratings are padded by a tenth of their
    range, 10 at least; no points: a day around 1500. The Mini App's home draws its charts in this span."""
    if points:
        t_low, t_high = min(t for t, _ in points), max(t for t, _ in points)
        r_low, r_high = min(r for _, r in points), max(r for _, r in points)
    else:
        t_low, t_high, r_low, r_high = 0.0, DAY, 1490.0, 1510.0
    if t_high - t_low < DAY:
        middle = (t_low + t_high) / 2
        t_low, t_high = middle - DAY / 2, middle + DAY / 2
    pad = max((r_high - r_low) * 0.1, 10.0)
    return t_low, t_high, r_low - pad, r_high + pad


def _date(at: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(at))


LEGEND_SWATCH = 32  # a legend entry's swatch and gaps beside its label (pixels)
TITLE_GAP = 12  # between the title and the legend, which share the top line


def shortened(labels: Sequence[str], texts: ChartTexts, size: tuple[int, int] = (WIDTH, HEIGHT)) -> list[str]:
    """The chart's words that would be shortened (or crowd each other) where `rating_chart` puts them: the
    title beside the legend of `labels` (the series' names), the axis labels, the empty-chart line."""
    width, height = size
    across, up = width - MARGIN_RIGHT - MARGIN_LEFT, height - MARGIN_BOTTOM - MARGIN_TOP
    legend = sum(text_width(label, LABEL_SIZE) + 4 + LEGEND_SWATCH for label in labels)
    places = [
        (texts.title, TITLE_SIZE, across - legend - TITLE_GAP),
        (texts.x_label, LABEL_SIZE, across),
        (texts.y_label, LABEL_SIZE, up),
        (texts.empty, LABEL_SIZE, across),
    ]
    return [text for text, size_px, room in places if text_width(clean_text(text), size_px) > room]


def rating_chart(
    series: Sequence[Series],
    texts: ChartTexts,
    theme: str = DEFAULT_THEME,
    size: tuple[int, int] = (WIDTH, HEIGHT),
    seconds: bool = False,
) -> bytes:
    """The chart as PNG bytes. Every series is drawn (one with a single point as a dot); with no points at
    all, the axes and `texts.empty`. `seconds`: the points' times are seconds from a run's start (ticks
    "0 s", "10 s", ...) and the values' axis starts at 0, instead of dates and ratings."""
    colours = palette(theme)
    width, height = size
    image = Image.new("RGB", size, colours.background)
    draw = ImageDraw.Draw(image)
    left, right, top, bottom = MARGIN_LEFT, width - MARGIN_RIGHT, MARGIN_TOP, height - MARGIN_BOTTOM
    grid = mix(colours.background, colours.text_dim, 0.25)
    axis = mix(colours.background, colours.text_dim, 0.7)

    _text(image, (left, 12), texts.title, TITLE_SIZE, colours.text, right - left)
    points = [pt for s in series for pt in s.points]
    if points:
        t_low, t_high = min(t for t, _ in points), max(t for t, _ in points)
        r_low, r_high = min(r for _, r in points), max(r for _, r in points)
    else:
        t_low, t_high, r_low, r_high = 0.0, DAY, 1490.0, 1510.0
    date_ticks = [t_low, (t_low + t_high) / 2, t_high] if points else []
    if seconds:
        t_high = max(t_high, t_low + 1.0)
        date_ticks = ticks(t_low, t_high) if points else []
        r_low, r_high = 0.0, max(r_high * 1.1, 1.0)
    else:
        if points and t_high - t_low < DAY:  # one date, in the middle of the day rating_span widens to
            date_ticks = [(t_low + t_high) / 2]
        t_low, t_high, r_low, r_high = rating_span(points)

    def x_of(t: float) -> int:
        return round(left + (t - t_low) / (t_high - t_low) * (right - left))

    def y_of(r: float) -> int:
        return round(bottom - (r - r_low) / (r_high - r_low) * (bottom - top))

    for value in ticks(r_low, r_high):
        y = y_of(value)
        draw.line([(left, y), (right, y)], fill=grid, width=1)
        label = f"{value:.0f}" if not seconds or value >= 10 or value == 0 else f"{value:.1f}"
        _text(
            image,
            (left - 8 - text_width(label, TICK_SIZE) - 4, y - TICK_SIZE // 2 - 3),
            label,
            TICK_SIZE,
            colours.text_dim,
            left,
        )
    draw.line([(left, top), (left, bottom), (right, bottom)], fill=axis, width=2)
    for t in date_ticks:
        x = x_of(t)
        draw.line([(x, bottom), (x, bottom + 5)], fill=axis, width=2)
        label = f"{t:.0f} s" if seconds else _date(t)
        half = text_width(label, TICK_SIZE) // 2
        _text(
            image,
            (min(max(x - half - 2, 0), width - 2 * half - 6), bottom + 8),
            label,
            TICK_SIZE,
            colours.text_dim,
            width,
        )
    x_label_width = text_width(texts.x_label, LABEL_SIZE)
    _text(
        image,
        ((left + right - x_label_width) // 2, height - 26),
        texts.x_label,
        LABEL_SIZE,
        colours.text_dim,
        right - left,
    )
    y_words = fit_text(clean_text(texts.y_label), LABEL_SIZE, bottom - top)
    if y_words:
        mask = text_mask(y_words, LABEL_SIZE)
        upright = Image.new("RGB", mask.size, colours.background)
        upright.paste(colours.text_dim, (0, 0, mask.width, mask.height), mask)
        rotated = upright.rotate(90, expand=True)
        image.paste(rotated, (4, (top + bottom - rotated.height) // 2))

    legend_x = right
    for index, one in reversed(list(enumerate(series))):
        colour = LINE_COLOURS[index % len(LINE_COLOURS)]
        xy = [(x_of(t), y_of(r)) for t, r in one.points]
        if len(xy) > 1:
            draw.line(xy, fill=colour, width=3, joint="curve")
        for x, y in xy[-1:] if len(xy) > 1 else xy:
            draw.ellipse([(x - 4, y - 4), (x + 4, y + 4)], fill=colour)
        label_width = text_width(one.label, LABEL_SIZE) + 4
        legend_x -= label_width
        _text(image, (legend_x, top - 24), one.label, LABEL_SIZE, colour, label_width)
        legend_x -= 20
        draw.rectangle([(legend_x + 4, top - 16), (legend_x + 14, top - 8)], fill=colour)
        legend_x -= LEGEND_SWATCH - 20
    if not points:
        empty_width = min(text_width(texts.empty, LABEL_SIZE), right - left)
        _text(
            image,
            ((left + right - empty_width) // 2, (top + bottom) // 2 - LABEL_SIZE),
            texts.empty,
            LABEL_SIZE,
            colours.text,
            right - left,
        )

    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
