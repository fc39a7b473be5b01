"""The board picture read back pixel by pixel: checkers, orientation, stacks, bar, trays, dice, marks, panels."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from PIL import Image
from render_pixels import (
    LONG_START,
    SHORT_START,
    blobs,
    colour_at,
    count_pixels,
    luminance,
    near,
    picture,
    points_of,
)

from engine.sides import Side
from render import IMAGE_FORMAT, MIME_TYPE, BoardView, MoveMark, layout, render_board
from render import theme as T


def is_white(rgb: tuple[int, int, int]) -> bool:
    return near(rgb, T.WHITE_FACE)


def is_black(rgb: tuple[int, int, int]) -> bool:
    return near(rgb, T.BLACK_FACE)


def test_render_board_returns_jpeg_bytes_of_the_layout_size() -> None:
    data = render_board(BoardView(game="short", points=SHORT_START))
    assert IMAGE_FORMAT == "JPEG" and MIME_TYPE == "image/jpeg"
    assert data[:3] == b"\xff\xd8\xff"
    image = Image.open(io.BytesIO(data))
    assert image.format == "JPEG"
    assert image.size == layout.SIZE


def test_render_board_is_deterministic() -> None:
    view = BoardView(game="long", points=LONG_START, dice=(6, 5), to_move=Side.BLACK, status="x")
    assert render_board(view) == render_board(view)


def test_short_start_puts_each_colour_on_its_points() -> None:
    view = BoardView(game="short", points=SHORT_START)
    image = picture(view)
    for absolute, count, check in (
        (6, 5, is_white),
        (8, 3, is_white),
        (13, 5, is_white),
        (24, 2, is_white),
        (1, 2, is_black),
        (12, 5, is_black),
        (17, 3, is_black),
        (19, 5, is_black),
    ):
        for index in range(count):
            rgb = colour_at(image, layout.checker_center(view, absolute, index))
            assert check(rgb), f"A{absolute} checker {index}: {rgb}"
        if count < layout.STACK:  # the next place on the point is empty (point or field colour)
            rgb = colour_at(image, layout.checker_center(view, absolute, count))
            assert not is_white(rgb) and not is_black(rgb), f"A{absolute} above the stack: {rgb}"
    empty = colour_at(image, layout.checker_center(view, 3, 0))
    assert not is_white(empty) and not is_black(empty)


@pytest.mark.parametrize("viewer", [Side.WHITE, Side.BLACK])
def test_viewer_home_is_bottom_right_in_short_nardy(viewer: Side) -> None:
    view = BoardView(game="short", points=SHORT_START, viewer=viewer)
    image = picture(view)
    own = is_white if viewer == Side.WHITE else is_black
    other = is_black if viewer == Side.WHITE else is_white
    # Found by plain geometry, not through the view: the far right bottom point is the viewer's 1 point,
    # held by two of the opponent's checkers at the start; five of the viewer's own sit on the sixth point.
    right_edge = layout.X_RIGHT_END - layout.POINT_W // 2
    bottom = layout.Y_FIELD_END - layout.RADIUS
    assert right_edge > layout.WIDTH * 0.7 and bottom > layout.HEIGHT * 0.6
    assert other(colour_at(image, (right_edge, bottom)))
    assert other(colour_at(image, (right_edge, bottom - layout.CHECKER)))
    sixth = layout.X_RIGHT + layout.POINT_W // 2
    for index in range(5):
        assert own(colour_at(image, (sixth, bottom - index * layout.CHECKER)))
    # the viewer's 24 point (top right corner) holds the viewer's own two back checkers
    top = layout.Y_FIELD + layout.RADIUS
    assert own(colour_at(image, (right_edge, top)))
    assert own(colour_at(image, (right_edge, top + layout.CHECKER)))


@pytest.mark.parametrize("viewer", [Side.WHITE, Side.BLACK])
def test_long_nardy_heads_sit_top_right_for_the_viewer_and_bottom_left_for_the_other(viewer: Side) -> None:
    view = BoardView(game="long", points=LONG_START, viewer=viewer)
    image = picture(view)
    own = is_white if viewer == Side.WHITE else is_black
    other = is_black if viewer == Side.WHITE else is_white
    right = layout.X_RIGHT_END - layout.POINT_W // 2
    left = layout.X_LEFT + layout.POINT_W // 2
    for index in range(layout.STACK):
        assert own(colour_at(image, (right, layout.Y_FIELD + layout.RADIUS + index * layout.CHECKER)))
        assert other(colour_at(image, (left, layout.Y_FIELD_END - layout.RADIUS - index * layout.CHECKER)))
    assert layout.slot_of("long", viewer, 24 if viewer == Side.WHITE else 12) == 24


def test_long_nardy_both_sides_move_counter_clockwise_in_the_viewers_numbering() -> None:
    # Each side has one checker on its own 18 point, six pips from its head. White (the viewer) runs
    # from the top right leftwards along the top, so its 18 is the top left slot 18. Black runs from
    # its head at the bottom left rightwards along the bottom: its 18 is A6, the slot 6 bottom right.
    view = BoardView(
        game="long",
        points=points_of("long", {24: 14, 18: 1}, {24: 14, 18: 1}),
    )
    image = picture(view)
    assert is_white(colour_at(image, layout.slot_checker_center(18, 0)))
    assert is_black(colour_at(image, layout.slot_checker_center(6, 0)))
    assert is_black(colour_at(image, layout.checker_center(view, 6, 0)))


def dark_label(rgb: tuple[int, int, int]) -> bool:
    return luminance(rgb) < 110


def light_label(rgb: tuple[int, int, int]) -> bool:
    return luminance(rgb) > 170


def test_a_stack_taller_than_five_carries_its_count() -> None:
    view = BoardView(game="long", points=LONG_START)
    image = picture(view)
    white_top = layout.checker_center(view, 24, layout.STACK - 1)
    white_plain = layout.checker_center(view, 24, 0)
    assert count_pixels(image, white_top, 12, dark_label) > 25
    assert count_pixels(image, white_plain, 12, dark_label) == 0
    black_top = layout.checker_center(view, 12, layout.STACK - 1)
    black_plain = layout.checker_center(view, 12, 0)
    assert count_pixels(image, black_top, 12, light_label) > 25
    assert count_pixels(image, black_plain, 12, light_label) == 0
    # indexes past the drawn stack are clamped to the labelled checker
    assert layout.checker_center(view, 24, 14) == white_top


def test_a_stack_of_exactly_five_has_no_label() -> None:
    view = BoardView(game="short", points=SHORT_START)
    image = picture(view)
    assert count_pixels(image, layout.checker_center(view, 6, 4), 12, dark_label) == 0


def die_ink(side: Side) -> Callable[[tuple[int, int, int]], bool]:
    if side == Side.WHITE:
        return lambda rgb: luminance(rgb) < 100
    return lambda rgb: luminance(rgb) > 150


def inner(box: tuple[int, int, int, int], inset: int = 5) -> tuple[int, int, int, int]:
    return box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset


@pytest.mark.parametrize("roller", [Side.WHITE, Side.BLACK])
@pytest.mark.parametrize("first,second", [(1, 2), (3, 4), (5, 6), (6, 1)])
def test_dice_faces_show_their_pips(roller: Side, first: int, second: int) -> None:
    view = BoardView(game="short", points=SHORT_START, to_move=roller, dice=(first, second))
    image = picture(view)
    boxes = layout.dice_boxes(view)
    assert len(boxes) == 2
    ink = die_ink(roller)
    assert blobs(image, inner(boxes[0]), ink) == first
    assert blobs(image, inner(boxes[1]), ink) == second
    # the viewer's roll lies in the right half, the opponent's in the left
    if roller == Side.WHITE:
        assert boxes[0][0] > layout.X_RIGHT
    else:
        assert boxes[1][2] < layout.X_BAR


def face_luminance(image: Image.Image, box: tuple[int, int, int, int]) -> float:
    # a spot between the pips of every face: a quarter in from the left, halfway down... the edge
    # middle of the left column for 6 is a pip, so read close to the top edge in the middle
    return luminance(colour_at(image, ((box[0] + box[2]) // 2, box[1] + 5), 1))


def test_doubles_show_four_dice_and_used_ones_are_dimmed() -> None:
    view = BoardView(game="short", points=SHORT_START, to_move=Side.WHITE, dice=(3, 3), dice_used=(3, 3, 3))
    image = picture(view)
    boxes = layout.dice_boxes(view)
    assert len(boxes) == 4
    faces = [face_luminance(image, box) for box in boxes]
    assert faces[3] > 220
    assert all(f < faces[3] - 60 for f in faces[:3]), faces
    for box in boxes:  # dimmed dice still show their value
        assert blobs(image, inner(box), lambda rgb: luminance(rgb) < 100) == 3


def test_the_used_die_of_a_plain_roll_is_the_dimmed_one() -> None:
    view = BoardView(game="short", points=SHORT_START, to_move=Side.WHITE, dice=(6, 1), dice_used=(1,))
    image = picture(view)
    six, one = (face_luminance(image, box) for box in layout.dice_boxes(view))
    assert six > 220 and one < six - 60


HIT_VIEW = BoardView(
    game="short",
    points=points_of(
        "short", {24: 1, 22: 1, 13: 4, 9: 1, 8: 2, 6: 5, 4: 1}, {24: 2, 13: 4, 8: 3, 6: 4, 5: 1}
    ),
    bar=(0, 1),
    to_move=Side.BLACK,
    dice=(5, 2),
    last_mover=Side.WHITE,
    last_move=(MoveMark(13, 9, hit=True), MoveMark(24, 22)),
)


@pytest.mark.parametrize("viewer", [Side.WHITE, Side.BLACK])
def test_a_hit_checker_sits_on_the_bar_on_the_side_where_it_enters(viewer: Side) -> None:
    view = BoardView(**{**HIT_VIEW.__dict__, "viewer": viewer})
    image = picture(view)
    x, y = layout.bar_checker_center(view, Side.BLACK, 0)
    assert layout.X_BAR < x < layout.X_RIGHT
    assert is_black(colour_at(image, (x, y)))
    # Black enters in White's home: below the middle for White's view, above it for Black's own view
    assert (y > layout.Y_GAP_END) == (viewer == Side.WHITE)
    assert not is_white(colour_at(image, layout.bar_checker_center(view, Side.WHITE, 0)))


def test_the_last_move_rings_arrivals_marks_departures_and_the_hit() -> None:
    view = HIT_VIEW
    image = picture(view)
    # the checker that arrived on 9 (hitting) and the one on 22 wear a ring just outside the checker
    for absolute in (9, 22):
        x, y = layout.checker_center(view, absolute, 0)
        ring = colour_at(image, (x - layout.RADIUS - 1, y), 1)
        assert near(ring, T.ARRIVED, 70), (absolute, ring)
    # the point numbers of every point touched are highlighted
    for absolute in (13, 9, 24, 22):
        slot = layout.slot_of("short", Side.WHITE, absolute)
        x, y = layout.number_center(slot)
        assert near(colour_at(image, (x - 18, y), 1), T.NUMBER_MARKED_BG, 60), absolute
    untouched = layout.number_center(layout.slot_of("short", Side.WHITE, 5))
    assert not near(colour_at(image, (untouched[0] - 18, untouched[1]), 1), T.NUMBER_MARKED_BG, 60)
    # the red hit badge sits on the upper right of the hitting checker
    x, y = layout.checker_center(view, 9, 0)
    badge = count_pixels(
        image, (x + layout.RADIUS - 5, y - layout.RADIUS + 5), 9, lambda rgb: near(rgb, T.HIT, 60)
    )
    assert badge > 40


def test_borne_off_checkers_fill_the_tray_with_their_count() -> None:
    view = BoardView(
        game="short",
        points=points_of("short", {6: 3, 5: 1, 4: 3, 3: 2, 2: 2}, {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 1}),
        off=(4, 1),
        last_mover=Side.WHITE,
        last_move=(MoveMark(5, 0), MoveMark(5, 0)),
    )
    image = picture(view)
    for index in range(4):
        box = layout.slab_box(view, Side.WHITE, index)
        assert is_white(colour_at(image, ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2), 1)), index
    box = layout.slab_box(view, Side.WHITE, 4)
    assert near(colour_at(image, ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2), 1), T.TRAY)
    black = layout.slab_box(view, Side.BLACK, 0)
    assert black[1] < layout.Y_GAP  # the opponent's tray is the upper one
    assert is_black(colour_at(image, ((black[0] + black[2]) // 2, (black[1] + black[3]) // 2), 1))
    # the count is printed by the tray: some bright number pixels there
    x, y = layout.tray_count_center(view, Side.WHITE)
    assert count_pixels(image, (x, y), 8, lambda rgb: near(rgb, T.NUMBER, 50)) > 10
    # the borne-off move rings the tray
    left, top, _, bottom = layout.tray_box(view, Side.WHITE)
    assert near(colour_at(image, (left - 2, (top + bottom) // 2), 1), T.ARRIVED, 70)


def panel_ground(image: Image.Image, view: BoardView, side: Side) -> tuple[int, int, int]:
    left, top, _, _ = layout.panel_box(view, side)
    return colour_at(image, (left + 14, top + 4), 1)


def test_the_panel_of_the_side_to_move_is_highlighted() -> None:
    view = BoardView(game="short", points=SHORT_START, to_move=Side.BLACK, dice=(2, 1))
    image = picture(view)
    assert near(panel_ground(image, view, Side.BLACK), T.PANEL_TURN, 20)
    assert near(panel_ground(image, view, Side.WHITE), T.BACKGROUND, 20)
    # the viewer (White) is the lower panel, the opponent the upper
    assert layout.panel_box(view, Side.WHITE)[1] > layout.Y_FIELD_END
    assert layout.panel_box(view, Side.BLACK)[3] <= layout.Y_FIELD


def test_the_winner_panel_is_gold_when_the_game_is_over() -> None:
    view = BoardView(
        game="short",
        points=points_of("short", {}, {24: 1, 13: 4, 8: 5, 6: 5}),
        off=(15, 0),
        winner=Side.WHITE,
        status="Alice won: koks (3)",
    )
    image = picture(view)
    assert near(panel_ground(image, view, Side.WHITE), T.PANEL_WINNER, 20)
    assert near(panel_ground(image, view, Side.BLACK), T.BACKGROUND, 20)
    left, top, right, bottom = layout.STATUS_BOX
    gold = count_pixels(
        image, ((left + right) // 2, (top + bottom) // 2), 20, lambda rgb: near(rgb, T.TEXT_GOLD, 60)
    )
    assert gold > 50
