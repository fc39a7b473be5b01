"""Board geometry: where every point, checker, die, tray and text line sits in the picture (pixels).

The viewer's own point r sits at layout slot r: slots 1..6 bottom right (1 at the far right), 7..12
bottom left (12 at the far left), 13..18 top left (13 at the far left), 19..24 top right (24 at the far
right). The bar strip parts the halves; the trays for borne-off checkers are at the right, the viewer's
below. The opponent's panel is above the board, the viewer's below it, the status line at the bottom.

Tests use `checker_center`, `bar_checker_center`, `tray_box` and `dice_boxes` to find places.
"""

from __future__ import annotations

from engine.sides import Side, from_absolute
from render.view import BoardView

Box = tuple[int, int, int, int]  # left, top, right, bottom (right/bottom exclusive)

CHECKER = 50  # checker diameter
RADIUS = CHECKER // 2
POINT_W = 54  # width of one point
STACK = 5  # checkers drawn on one point before a count label takes over
BAR_STACK = 4  # the same on the bar
FRAME = 16  # wooden frame at the sides
BAR_W = 52
TRAY_W = 66
HALF_W = 6 * POINT_W
TRI_LEN = STACK * CHECKER  # the length of a point (triangle)
GAP = 72  # the middle strip between the top and bottom points (dice)
PANEL_H = 56  # a player's line (name, colour, pips)
NUM_H = 26  # the frame strip above/below the field with the point numbers
STATUS_H = 46
DIE = 46
DIE_GAP = 10
SLAB_H = 15  # one borne-off checker seen from the side
SLAB_W = 48

X_LEFT = FRAME
X_BAR = X_LEFT + HALF_W
X_RIGHT = X_BAR + BAR_W
X_RIGHT_END = X_RIGHT + HALF_W
X_TRAY = X_RIGHT_END + FRAME
WIDTH = X_TRAY + TRAY_W + FRAME

Y_BOARD = PANEL_H
Y_FIELD = Y_BOARD + NUM_H
Y_GAP = Y_FIELD + TRI_LEN
Y_GAP_END = Y_GAP + GAP
Y_FIELD_END = Y_GAP_END + TRI_LEN
Y_BOARD_END = Y_FIELD_END + NUM_H
Y_STATUS = Y_BOARD_END + PANEL_H
HEIGHT = Y_STATUS + STATUS_H
SIZE = (WIDTH, HEIGHT)

# font sizes (pixels)
NAME_SIZE = 26
PIPS_SIZE = 26
PIPS_LABEL_SIZE = 20
STATUS_SIZE = 24
TRAY_SIZE = 20
NUMBER_SIZE = 16
STACK_SIZE = 22


def slot_of(game: str, viewer: Side, absolute: int) -> int:
    """The layout slot (the viewer's own number) of absolute point 1..24."""
    return from_absolute(game, viewer, absolute)


def is_top(slot: int) -> bool:
    return slot >= 13


def slot_x(slot: int) -> int:
    """The x of the middle of the point at layout slot 1..24."""
    if not 1 <= slot <= 24:
        raise ValueError(f"slot {slot} is not 1..24")
    if slot <= 6:
        left, column = X_RIGHT, 6 - slot
    elif slot <= 12:
        left, column = X_LEFT, 12 - slot
    elif slot <= 18:
        left, column = X_LEFT, slot - 13
    else:
        left, column = X_RIGHT, slot - 19
    return left + column * POINT_W + POINT_W // 2


def slot_checker_center(slot: int, index: int) -> tuple[int, int]:
    """Centre of the checker `index` (0 = at the edge) on layout slot `slot`; clamped to the drawn stack."""
    index = max(0, min(index, STACK - 1))
    x = slot_x(slot)
    if is_top(slot):
        return x, Y_FIELD + RADIUS + index * CHECKER
    return x, Y_FIELD_END - RADIUS - index * CHECKER


