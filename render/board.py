"""`render_board`: one `BoardView` in, image bytes out (JPEG), pasting cached sprites on a cached board."""

from __future__ import annotations

import io
from collections import Counter
from functools import lru_cache

from PIL import Image

from engine.sides import Side, to_absolute
from render import layout as L
from render import sprites as S
from render import theme as T
from render.text import FALLBACK, MAX_CODEPOINTS, clean_text, fit_text, text_mask
from render.view import BoardView, CheckedView, RenderError, check_view

Box = tuple[int, int, int, int]

IMAGE_FORMAT = "JPEG"
MIME_TYPE = "image/jpeg"
FILE_EXTENSION = ".jpg"
JPEG_QUALITY = 80

SWATCH = 36
NAME_X = 70
STAR = 26


@lru_cache(maxsize=2048)  # a bot serving a few hundred games at once draws ~5 texts per game in turn
def line_mask(text: str, size: int, bold: bool, max_width: int) -> Image.Image:
    """Untrusted text cleaned, shortened to `max_width` pixels and rendered (cached by its first characters)."""
    cleaned = clean_text(text, bold) or FALLBACK
    return text_mask(fit_text(cleaned, size, max_width, bold), size, bold)


@lru_cache(maxsize=384)
def line_tile(text: str, size: int, bold: bool, max_width: int, colour: T.RGB, ground: T.RGB) -> Image.Image:
    """`line_mask` drawn in `colour` on a plain `ground`: an opaque tile for the panels and the status line."""
    mask = line_mask(text, size, bold, max_width)
    tile = Image.new("RGB", mask.size, ground)
    tile.paste(colour, (0, 0), mask)
    return tile


def _tile(text: str, size: int, bold: bool, max_width: int, colour: T.RGB, ground: T.RGB) -> Image.Image:
    return line_tile(text[: MAX_CODEPOINTS + 1], size, bold, max_width, colour, ground)


def _put(image: Image.Image, tile: Image.Image, x: int, y: int, anchor: str) -> Box:
    """Paste an opaque tile with its anchor ("l"/"m"/"r" horizontally, always middle vertically) at x, y."""
    width, height = tile.size
    if anchor == "m":
        x -= width // 2
    elif anchor == "r":
        x -= width
    y -= height // 2
    image.paste(tile, (x, y))
    return x, y, x + width, y + height


def _place(image: Image.Image, view: BoardView, centre: tuple[int, int], kind: str, *args: int) -> None:
    tile, box = S.on_board(view.game, centre, kind, args, view.theme)
    image.paste(tile, box[:2])


