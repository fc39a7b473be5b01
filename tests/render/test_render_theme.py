"""Board themes: the dark board is a different, dark picture in the dark palette; light stays today's look."""

from __future__ import annotations

import pickle
from dataclasses import replace

import pytest
from PIL import ImageStat
from render_pixels import SHORT_START, colour_at, near, picture

from engine.sides import Side
from render import BoardView, RenderError, layout, render_board
from render import theme as T
from render.gallery import HIT_POSITION, samples


def _luminance(view: BoardView) -> float:
    return float(ImageStat.Stat(picture(view).convert("L")).mean[0])


def test_light_is_the_default_and_today_s_palette() -> None:
    assert BoardView(game="short", points=SHORT_START).theme == T.DEFAULT_THEME == "light"
    assert T.palette("light").field == T.FIELD and T.palette("light").white_face == T.WHITE_FACE
    assert set(T.THEMES) == {"light", "dark"}
    view = BoardView(game="short", points=SHORT_START)
    assert render_board(view) == render_board(replace(view, theme="light"))


def test_the_dark_board_differs_and_is_dark() -> None:
    light = HIT_POSITION
    dark = replace(HIT_POSITION, theme="dark")
    assert render_board(dark) != render_board(light)
    assert _luminance(dark) < 55 < 70 < _luminance(light), (_luminance(dark), _luminance(light))
    image = picture(dark)
    middle = (layout.X_LEFT + 10, (layout.Y_GAP + layout.Y_GAP_END) // 2)  # empty field, no checker
    assert near(colour_at(image, middle, 2), T.DARK.field, 12)
    assert near(colour_at(image, (layout.WIDTH // 2, layout.HEIGHT - 4), 1), T.DARK.background, 12)
    assert max(T.DARK.field) < 60 and max(T.DARK.background) < 30


def test_checkers_stay_apart_from_the_dark_field() -> None:
    dark = replace(BoardView(game="short", points=SHORT_START), theme="dark")
    image = picture(dark)
    x, y = layout.checker_center(dark, 6, 0)  # white's six point, from white's side
    assert near(colour_at(image, (x, y - layout.RADIUS // 2), 2), T.DARK.white_face, 40)
    rim = T.DARK.black_rim
    black = layout.checker_center(dark, 19, 0)  # one of black's points, from white's side
    ring = [colour_at(image, (black[0] + dx, black[1]), 0) for dx in range(-layout.RADIUS, layout.RADIUS)]
    assert any(near(rgb, rim, 40) for rgb in ring), "black checkers keep a light rim on the dark field"


@pytest.mark.parametrize("theme", T.THEMES)
def test_every_sample_draws_in_every_theme(theme: str) -> None:
    for name, view in samples().items():
        data = render_board(replace(view, theme=theme))
        assert data[:3] == b"\xff\xd8\xff", name
    turned = replace(HIT_POSITION, theme=theme, viewer=Side.BLACK)
    assert render_board(turned)


def test_an_unknown_theme_is_refused_and_a_view_pickles_with_its_theme() -> None:
    for bad in ("neon", "", None, 1):
        with pytest.raises(RenderError, match="theme must be one of"):
            render_board(replace(HIT_POSITION, theme=bad))  # type: ignore[arg-type]
    dark = replace(HIT_POSITION, theme="dark")
    again = pickle.loads(pickle.dumps(dark, protocol=pickle.HIGHEST_PROTOCOL))  # render workers get it so
    assert again == dark and render_board(again) == render_board(dark)