def checker_center(view: BoardView, absolute: int, index: int) -> tuple[int, int]:
    """Centre of the `index`-th checker (0 = at the board's edge) on absolute point 1..24 as `view` draws it.

    Stacks taller than STACK draw STACK checkers, the last one carrying the count: indexes beyond are
    clamped to it.
    """
    return slot_checker_center(slot_of(view.game, view.viewer, absolute), index)


def bar_checker_center(view: BoardView, side: Side, index: int) -> tuple[int, int]:
    """Centre of `side`'s `index`-th checker on the bar: the viewer's above the middle, the other's below."""
    index = max(0, min(index, BAR_STACK - 1))
    x = X_BAR + BAR_W // 2
    if side == view.viewer:
        return x, Y_GAP - RADIUS - 5 - index * CHECKER
    return x, Y_GAP_END + RADIUS + 5 + index * CHECKER


def tray_box_bottom() -> Box:
    return X_TRAY + 5, Y_GAP_END, X_TRAY + TRAY_W - 5, Y_FIELD_END


def tray_box_top() -> Box:
    return X_TRAY + 5, Y_FIELD, X_TRAY + TRAY_W - 5, Y_GAP


def tray_box(view: BoardView, side: Side) -> Box:
    """The tray of `side`'s borne-off checkers: the viewer's bottom right, the other's top right."""
    return tray_box_bottom() if side == view.viewer else tray_box_top()


def tray_count_center(view: BoardView, side: Side) -> tuple[int, int]:
    """Where the count of `side`'s borne-off checkers is printed (in the tray column, by the middle)."""
    x = X_TRAY + TRAY_W // 2
    if side == view.viewer:
        return x, Y_GAP + GAP * 3 // 4
    return x, Y_GAP + GAP // 4


def slab_box(view: BoardView, side: Side, index: int) -> Box:
    """The `index`-th borne-off checker (0 = at the edge) in `side`'s tray."""
    left, top, right, bottom = tray_box(view, side)
    x = (left + right - SLAB_W) // 2
    if side == view.viewer:
        y = bottom - 3 - (index + 1) * SLAB_H
    else:
        y = top + 3 + index * SLAB_H
    return x, y, x + SLAB_W, y + SLAB_H


def dice_boxes(view: BoardView) -> list[Box]:
    """Boxes of the dice of `view` (doubles as four) in the order drawn: the viewer's roll on the right."""
    count = len(view.dice)
    if count == 2 and view.dice[0] == view.dice[1]:
        count = 4
    return row_of_dice(count, view.to_move is None or view.to_move == view.viewer)


def row_of_dice(count: int, mover_is_viewer: bool) -> list[Box]:
    """Boxes of `count` dice in the middle strip: the right half for the viewer's roll, else the left."""
    total = count * DIE + max(0, count - 1) * DIE_GAP
    centre = X_RIGHT + HALF_W // 2 if mover_is_viewer else X_LEFT + HALF_W // 2
    left = centre - total // 2
    top = Y_GAP + (GAP - DIE) // 2
    return [
        (left + i * (DIE + DIE_GAP), top, left + i * (DIE + DIE_GAP) + DIE, top + DIE) for i in range(count)
    ]


def panel_box(view: BoardView, side: Side) -> Box:
    """The line with `side`'s name, colour and pips: the viewer's under the board, the other's above."""
    if side == view.viewer:
        return 0, Y_BOARD_END, WIDTH, Y_STATUS
    return 0, 0, WIDTH, Y_BOARD


def number_center(slot: int) -> tuple[int, int]:
    """Where the point number of layout slot `slot` is printed (in the frame, outside the field)."""
    if is_top(slot):
        return slot_x(slot), Y_BOARD + NUM_H // 2
    return slot_x(slot), Y_FIELD_END + NUM_H // 2


STATUS_BOX: Box = (0, Y_STATUS, WIDTH, HEIGHT)
