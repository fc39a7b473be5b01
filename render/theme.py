"""Colours of the board picture (RGB). Tests read them to classify pixels."""

from __future__ import annotations

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


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """`a` moved a fraction `t` of the way toward `b`."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))
