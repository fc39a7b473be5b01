"""Colours of the board picture (RGB), one palette per theme. Tests read them to classify pixels.

The module-level names are the light theme's (today's look); `palette(name)` gives a theme's colours and
`THEMES` lists the names a BoardView may ask for."""

from __future__ import annotations

from dataclasses import dataclass

RGB = tuple[int, int, int]

BACKGROUND: RGB = (28, 37, 44)  # around the board: panels and the status line
PANEL_TURN: RGB = (44, 66, 82)  # the panel of the side to move
PANEL_WINNER: RGB = (92, 72, 18)  # the winner's panel
TURN_ACCENT: RGB = (242, 182, 50)
TEXT: RGB = (238, 238, 232)
TEXT_DIM: RGB = (170, 180, 186)
TEXT_GOLD: RGB = (255, 212, 92)

FRAME: RGB = (104, 64, 36)
FRAME_DARK: RGB = (70, 42, 22)
NUMBER: RGB = (236, 216, 176)
FIELD: RGB = (46, 104, 78)
POINT_DARK: RGB = (150, 52, 42)
POINT_LIGHT: RGB = (218, 186, 130)
BAR: RGB = (86, 52, 28)
TRAY: RGB = (52, 32, 18)

WHITE_FACE: RGB = (246, 241, 230)
WHITE_RIM: RGB = (150, 132, 104)
WHITE_LABEL: RGB = (40, 40, 40)
BLACK_FACE: RGB = (34, 34, 36)
BLACK_RIM: RGB = (120, 120, 124)
BLACK_LABEL: RGB = (250, 250, 250)

WHITE_DIE: RGB = (250, 248, 240)
WHITE_PIP: RGB = (24, 24, 24)
BLACK_DIE: RGB = (30, 30, 32)
BLACK_PIP: RGB = (245, 245, 245)
DIE_DIM_MIX = 0.62  # how far a used die fades toward the field colour

ARRIVED: RGB = (255, 214, 10)  # ring round a checker that arrived in the last move
LEFT: RGB = (255, 236, 150)  # outline where a checker left
HIT: RGB = (229, 40, 40)  # badge on a point where a blot was hit
NUMBER_MARKED_BG: RGB = (255, 214, 10)
NUMBER_MARKED: RGB = (40, 30, 10)


@dataclass(frozen=True)
class Palette:
    """Every colour one theme draws with (the names above, lower-cased)."""

    background: RGB
    panel_turn: RGB
    panel_winner: RGB
    turn_accent: RGB
    text: RGB
    text_dim: RGB
    text_gold: RGB
    frame: RGB
    frame_dark: RGB
    number: RGB
    field: RGB
    point_dark: RGB
    point_light: RGB
    bar: RGB
    tray: RGB
    white_face: RGB
    white_rim: RGB
    white_label: RGB
    black_face: RGB
    black_rim: RGB
    black_label: RGB
    white_die: RGB
    white_pip: RGB
    black_die: RGB
    black_pip: RGB
    arrived: RGB
    left: RGB
    hit: RGB
    number_marked_bg: RGB
    number_marked: RGB


LIGHT = Palette(
    background=BACKGROUND,
    panel_turn=PANEL_TURN,
    panel_winner=PANEL_WINNER,
    turn_accent=TURN_ACCENT,
    text=TEXT,
    text_dim=TEXT_DIM,
    text_gold=TEXT_GOLD,
    frame=FRAME,
    frame_dark=FRAME_DARK,
    number=NUMBER,
    field=FIELD,
    point_dark=POINT_DARK,
    point_light=POINT_LIGHT,
    bar=BAR,
    tray=TRAY,
    white_face=WHITE_FACE,
    white_rim=WHITE_RIM,
    white_label=WHITE_LABEL,
    black_face=BLACK_FACE,
    black_rim=BLACK_RIM,
    black_label=BLACK_LABEL,
    white_die=WHITE_DIE,
    white_pip=WHITE_PIP,
    black_die=BLACK_DIE,
    black_pip=BLACK_PIP,
    arrived=ARRIVED,
    left=LEFT,
    hit=HIT,
    number_marked_bg=NUMBER_MARKED_BG,
    number_marked=NUMBER_MARKED,
)

# Night colours: a charcoal field and frame, muted points, checkers a little softer; the black checkers
# keep a light rim so that they stand out on the dark field.
DARK = Palette(
    background=(14, 15, 18),
    panel_turn=(36, 40, 50),
    panel_winner=(64, 52, 18),
    turn_accent=(214, 160, 48),
    text=(214, 214, 208),
    text_dim=(140, 146, 152),
    text_gold=(232, 190, 84),
    frame=(40, 36, 34),
    frame_dark=(24, 22, 20),
    number=(168, 160, 146),
    field=(26, 32, 36),
    point_dark=(104, 44, 40),
    point_light=(86, 82, 72),
    bar=(32, 29, 27),
    tray=(20, 18, 17),
    white_face=(222, 218, 208),
    white_rim=(132, 120, 100),
    white_label=(36, 36, 36),
    black_face=(10, 10, 12),
    black_rim=(150, 150, 158),
    black_label=(236, 236, 236),
    white_die=(226, 222, 212),
    white_pip=(22, 22, 22),
    black_die=(12, 12, 14),
    black_pip=(226, 226, 226),
    arrived=(230, 186, 20),
    left=(214, 196, 128),
    hit=(206, 44, 44),
    number_marked_bg=(230, 186, 20),
    number_marked=(30, 24, 8),
)

PALETTES: dict[str, Palette] = {"light": LIGHT, "dark": DARK}
THEMES = tuple(PALETTES)
DEFAULT_THEME = "light"


def palette(name: str) -> Palette:
    """The colours of theme `name` (one of THEMES)."""
    return PALETTES[name]


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """`a` moved a fraction `t` of the way toward `b`."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))
