"""Board pictures for nardy: `render_board(view) -> bytes`, a pure function of a `BoardView`.

    from render import BoardView, MoveMark, render_board, MIME_TYPE
    photo = render_board(BoardView(game="short", points=..., viewer=Side.BLACK, dice=(6, 1)))

`render.layout` tells where things are drawn (tests read pixels there); `python -m render.gallery DIR`
writes sample boards. Tournaments have their own pictures: `render.bracket` (a knockout's bracket) and
`render.podium` (an arena's final standings), pure functions of plain values defined there.
"""

from engine.sides import Side
from render.board import FILE_EXTENSION, IMAGE_FORMAT, MIME_TYPE, draw_board, render_board
from render.view import BoardView, MoveMark, RenderError, check_view

__all__ = [
    "FILE_EXTENSION",
    "IMAGE_FORMAT",
    "MIME_TYPE",
    "BoardView",
    "MoveMark",
    "RenderError",
    "Side",
    "check_view",
    "draw_board",
    "render_board",
]
