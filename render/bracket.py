"""A knockout's bracket as a picture (PNG): a column a round, each match a box of two lines (seed, name,
score), the winner of each match in bold, lines from each match to the one its winner plays next, and the
champion's way to the title in gold. Light and dark themes (render/theme.py).

A pure function of plain values defined here (render/ knows nothing of the bot: bot/views/tournament.py
turns a knockout into a `BracketPicture`). Names go through render/text.py: cleaned of control characters,
drawn with the bundled font's coverage (Armenian, Georgian, Cyrillic; Persian shaped right to left where
Pillow has libraqm), shortened with an ellipsis to the room they have.

Fitting a phone: the picture is 1080 pixels wide whatever the size of the bracket, the rounds sharing the
width; the boxes' rows get lower as the first round grows. Up to 32 players it fits a Telegram photo
(`fits_a_photo`: at most 1280 pixels high); for 64 players the text is still 16 pixels high on a picture
about 1080 x 2300, which the caller sends as a document (a photo would be shrunk to 1280 pixels high).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageDraw

from render.text import clean_text, fit_text, text_mask, text_width
from render.theme import DEFAULT_THEME, RGB, Palette, mix, palette

WIDTH = 1080
MARGIN = 24
GAP = 26  # between two rounds' columns: the connecting lines
TITLE_SIZE = 34
HEADER_SIZE = 20  # the round names, the champion line
PHOTO_SIDE = 1280  # Telegram shrinks a photo whose longest side is longer


class BracketError(ValueError):
    """A bracket picture that cannot be drawn: rounds that do not halve, no round at all."""


@dataclass(frozen=True)
class Entrant:
    """One side of a match box: a name ("" while not known yet), a seed, points in the match."""

    name: str = ""
    seed: int | None = None
    score: int | None = None
    won: bool = False


@dataclass(frozen=True)
class Bout:
    """One match of the bracket. `bye`: one side is nobody, the other goes through; `walkover`: won because
    the opponent never moved; `on_path`: a match the champion won on the way to the title."""

    top: Entrant = Entrant()
    bottom: Entrant = Entrant()
    bye: bool = False
    walkover: bool = False
    on_path: bool = False


@dataclass(frozen=True)
class BracketTexts:
    """The picture's words, translated by the caller."""

    title: str  # "Friday knockout"
    rounds: tuple[str, ...]  # one a round: "Round of 16", "Quarter-finals", "Semi-finals", "Final"
    champion: str = ""  # "Champion: Alice" when there is one
    bye: str = "bye"
    walkover: str = "w/o"


@dataclass(frozen=True)
class BracketPicture:
    """The rounds of matches, the first round first; each round half as many matches as the one before."""

    rounds: tuple[tuple[Bout, ...], ...]
    texts: BracketTexts


@dataclass(frozen=True)
class Geometry:
    """Where the bracket's boxes go (tests read pixels at these places)."""

    size: tuple[int, int]
    column: int  # a column's width
    row: int  # one entrant's line in a box
    font: int  # the names' size
    top: int  # the first box's top
    pitch: int  # from one first-round box's top to the next one's

    def box(self, round_: int, index: int) -> tuple[int, int, int, int]:
        """(left, top, right, bottom) of match `index` of round `round_` (0: the first)."""
        left = MARGIN + round_ * (self.column + GAP)
        first = 2**round_ * index  # the first first-round match feeding it
        centre = self.top + first * self.pitch + (2**round_ * self.pitch - (self.pitch - 2 * self.row)) / 2
        top = round(centre - self.row)
        return left, top, left + self.column, top + 2 * self.row


def geometry(picture: BracketPicture) -> Geometry:
    rounds = picture.rounds
    if not rounds:
        raise BracketError("a bracket picture needs a round")
    for r in range(1, len(rounds)):
        if len(rounds[r]) * 2 != len(rounds[r - 1]):
            raise BracketError(f"round {r} has {len(rounds[r])} matches after {len(rounds[r - 1])}")
    first = len(rounds[0])
    row, size = (36, 21) if first <= 4 else (34, 20) if first <= 8 else (27, 17) if first <= 16 else (27, 16)
    pitch = 2 * row + row // 2
    column = (WIDTH - 2 * MARGIN - (len(rounds) - 1) * GAP) // len(rounds)
    top = MARGIN + TITLE_SIZE + 14 + (HEADER_SIZE + 12 if picture.texts.champion else 0) + HEADER_SIZE + 16
    height = top + first * pitch - row // 2 + MARGIN
    return Geometry((WIDTH, height), column, row, size, top, pitch)


def fits_a_photo(picture: BracketPicture) -> bool:
    """Whether Telegram shows the picture as a photo without shrinking it (its longest side at most
    PHOTO_SIDE): up to 32 players. A larger bracket (64 players) is best sent as a document."""
    return max(geometry(picture).size) <= PHOTO_SIDE


def _paste(
    image: Image.Image, at: tuple[int, int], text: str, size: int, colour: RGB, bold: bool = False
) -> None:
    if text:
        mask = text_mask(text, size, bold)
        image.paste(colour, (at[0], at[1], at[0] + mask.width, at[1] + mask.height), mask)


def _line_top(size: int, row_top: int, row: int) -> int:
    """The top of a text mask of `size` so that its letters sit in the middle of a row."""
    return row_top + (row - size) // 2 - round(size * 0.22)


