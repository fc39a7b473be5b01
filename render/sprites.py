"""Everything that never changes, drawn once (supersampled, then scaled down for smooth edges) and cached.

The board background holds the frame, the field, the 24 points, the bar, the trays and the point numbers;
checkers, dice, slabs and markers are RGBA sprites pasted onto a copy of it. Each builder is cached
with `lru_cache`; the images are never modified after they are built, so threads may share them.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache

from PIL import Image, ImageDraw

from engine.sides import Side
from render import layout as L
from render import theme as T
from render.text import text_mask

SS = 4  # supersampling factor for static drawings
Box = tuple[int, int, int, int]


def _scaled(box: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
    return (round(box[0] * SS), round(box[1] * SS), round(box[2] * SS) - 1, round(box[3] * SS) - 1)


def _down(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    return image.resize(size, Image.Resampling.LANCZOS, reducing_gap=None)


def paste_text(
    image: Image.Image, mask: Image.Image, colour: T.RGB, x: int, y: int, anchor: str = "lm"
) -> Box:
    """Paste `colour` through a text mask; `anchor` like Pillow's ("l"/"m"/"r" then "m"): x, y is that point."""
    width, height = mask.size
    if anchor[0] == "m":
        x -= width // 2
    elif anchor[0] == "r":
        x -= width
    y -= height // 2
    image.paste(colour, (x, y, x + width, y + height), mask)
    return x, y, x + width, y + height


def _triangle(draw: ImageDraw.ImageDraw, slot: int, p: T.Palette) -> None:
    x = L.slot_x(slot)
    half = (L.POINT_W - 4) / 2
    length = L.TRI_LEN - 10
    if L.is_top(slot):
        base, tip = L.Y_FIELD, L.Y_FIELD + length
    else:
        base, tip = L.Y_FIELD_END, L.Y_FIELD_END - length
    colour = p.point_dark if slot % 2 else p.point_light
    points = [((x - half) * SS, base * SS), ((x + half) * SS, base * SS), (x * SS, tip * SS)]
    draw.polygon(points, fill=colour, outline=T.mix(colour, (0, 0, 0), 0.25), width=SS)


@cache
def background(game: str, theme: str = T.DEFAULT_THEME) -> Image.Image:
    """The empty board in `theme`'s colours (both games share one drawing; the game is in the key for
    future variants)."""
    p = T.palette(theme)
    big = Image.new("RGB", (L.WIDTH * SS, L.HEIGHT * SS), p.background)
    draw = ImageDraw.Draw(big)
    draw.rectangle(_scaled((0, L.Y_BOARD, L.WIDTH, L.Y_BOARD_END)), fill=p.frame)
    draw.rectangle(_scaled((0, L.Y_BOARD, L.WIDTH, L.Y_BOARD_END)), outline=p.frame_dark, width=3 * SS)
    for left in (L.X_LEFT, L.X_RIGHT):
        field = _scaled((left, L.Y_FIELD, left + L.HALF_W, L.Y_FIELD_END))
        draw.rectangle(field, fill=p.field)
    draw.rectangle(_scaled((L.X_BAR, L.Y_BOARD, L.X_RIGHT, L.Y_BOARD_END)), fill=p.bar)
    for x in (L.X_BAR, L.X_RIGHT):
        draw.line([(x * SS, L.Y_BOARD * SS), (x * SS, L.Y_BOARD_END * SS)], fill=p.frame_dark, width=2 * SS)
    for slot in range(1, 25):
        _triangle(draw, slot, p)
    for tray in (L.tray_box_bottom(), L.tray_box_top()):
        draw.rounded_rectangle(_scaled(tray), radius=6 * SS, fill=p.tray, outline=p.frame_dark, width=2 * SS)
    image = _down(big, L.SIZE)
    for slot in range(1, 25):
        x, y = L.number_center(slot)
        paste_text(image, text_mask(str(slot), L.NUMBER_SIZE, True), p.number, x, y, "mm")
    return image


