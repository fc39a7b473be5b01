"""A training run's learning curve: its points (games trained, points per game with a 95 % half-width
against a frozen opponent) and the PNG that draws them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CurvePoint:
    """One evaluation: games trained, points per game against the opponent and the 95 % half-width."""

    games: int
    ppg: float
    half: float


def draw_curve(curve: Sequence[CurvePoint], path: str | Path, title: str) -> None:
    """The learning curve (points per game with 95 % bars against games trained) as a PNG."""
    from PIL import Image, ImageDraw

    width, height, left, right, top, bottom = 800, 480, 70, 20, 40, 50
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((left, 12), title, fill="black")
    max_games = max([p.games for p in curve] + [1])
    lows = [p.ppg - p.half for p in curve] + [-1.0]
    highs = [p.ppg + p.half for p in curve] + [1.0]
    y_min, y_max = math.floor(min(lows) * 2) / 2, math.ceil(max(highs) * 2) / 2

    def xy(games: float, ppg: float) -> tuple[float, float]:
        x = left + (width - left - right) * games / max_games
        y = top + (height - top - bottom) * (y_max - ppg) / (y_max - y_min)
        return x, y

    draw.rectangle([left, top, width - right, height - bottom], outline="black")
    tick = y_min
    while tick <= y_max + 1e-9:
        _, y = xy(0, tick)
        draw.line([left, y, width - right, y], fill=(200, 200, 200) if tick else (120, 120, 120))
        draw.text((8, y - 6), f"{tick:+.1f}", fill="black")
        tick += 0.5
    for i in range(5):
        games = max_games * i / 4
        x, _ = xy(games, y_min)
        draw.text((x - 15, height - bottom + 8), f"{games:,.0f}", fill="black")
    draw.text((width // 2 - 60, height - 20), "self-play games trained", fill="black")
    points = [xy(p.games, p.ppg) for p in curve]
    for p, (x, _) in zip(curve, points):
        _, y_low = xy(p.games, p.ppg - p.half)
        _, y_high = xy(p.games, p.ppg + p.half)
        draw.line([x, y_low, x, y_high], fill=(150, 150, 230))
    if len(points) > 1:
        draw.line(points, fill=(20, 20, 180), width=2)
    for x, y in points:
        draw.ellipse([x - 3, y - 3, x + 3, y + 3], fill=(20, 20, 180))
    image.save(path)