def _overlay(image: Image.Image, sprite: Image.Image, centre: tuple[int, int]) -> None:
    width, height = sprite.size
    image.paste(sprite, (centre[0] - width // 2, centre[1] - height // 2), sprite)


def _draw_points(image: Image.Image, view: BoardView) -> None:
    for index, count in enumerate(view.points):
        if not count:
            continue
        side = Side.WHITE if count > 0 else Side.BLACK
        height = abs(count)
        slot = L.slot_of(view.game, view.viewer, index + 1)
        plain = height if height <= L.STACK else L.STACK - 1
        tile, box = S.stack_on_board(view.game, slot, side, plain, view.theme)
        image.paste(tile, box[:2])
        if height > L.STACK:  # the last drawn checker carries the height of the stack
            _place(image, view, L.slot_checker_center(slot, L.STACK - 1), "labelled", side, height)


def _draw_bar_and_trays(image: Image.Image, view: BoardView) -> None:
    for side in (Side.WHITE, Side.BLACK):
        on_bar = view.bar[side]
        for k in range(min(on_bar, L.BAR_STACK)):
            centre = L.bar_checker_center(view, side, k)
            if k == L.BAR_STACK - 1 and on_bar > L.BAR_STACK:
                _place(image, view, centre, "labelled", side, on_bar)
            else:
                _place(image, view, centre, "checker", side)
        off = view.off[side]
        slab = S.slab(side, view.theme)
        for k in range(off):
            box = L.slab_box(view, side, k)
            image.paste(slab, box[:2], slab)
        tile, box = S.text_on_board(
            view.game,
            L.tray_count_center(view, side),
            str(off),
            L.TRAY_SIZE,
            T.palette(view.theme).number,
            view.theme,
        )
        image.paste(tile, box[:2])


def _draw_last_move(image: Image.Image, checked: CheckedView) -> None:
    view = checked.view
    mover = checked.last_mover
    if mover is None or not view.last_move:
        return
    left: Counter[int] = Counter()  # absolute point (0 = the bar, 25 = off) -> checkers that left / arrived
    arrived: Counter[int] = Counter()
    hits: set[int] = set()
    for mark in view.last_move:
        src = 0 if mark.src == 25 else to_absolute(view.game, mover, mark.src)
        dst = 25 if mark.dst == 0 else to_absolute(view.game, mover, mark.dst)
        left[src] += 1
        arrived[dst] += 1
        if mark.hit and dst != 25:
            hits.add(dst)
    for point in sorted(set(left) | set(arrived)):
        net = arrived[point] - left[point]
        if point == 0:  # entered from the bar: ghosts above the mover's remaining bar checkers
            on_bar = view.bar[mover]
            for k in range(on_bar, min(on_bar + left[point], L.BAR_STACK)):
                _overlay(image, S.left_ghost(view.theme), L.bar_checker_center(view, mover, k))
            continue
        if point == 25:  # borne off: ring the tray
            left_x, top, right, bottom = L.tray_box(view, mover)
            _outline(image, (left_x - 3, top - 3, right + 3, bottom + 3), T.palette(view.theme).arrived, 3)
            continue
        slot = L.slot_of(view.game, view.viewer, point)
        _place(image, view, L.number_center(slot), "number", slot)
        height = abs(view.points[point - 1])
        if net > 0:
            for k in sorted({min(i, L.STACK - 1) for i in range(max(0, height - net), height)}):
                _overlay(image, S.arrived_ring(view.theme), L.slot_checker_center(slot, k))
        elif net < 0:
            for k in range(height, min(height - net, L.STACK)):
                _overlay(image, S.left_ghost(view.theme), L.slot_checker_center(slot, k))
    for point in sorted(hits):
        slot = L.slot_of(view.game, view.viewer, point)
        height = abs(view.points[point - 1])
        x, y = L.slot_checker_center(slot, max(0, min(height, L.STACK) - 1))
        _overlay(image, S.hit_badge(view.theme), (x + L.RADIUS - 5, y - L.RADIUS + 5))
    if hits and view.game == "short":
        victim = mover.other
        on_bar = view.bar[victim]
        if on_bar:
            x, y = L.bar_checker_center(view, victim, min(on_bar, L.BAR_STACK) - 1)
            _overlay(image, S.hit_badge(view.theme), (x + L.RADIUS - 5, y - L.RADIUS + 5))


def _outline(image: Image.Image, box: Box, colour: T.RGB, width: int) -> None:
    left, top, right, bottom = box
    image.paste(colour, (left, top, right, top + width))
    image.paste(colour, (left, bottom - width, right, bottom))
    image.paste(colour, (left, top, left + width, bottom))
    image.paste(colour, (right - width, top, right, bottom))


def _draw_dice(image: Image.Image, checked: CheckedView) -> None:
    if not checked.dice:
        return
    roller = checked.to_move if checked.to_move is not None else checked.viewer
    boxes = L.row_of_dice(len(checked.dice), roller == checked.viewer)
    for value, used, box in zip(checked.dice, checked.dice_used, boxes):
        centre = ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)
        _place(image, checked.view, centre, "die", roller, value, used)


PIPS_ROOM = 200  # the widest pip count drawn (pixels)
PIPS_LABEL_ROOM = 160  # the widest pips label ("pips", translated)


def _panel_places(view: BoardView, pips: int, winner: bool) -> tuple[int, int, int]:
    """Where a panel's texts go, from the right: the pip count's right edge, the pips label's right edge,
    and the room left for the name (pixels), as `_draw_panel` draws them."""
    right = L.WIDTH - 22
    number = line_mask(str(pips)[: MAX_CODEPOINTS + 1], L.PIPS_SIZE, True, PIPS_ROOM)
    label_right = right - number.width - 4
    label = line_mask(view.pips_label[: MAX_CODEPOINTS + 1], L.PIPS_LABEL_SIZE, False, PIPS_LABEL_ROOM)
    room = label_right - label.width - 20 - NAME_X - (STAR + 12 if winner else 0)
    return right, label_right, room


def _draw_panel(image: Image.Image, checked: CheckedView, side: Side) -> None:
    view = checked.view
    left, top, right, bottom = L.panel_box(view, side)
    middle = (top + bottom) // 2
    winner = checked.winner == side
    p = T.palette(view.theme)
    ground = p.background
    if winner:
        ground = p.panel_winner
        image.paste(ground, (left, top, right, bottom))
    elif checked.to_move == side:
        ground = p.panel_turn
        image.paste(ground, (left, top, right, bottom))
    if checked.to_move == side or winner:
        image.paste(p.turn_accent, (left, top + 6, left + 8, bottom - 6))
    _overlay(image, S.checker(side, SWATCH, view.theme), (left + 22 + SWATCH // 2, middle))
    number_right, label_right, room = _panel_places(view, checked.pips[side], winner)
    number = _tile(str(checked.pips[side]), L.PIPS_SIZE, True, PIPS_ROOM, p.text, ground)
    _put(image, number, number_right, middle, "r")
    label = _tile(view.pips_label, L.PIPS_LABEL_SIZE, False, PIPS_LABEL_ROOM, p.text_dim, ground)
    _put(image, label, label_right, middle + 2, "r")
    name = _tile(view.names[side], L.NAME_SIZE, True, room, p.text_gold if winner else p.text, ground)
    box = _put(image, name, NAME_X, middle, "l")
    if winner:
        _overlay(image, S.star(STAR, view.theme), (box[2] + 6 + STAR // 2, middle))


def status_room() -> int:
    """The width the status line may take (pixels)."""
    left, _top, right, _bottom = L.STATUS_BOX
    return right - left - 40


def _draw_status(image: Image.Image, checked: CheckedView) -> None:
    text = checked.view.status
    if not text:
        return
    left, top, right, bottom = L.STATUS_BOX
    over = checked.winner is not None
    p = T.palette(checked.view.theme)
    colour = p.text_gold if over else p.text
    tile = _tile(text, L.STATUS_SIZE, over, status_room(), colour, p.background)
    _put(image, tile, (left + right) // 2, (top + bottom) // 2, "m")


def shortened(view: BoardView) -> list[str]:
    """The texts of `view` that the picture would shorten with an ellipsis (or lose glyphs of) to fit their
    places: the status line, the pips label, either name. Measured as `draw_board` lays them out: a
    translated text that is listed here does not fit its place on the board."""
    checked = check_view(view)
    view = checked.view
    over = checked.winner is not None
    places = [(view.status, L.STATUS_SIZE, over, status_room())]
    places.append((view.pips_label, L.PIPS_LABEL_SIZE, False, PIPS_LABEL_ROOM))
    for side in (Side.WHITE, Side.BLACK):
        room = _panel_places(view, checked.pips[side], checked.winner == side)[2]
        places.append((view.names[side], L.NAME_SIZE, True, room))
    out = []
    for text, size, bold, room in places:
        cleaned = clean_text(text, bold)
        if cleaned != " ".join(text.split()) or fit_text(cleaned, size, room, bold) != cleaned:
            out.append(text)
    return out


CUBE = 40  # the doubling cube's side, drawn in the bar column


def _draw_cube(image: Image.Image, checked: CheckedView) -> None:
    """The doubling cube in the bar column: in the middle when nobody owns it (or a double is offered,
    then at the offered value, in the turn colour), at the owner's end otherwise (the viewer's: bottom)."""
    view = checked.view
    if view.cube is None:
        return
    p = T.palette(view.theme)
    x = L.X_BAR + L.BAR_W // 2
    owner = view.cube_owner
    if view.cube_offered or owner is None:
        y = (L.Y_GAP + L.Y_GAP_END) // 2
    elif owner == checked.viewer:
        y = L.Y_FIELD_END - CUBE // 2 - 4
    else:
        y = L.Y_FIELD + CUBE // 2 + 4
    value = view.cube * 2 if view.cube_offered else view.cube
    ground = p.panel_turn if view.cube_offered else p.background
    box = (x - CUBE // 2, y - CUBE // 2, x + CUBE // 2, y + CUBE // 2)
    image.paste(p.text, box)
    image.paste(ground, (box[0] + 2, box[1] + 2, box[2] - 2, box[3] - 2))
    size = 22 if value < 10 else 18
    tile = _tile(str(value), size, True, CUBE - 6, p.text, ground)
    _put(image, tile, x, y, "m")


def draw_board(view: BoardView) -> Image.Image:
    """The picture of `view` as a Pillow image (RGB, `layout.SIZE`); raises `RenderError` for a bad view."""
    checked = check_view(view)
    view = checked.view
    image = S.background(view.game, view.theme).copy()
    for side in (Side.WHITE, Side.BLACK):
        _draw_panel(image, checked, side)
    _draw_points(image, view)
    _draw_bar_and_trays(image, view)
    _draw_last_move(image, checked)
    _draw_dice(image, checked)
    _draw_cube(image, checked)
    _draw_status(image, checked)
    return image


def encode(image: Image.Image) -> bytes:
    """`image` as IMAGE_FORMAT bytes (the settings the benchmark's blank image uses too)."""
    out = io.BytesIO()
    image.save(out, IMAGE_FORMAT, quality=JPEG_QUALITY)
    return out.getvalue()


def render_board(view: BoardView) -> bytes:
    """The board image for `view` as bytes ready for Telegram's sendPhoto (MIME_TYPE).

    Pure: reads only the bundled font, no clock, no files written; safe to call from several threads.
    Raises `RenderError` (a ValueError) saying what is wrong with a bad view.
    """
    try:
        return encode(draw_board(view))
    except RenderError:
        raise
    except (TypeError, AttributeError) as error:  # a view of the wrong shape slipped past the checks
        raise RenderError(f"cannot draw this view: {error} ({type(view).__name__})") from error