def _entrant(
    image: Image.Image,
    box: tuple[int, int, int, int],
    row_top: int,
    entrant: Entrant,
    bout: Bout,
    texts: BracketTexts,
    colours: Palette,
    g: Geometry,
) -> None:
    left, _, right, _ = box
    size = g.font
    seed_room = text_width("64", size - 3) + 10
    decided = any(e.won for e in (bout.top, bout.bottom))
    gold = bout.on_path and entrant.won
    colour = colours.text_gold if gold else colours.text if entrant.won or not decided else colours.text_dim
    if entrant.seed is not None:
        _paste(
            image,
            (left + 6, _line_top(size - 3, row_top, g.row) + 1),
            str(entrant.seed),
            size - 3,
            colours.text_dim,
        )
    if entrant.score is not None and not bout.walkover:
        score = str(entrant.score)
    elif bout.walkover and entrant.won:
        score = fit_text(clean_text(texts.walkover), size, (right - left) // 3, bold=True)
    else:
        score = ""
    score_width = text_width(score, size, bold=entrant.won) if score else 0
    if score:
        _paste(
            image,
            (right - 8 - score_width, _line_top(size, row_top, g.row)),
            score,
            size,
            colour,
            entrant.won,
        )
    room = right - left - seed_room - 12 - (score_width + 8 if score else 0)
    if entrant.name:
        name = fit_text(clean_text(entrant.name, entrant.won), size, room, bold=entrant.won)
        _paste(image, (left + seed_room, _line_top(size, row_top, g.row)), name, size, colour, entrant.won)
    else:
        word = fit_text(clean_text(texts.bye), size, room) if bout.bye else "–"
        _paste(image, (left + seed_room, _line_top(size, row_top, g.row)), word, size, colours.text_dim)


def draw_bracket(picture: BracketPicture, theme: str = DEFAULT_THEME) -> Image.Image:
    """The bracket drawn (RGB)."""
    g = geometry(picture)
    colours = palette(theme)
    image = Image.new("RGB", g.size, colours.background)
    draw = ImageDraw.Draw(image)
    texts = picture.texts
    width = g.size[0]

    title = fit_text(clean_text(texts.title, bold=True), TITLE_SIZE, width - 2 * MARGIN, bold=True)
    _paste(image, (MARGIN, MARGIN - 6), title, TITLE_SIZE, colours.text, bold=True)
    y = MARGIN + TITLE_SIZE + 14
    if texts.champion:
        champion = fit_text(
            clean_text(texts.champion, bold=True), HEADER_SIZE + 2, width - 2 * MARGIN, bold=True
        )
        _paste(image, (MARGIN, y - 4), champion, HEADER_SIZE + 2, colours.text_gold, bold=True)
        y += HEADER_SIZE + 12
    for r in range(len(picture.rounds)):
        name = texts.rounds[r] if r < len(texts.rounds) else ""
        left = MARGIN + r * (g.column + GAP)
        fitted = fit_text(clean_text(name), HEADER_SIZE, g.column)
        _paste(image, (left, y - 4), fitted, HEADER_SIZE, colours.text_dim)

    box_fill = mix(colours.background, colours.panel_turn, 0.85)
    bye_fill = mix(colours.background, colours.panel_turn, 0.35)
    line = mix(colours.background, colours.text_dim, 0.45)
    for r, bouts in enumerate(picture.rounds):
        for i, bout in enumerate(bouts):
            box = g.box(r, i)
            left, top, right, bottom = box
            if r + 1 < len(picture.rounds):  # the line to the next round's match
                parent = g.box(r + 1, i // 2)
                middle = right + GAP // 2
                centre, target = (top + bottom) // 2, (parent[1] + parent[3]) // 2
                both = bout.on_path and picture.rounds[r + 1][i // 2].on_path
                colour = colours.turn_accent if both else line
                thick = 3 if both else 2
                draw.line(
                    [(right, centre), (middle, centre), (middle, target), (parent[0], target)],
                    fill=colour,
                    width=thick,
                )
            draw.rounded_rectangle(box, radius=6, fill=bye_fill if bout.bye else box_fill)
            winner_row = 0 if bout.top.won else 1 if bout.bottom.won else None
            if winner_row is not None:
                row_box = (left, top + winner_row * g.row, right, top + (winner_row + 1) * g.row)
                strong = colours.panel_winner if bout.on_path else mix(box_fill, colours.text, 0.08)
                draw.rounded_rectangle(row_box, radius=6, fill=strong)
            draw.line(
                [(left + 6, top + g.row), (right - 6, top + g.row)],
                fill=mix(box_fill, colours.background, 0.6),
            )
            if bout.on_path:
                draw.rounded_rectangle(box, radius=6, outline=colours.turn_accent, width=3)
            for k, entrant in enumerate((bout.top, bout.bottom)):
                _entrant(image, box, top + k * g.row, entrant, bout, texts, colours, g)
    return image


def render_bracket(picture: BracketPicture, theme: str = DEFAULT_THEME) -> bytes:
    """The bracket as PNG bytes."""
    out = io.BytesIO()
    draw_bracket(picture, theme).save(out, format="PNG", optimize=True)
    return out.getvalue()


def round_names(rounds: int, final: str, semi: str, quarter: str, earlier: str) -> tuple[str, ...]:
    """Names for `rounds` rounds: the last three by the words given, the earlier by `earlier` formatted
    with the players the round starts with ("Round of {players}")."""
    names: list[str] = []
    for r in range(rounds):
        left = rounds - r
        names.append(
            final
            if left == 1
            else semi
            if left == 2
            else quarter
            if left == 3
            else earlier.format(players=2**left)
        )
    return tuple(names)