def _disc(size: int, face: T.RGB, rim: T.RGB, ring: T.RGB) -> Image.Image:
    big = Image.new("RGBA", (size * SS, size * SS), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    edge = T.mix(rim, (0, 0, 0), 0.45)
    draw.ellipse((0, 0, size * SS - 1, size * SS - 1), fill=edge)
    inset = max(1, size * SS // 40)
    draw.ellipse((inset, inset, size * SS - 1 - inset, size * SS - 1 - inset), fill=rim)
    inner = round(size * SS * 0.09)
    draw.ellipse((inner, inner, size * SS - 1 - inner, size * SS - 1 - inner), fill=face)
    ring_in = round(size * SS * 0.24)
    draw.ellipse(
        (ring_in, ring_in, size * SS - 1 - ring_in, size * SS - 1 - ring_in),
        outline=ring,
        width=max(SS, size * SS // 36),
    )
    return _down(big, (size, size))


def _colours(side: Side, theme: str) -> tuple[T.RGB, T.RGB, T.RGB]:
    p = T.palette(theme)
    if side == Side.WHITE:
        return p.white_face, p.white_rim, T.mix(p.white_face, p.white_rim, 0.45)
    return p.black_face, p.black_rim, T.mix(p.black_face, p.black_rim, 0.55)


@cache
def checker(side: Side, size: int = L.CHECKER, theme: str = T.DEFAULT_THEME) -> Image.Image:
    """A checker of `side` seen from above (RGBA, `size` pixels across)."""
    return _disc(size, *_colours(side, theme))


@lru_cache(maxsize=128)
def labelled_checker(side: Side, count: int, theme: str = T.DEFAULT_THEME) -> Image.Image:
    """A checker carrying the height of its stack."""
    image = checker(side, theme=theme).copy()
    p = T.palette(theme)
    colour = p.white_label if side == Side.WHITE else p.black_label
    mask = text_mask(str(count), L.STACK_SIZE if count < 10 else L.STACK_SIZE - 2, True)
    paste_text(image, mask, colour, L.RADIUS, L.RADIUS + 1, "mm")
    return image


@cache
def slab(side: Side, theme: str = T.DEFAULT_THEME) -> Image.Image:
    """A borne-off checker seen from the side, for the trays."""
    face, rim, _ = _colours(side, theme)
    big = Image.new("RGBA", (L.SLAB_W * SS, L.SLAB_H * SS), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.rounded_rectangle(
        (0, SS, L.SLAB_W * SS - 1, L.SLAB_H * SS - 1 - SS),
        radius=5 * SS,
        fill=face,
        outline=rim,
        width=2 * SS,
    )
    return _down(big, (L.SLAB_W, L.SLAB_H))


PIP_SPOTS = {
    1: [(0.5, 0.5)],
    2: [(0.27, 0.27), (0.73, 0.73)],
    3: [(0.27, 0.27), (0.5, 0.5), (0.73, 0.73)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    5: [(0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)],
    6: [(0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)],
}


def die_colours(side: Side, used: bool, theme: str = T.DEFAULT_THEME) -> tuple[T.RGB, T.RGB]:
    """(face, pip) colours of a die of `side`; a used die fades toward the field."""
    p = T.palette(theme)
    face, pip = (p.white_die, p.white_pip) if side == Side.WHITE else (p.black_die, p.black_pip)
    if used:
        face, pip = T.mix(face, p.field, T.DIE_DIM_MIX), T.mix(pip, p.field, T.DIE_DIM_MIX)
    return face, pip


@cache
def die(side: Side, value: int, used: bool, theme: str = T.DEFAULT_THEME) -> Image.Image:
    """A die showing `value`, in `side`'s colours; dimmed when already played."""
    face, pip = die_colours(side, used, theme)
    size = L.DIE * SS
    big = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    edge = T.mix(face, (0, 0, 0), 0.5) if side == Side.WHITE else T.mix(face, (255, 255, 255), 0.35)
    draw.rounded_rectangle((0, 0, size - 1, size - 1), radius=9 * SS, fill=face, outline=edge, width=2 * SS)
    r = size * 0.095
    for fx, fy in PIP_SPOTS[value]:
        draw.ellipse((fx * size - r, fy * size - r, fx * size + r, fy * size + r), fill=pip)
    return _down(big, (L.DIE, L.DIE))


@cache
def arrived_ring(theme: str = T.DEFAULT_THEME) -> Image.Image:
    """A ring round a checker that arrived in the last move."""
    size = (L.CHECKER + 8) * SS
    big = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    ImageDraw.Draw(big).ellipse(
        (0, 0, size - 1, size - 1), outline=T.palette(theme).arrived + (255,), width=5 * SS
    )
    return _down(big, (L.CHECKER + 8, L.CHECKER + 8))


@cache
def left_ghost(theme: str = T.DEFAULT_THEME) -> Image.Image:
    """A dashed outline where a checker stood before the last move."""
    size = L.CHECKER * SS
    big = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    pad = 3 * SS
    draw.ellipse((pad, pad, size - 1 - pad, size - 1 - pad), fill=(255, 255, 255, 46))
    for start in range(0, 360, 30):
        draw.arc(
            (pad, pad, size - 1 - pad, size - 1 - pad),
            start,
            start + 18,
            fill=T.palette(theme).left + (255,),
            width=4 * SS,
        )
    return _down(big, (L.CHECKER, L.CHECKER))


HIT_BADGE = 23


@cache
def hit_badge(theme: str = T.DEFAULT_THEME) -> Image.Image:
    """A red badge with a cross: a blot was hit here."""
    size = HIT_BADGE * SS
    big = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.ellipse(
        (0, 0, size - 1, size - 1),
        fill=T.palette(theme).hit + (255,),
        outline=(255, 255, 255, 255),
        width=2 * SS,
    )
    a, b = size * 0.3, size * 0.7
    draw.line([(a, a), (b, b)], fill=(255, 255, 255, 255), width=3 * SS)
    draw.line([(a, b), (b, a)], fill=(255, 255, 255, 255), width=3 * SS)
    return _down(big, (HIT_BADGE, HIT_BADGE))


@cache
def star(size: int = 26, theme: str = T.DEFAULT_THEME) -> Image.Image:
    """A gold star for the winner's line."""
    big = Image.new("RGBA", (size * SS, size * SS), (0, 0, 0, 0))
    c = size * SS / 2
    points = []
    for k in range(10):
        radius = c * (0.98 if k % 2 == 0 else 0.42)
        angle = -math.pi / 2 + k * math.pi / 5
        points.append((c + radius * math.cos(angle), c + 0.06 * size * SS + radius * math.sin(angle)))
    ImageDraw.Draw(big).polygon(points, fill=T.palette(theme).text_gold + (255,))
    return _down(big, (size, size))


@cache
def marked_number(slot: int, theme: str = T.DEFAULT_THEME) -> Image.Image:
    """The point number of `slot` on a highlight: the point took part in the last move."""
    p = T.palette(theme)
    width, height = L.POINT_W - 10, L.NUM_H - 6
    big = Image.new("RGBA", (width * SS, height * SS), (0, 0, 0, 0))
    ImageDraw.Draw(big).rounded_rectangle(
        (0, 0, width * SS - 1, height * SS - 1), radius=height * SS // 2, fill=p.number_marked_bg + (255,)
    )
    image = _down(big, (width, height))
    paste_text(
        image, text_mask(str(slot), L.NUMBER_SIZE, True), p.number_marked, width // 2, height // 2, "mm"
    )
    return image


def _sprite(kind: str, args: tuple[int, ...], theme: str) -> Image.Image:
    if kind == "checker":
        return checker(Side(args[0]), theme=theme)
    if kind == "labelled":
        return labelled_checker(Side(args[0]), args[1], theme)
    if kind == "die":
        return die(Side(args[0]), args[1], bool(args[2]), theme)
    if kind == "number":
        return marked_number(args[0], theme)
    raise ValueError(f"unknown sprite kind {kind!r}")


@lru_cache(maxsize=3000)
def on_board(
    game: str, centre: tuple[int, int], kind: str, args: tuple[int, ...], theme: str = T.DEFAULT_THEME
) -> tuple[Image.Image, Box]:
    """A sprite already composited onto the board background at `centre`: an opaque RGB tile and its box.

    Pasting an opaque tile costs a third of blending an RGBA sprite; there are a few hundred distinct
    tiles (point x height x colour), so they are cached.
    """
    sprite = _sprite(kind, args, theme)
    width, height = sprite.size
    left, top = centre[0] - width // 2, centre[1] - height // 2
    box = (left, top, left + width, top + height)
    tile = background(game, theme).crop(box)
    tile.paste(sprite, (0, 0), sprite)
    return tile, box


@lru_cache(maxsize=1024)
def text_on_board(
    game: str, centre: tuple[int, int], text: str, size: int, colour: T.RGB, theme: str = T.DEFAULT_THEME
) -> tuple[Image.Image, Box]:
    """Bold `text` centred at `centre`, composited onto the board background (tray counts)."""
    mask = text_mask(text, size, True)
    width, height = mask.size
    left, top = centre[0] - width // 2, centre[1] - height // 2
    box = (left, top, left + width, top + height)
    tile = background(game, theme).crop(box)
    tile.paste(colour, (0, 0), mask)
    return tile, box


@lru_cache(maxsize=512)
def stack_on_board(
    game: str, slot: int, side: Side, height: int, theme: str = T.DEFAULT_THEME
) -> tuple[Image.Image, Box]:
    """`height` (1..STACK) plain checkers of `side` on layout slot `slot`, composited onto the board: one
    opaque tile pasted once instead of one tile per checker (24 slots x 2 colours x 5 heights at most)."""
    centres = [L.slot_checker_center(slot, k) for k in range(height)]
    xs = [c[0] for c in centres]
    ys = [c[1] for c in centres]
    box = (min(xs) - L.RADIUS, min(ys) - L.RADIUS, max(xs) + L.RADIUS, max(ys) + L.RADIUS)
    tile = background(game, theme).crop(box)
    sprite = checker(side, theme=theme)
    for x, y in centres:
        tile.paste(sprite, (x - L.RADIUS - box[0], y - L.RADIUS - box[1]), sprite)
    return tile, box
