"""An arena's final picture (PNG): the podium of the first three (the winner in the middle, highest) with
their names and points, and the next places in a list below. Light and dark themes (render/theme.py).

A pure function of plain values defined here (bot/views/tournament.py makes them from an arena). Names go
through render/text.py: cleaned of control characters, the bundled font's coverage, shortened with an
ellipsis to the room they have. 1080 pixels wide, about as high: it fits a phone as a photo.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageDraw

from render.text import clean_text, fit_text, text_mask, text_width
from render.theme import DEFAULT_THEME, RGB, mix, palette

WIDTH = 1080
MARGIN = 36
TITLE_SIZE = 38
SUBTITLE_SIZE = 22
NAME_SIZE = 28
POINTS_SIZE = 22
PLACE_SIZE = 64  # the big 1, 2, 3 on the steps
ROW_SIZE = 24  # the list below the podium
ROW = 50
STEP_WIDTH = 300
STEP_HEIGHTS = (250, 190, 140)  # the first, second and third places' steps
PODIUM_TOP = 150  # below the title and the subtitle
PODIUM_BOTTOM = PODIUM_TOP + 130 + STEP_HEIGHTS[0]  # the steps' foot: room for names and points above
MEDALS: tuple[RGB, RGB, RGB] = ((232, 186, 60), (184, 190, 200), (196, 124, 64))  # gold, silver, bronze


@dataclass(frozen=True)
class Placed:
    """One place of the final standings."""

    rank: int  # 1: the winner
    name: str
    points: int
    games: int = 0


@dataclass(frozen=True)
class PodiumTexts:
    """The picture's words, translated by the caller."""

    title: str  # "Friday arena"
    subtitle: str = ""  # "30 minutes · 24 players · 118 games"
    points: str = "{points} pts"  # formatted with the points
    games: str = "{games} games"  # formatted with the games, in the list below the podium


@dataclass(frozen=True)
class PodiumPicture:
    places: tuple[Placed, ...]  # best first; the first three stand on the podium
    texts: PodiumTexts


def step_box(place: int) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of the step of `place` (1, 2 or 3): the first in the middle, the second
    on its left, the third on its right (tests read pixels here)."""
    centre = WIDTH // 2 + (0, -1, 1)[place - 1] * (STEP_WIDTH + 12)
    left = centre - STEP_WIDTH // 2
    return left, PODIUM_BOTTOM - STEP_HEIGHTS[place - 1], left + STEP_WIDTH, PODIUM_BOTTOM


def row_top(index: int) -> int:
    """The top of the list's line `index` (0: the fourth place)."""
    return PODIUM_BOTTOM + 30 + index * ROW


def _paste(
    image: Image.Image, at: tuple[int, int], text: str, size: int, colour: RGB, bold: bool = False
) -> int:
    if not text:
        return 0
    mask = text_mask(text, size, bold)
    image.paste(colour, (at[0], at[1], at[0] + mask.width, at[1] + mask.height), mask)
    return mask.width


def _centred(
    image: Image.Image, centre: int, top: int, text: str, size: int, colour: RGB, room: int, bold: bool
) -> None:
    fitted = fit_text(clean_text(text, bold), size, room, bold)
    _paste(image, (centre - text_width(fitted, size, bold) // 2 - 2, top), fitted, size, colour, bold)


def size_of(picture: PodiumPicture) -> tuple[int, int]:
    rest = max(0, len(picture.places) - 3)
    return WIDTH, (row_top(rest) if rest else PODIUM_BOTTOM) + MARGIN


def draw_podium(picture: PodiumPicture, theme: str = DEFAULT_THEME) -> Image.Image:
    """The podium drawn (RGB)."""
    colours = palette(theme)
    size = size_of(picture)
    image = Image.new("RGB", size, colours.background)
    draw = ImageDraw.Draw(image)
    texts = picture.texts
    _centred(image, WIDTH // 2, MARGIN - 8, texts.title, TITLE_SIZE, colours.text, WIDTH - 2 * MARGIN, True)
    if texts.subtitle:
        top = MARGIN + TITLE_SIZE + 10
        _centred(
            image, WIDTH // 2, top, texts.subtitle, SUBTITLE_SIZE, colours.text_dim, WIDTH - 2 * MARGIN, False
        )

    for index, placed in enumerate(picture.places[:3]):
        place = index + 1
        left, top, right, bottom = step_box(place)
        medal = mix(MEDALS[index], colours.background, 0.15)
        step = mix(colours.panel_turn, medal, 0.22)
        draw.rounded_rectangle(
            (left, top, right, bottom), radius=14, fill=step, corners=(True, True, False, False)
        )
        draw.rounded_rectangle(
            (left, top, right, top + 10), radius=5, fill=medal, corners=(True, True, False, False)
        )
        number = str(placed.rank)
        _paste(
            image,
            ((left + right - text_width(number, PLACE_SIZE, True)) // 2 - 2, top + 26),
            number,
            PLACE_SIZE,
            medal,
            True,
        )
        centre = (left + right) // 2
        points = texts.points.format(points=placed.points)
        _centred(
            image, centre, top - POINTS_SIZE - 22, points, POINTS_SIZE, colours.text_dim, STEP_WIDTH, False
        )
        name_colour = colours.text_gold if place == 1 else colours.text
        _centred(
            image,
            centre,
            top - POINTS_SIZE - NAME_SIZE - 36,
            placed.name,
            NAME_SIZE,
            name_colour,
            STEP_WIDTH - 8,
            True,
        )
    draw.rectangle(
        (0, PODIUM_BOTTOM, WIDTH, PODIUM_BOTTOM + 4), fill=mix(colours.background, colours.text_dim, 0.35)
    )

    rest = picture.places[3:]
    points_room = max(
        (text_width(texts.points.format(points=p.points), ROW_SIZE, True) for p in rest), default=0
    )
    games_right = WIDTH - MARGIN - 20 - points_room - 36
    for index, placed in enumerate(rest):
        top = row_top(index)
        if index % 2 == 0:
            draw.rounded_rectangle(
                (MARGIN, top, WIDTH - MARGIN, top + ROW - 4),
                radius=8,
                fill=mix(colours.background, colours.panel_turn, 0.6),
            )
        text_top = top + (ROW - 4 - ROW_SIZE) // 2 - 6
        rank = str(placed.rank)
        _paste(
            image,
            (MARGIN + 60 - text_width(rank, ROW_SIZE, True), text_top),
            rank,
            ROW_SIZE,
            colours.text_dim,
            True,
        )
        points = texts.points.format(points=placed.points)
        points_width = text_width(points, ROW_SIZE, True)
        _paste(image, (WIDTH - MARGIN - 20 - points_width, text_top), points, ROW_SIZE, colours.text, True)
        games = texts.games.format(games=placed.games) if placed.games else ""
        games_width = text_width(games, ROW_SIZE - 4) if games else 0
        games_left = games_right - games_width
        _paste(image, (games_left, text_top + 2), games, ROW_SIZE - 4, colours.text_dim)
        room = games_left - (MARGIN + 84) - 20
        name = fit_text(clean_text(placed.name), ROW_SIZE, room)
        _paste(image, (MARGIN + 84, text_top), name, ROW_SIZE, colours.text)
    return image


def render_podium(picture: PodiumPicture, theme: str = DEFAULT_THEME) -> bytes:
    """The podium as PNG bytes."""
    out = io.BytesIO()
    draw_podium(picture, theme).save(out, format="PNG", optimize=True)
    return out.getvalue()
