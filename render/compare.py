"""Two boards side by side in one picture: a play made and the better play, each with its moves drawn
(the post-game analysis's worst play). Pure: views in, JPEG bytes out."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from render import layout as L
from render.board import draw_board
from render.text import font
from render.view import BoardView

SCALE = 0.6  # of each board picture
GAP = 12  # pixels between the two boards
LABEL_HEIGHT = 34  # the strip above each board that names it
LABEL_SIZE = 20
LABEL_X = 8  # the label's indent (and the room kept free at its right)


def label_room() -> int:
    """The width a board's label may take (pixels): its board's, less an indent on each side."""
    return round(L.WIDTH * SCALE) - 2 * LABEL_X


BACKGROUND = (245, 240, 230)
INK = (40, 30, 20)


def render_comparison(left: BoardView, right: BoardView, labels: tuple[str, str]) -> bytes:
    """`left` and `right` drawn side by side, each under its label; a JPEG."""
    width, height = round(L.WIDTH * SCALE), round(L.HEIGHT * SCALE)
    out = Image.new("RGB", (2 * width + GAP, height + LABEL_HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(out)
    text_font = font(LABEL_SIZE)
    for i, (view, label) in enumerate(zip((left, right), labels, strict=True)):
        board = draw_board(view).resize((width, height), Image.Resampling.LANCZOS)
        x = i * (width + GAP)
        out.paste(board, (x, LABEL_HEIGHT))
        draw.text((x + LABEL_X, 6), label, fill=INK, font=text_font)
    buf = io.BytesIO()
    out.save(buf, format="JPEG", quality=85)
    return buf.getvalue()
