"""Bad views raise RenderError saying what and where; odd names always render; threads and the gallery."""

from __future__ import annotations

import io
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from render_pixels import LONG_START, SHORT_START, count_pixels, luminance, picture, pixel

from engine.sides import Side
from render import BoardView, MoveMark, RenderError, check_view, layout, render_board
from render.gallery import main as gallery_main
from render.gallery import samples
from render.text import MAX_CODEPOINTS, clean_text, fit_text, text_width

START = BoardView(game="short", points=SHORT_START)


def test_render_error_is_a_value_error() -> None:
    assert issubclass(RenderError, ValueError)


@pytest.mark.parametrize(
    "change, words",
    [
        ({"game": "chess"}, "game must be 'short' or 'long'"),
        ({"points": SHORT_START[:23]}, "24 counts, got 23"),
        ({"points": (16,) + SHORT_START[1:]}, "A1 holds 16 checkers"),
        ({"points": (-3,) + SHORT_START[1:]}, "black has 16 checkers"),
        ({"points": (1.5,) + SHORT_START[1:]}, "points[0] (A1) is not an integer"),
        ({"points": "x" * 24}, "points must hold 24 counts, got str"),
        ({"bar": (1, 0)}, "white has 16 checkers (15 on points, 1 on the bar, 0 off)"),
        ({"off": (0, -1)}, "off has a negative count"),
        ({"bar": (0,)}, "bar must be two integers"),
        ({"viewer": "white"}, "viewer must be a Side"),
        ({"to_move": 7}, "to_move must be a Side or None"),
        ({"dice": (7, 1)}, "dice must be values 1..6"),
        ({"dice": (1, 2, 3)}, "dice must be one roll"),
        ({"dice": (6, 1), "dice_used": (5,)}, "dice_used (5,) are not all among the dice (6, 1)"),
        ({"dice": (6, 1), "dice_used": (6, 6)}, "are not all among the dice"),
        ({"last_move": (MoveMark(13, 9),)}, "last_move is given but last_mover is None"),
        ({"last_move": (MoveMark(26, 9),), "last_mover": Side.WHITE}, "src must be 1..25"),
        ({"last_move": (MoveMark(8, -1),), "last_mover": Side.WHITE}, "dst must be 0..24"),
        ({"last_move": ((13, 9),), "last_mover": Side.WHITE}, "last_move[0] is not a MoveMark"),
        ({"names": ("only one",)}, "names must be two strings"),
        ({"names": ("a", None)}, "names must be two strings"),
        ({"status": None}, "status must be a str"),
        ({"pips": (1, 2, 3)}, "pips must be two integers"),
    ],
)
def test_a_bad_view_raises_render_error_saying_what_is_wrong(change: dict[str, object], words: str) -> None:
    view = replace(START, **change)  # type: ignore[arg-type]
    with pytest.raises(RenderError) as caught:
        render_board(view)
    assert words in str(caught.value)


def test_the_error_says_where_game_and_viewer() -> None:
    with pytest.raises(RenderError, match=r"\(game 'long', viewer 'BLACK'\)"):
        render_board(BoardView(game="long", points=LONG_START, viewer=Side.BLACK, bar=(0, 1), off=(0, 0)))


def test_long_nardy_has_no_bar() -> None:
    points = (0,) * 11 + (-14,) + (0,) * 11 + (15,)
    with pytest.raises(RenderError, match="long nardy has no bar"):
        render_board(BoardView(game="long", points=points, bar=(0, 1)))
    with pytest.raises(RenderError, match=r"src must be 1\.\.24"):
        render_board(
            replace(
                BoardView(game="long", points=LONG_START),
                last_mover=Side.WHITE,
                last_move=(MoveMark(25, 20),),
            )
        )


def test_not_a_board_view_raises_render_error() -> None:
    with pytest.raises(RenderError, match="needs a BoardView, got dict"):
        render_board({"game": "short"})  # type: ignore[arg-type]


def test_plain_integers_for_sides_are_read_as_sides() -> None:
    as_ints = BoardView(game="short", points=SHORT_START, viewer=1, to_move=0, dice=(2, 1))  # type: ignore[arg-type]
    as_sides = BoardView(game="short", points=SHORT_START, viewer=Side.BLACK, to_move=Side.WHITE, dice=(2, 1))
    assert check_view(as_ints).view == as_sides
    assert render_board(as_ints) == render_board(as_sides)


def test_pip_counts_are_computed_from_the_board_when_not_given() -> None:
    assert check_view(START).pips == (167, 167)
    assert check_view(BoardView(game="long", points=LONG_START)).pips == (360, 360)
    assert check_view(replace(START, pips=(1, 2))).pips == (1, 2)
    after_hit = BoardView(game="short", points=(-1,) + SHORT_START[1:], bar=(0, 1))
    assert check_view(after_hit).pips == (167, 167 - 24 + 25)


def name_pixels(view: BoardView, side: Side) -> int:
    """Bright text pixels in the name area of `side`'s panel (the name starts at x = 70)."""
    image = picture(view)
    _, top, _, bottom = layout.panel_box(view, side)
    middle = (top + bottom) // 2
    return sum(
        1
        for x in range(70, 500)
        for y in range(middle - 12, middle + 12)
        if luminance(pixel(image, (x, y))) > 180
    )


def test_a_ten_thousand_character_name_renders_shortened() -> None:
    long_name = "Ю" * 10_000
    view = replace(START, names=(long_name, "x" * 10_000), status="s" * 10_000)
    data = render_board(view)
    assert Image.open(io.BytesIO(data)).size == layout.SIZE
    assert name_pixels(view, Side.WHITE) > 500
    shortened = fit_text(clean_text(long_name, True), layout.NAME_SIZE, 400, True)
    assert shortened.endswith("…") and text_width(shortened, layout.NAME_SIZE, True) <= 400


def test_control_characters_are_stripped_from_names() -> None:
    assert clean_text("Al\x00ice\x07\u202e\u2066") == "Alice"
    assert clean_text("Bob\n\tSmith\r\n") == "Bob Smith"
    assert clean_text("\x1b[31mred") == "[31mred"
    view = replace(START, names=("\x00\x01\x02" * 3000, "A\u0000B\u200fC\ud800"))
    assert Image.open(io.BytesIO(render_board(view))).size == layout.SIZE
    assert name_pixels(view, Side.WHITE) > 20  # an all-control name is drawn as a fallback mark


def test_names_in_many_scripts_keep_their_letters() -> None:
    for name in ("Ёжик в тумане", "Արամ", "ნინო", "Ελένη", "שלום", "مرحبا"):
        assert clean_text(name) == name
        assert name_pixels(replace(START, names=(name, "b")), Side.WHITE) > 40, name


def test_emoji_the_font_lacks_are_dropped_and_those_it_has_are_kept() -> None:
    assert clean_text("Bob 🦄🫠") == "Bob"
    assert clean_text("☺ ♞") == "☺ ♞"
    view = replace(START, names=("🦄", "👨‍👩‍👧 family"))
    assert Image.open(io.BytesIO(render_board(view))).size == layout.SIZE


def test_combining_mark_floods_are_capped() -> None:
    zalgo = "q" + "\u0301" * 500 + "algo"
    assert clean_text(zalgo) == "q\u0301\u0301\u0301…"  # cut at MAX_CODEPOINTS first, then capped
    assert clean_text("q" + "\u0301" * 9 + "x") == "q\u0301\u0301\u0301x"
    render_board(replace(START, names=(zalgo, zalgo * 50)))


def test_a_cut_never_parts_a_letter_from_its_accents() -> None:
    text = "q\u0308\u0301" * 40
    for width in range(20, 300, 7):
        shortened = fit_text(text, 26, width)
        assert shortened.endswith("…")
        kept = shortened[:-1]
        assert text.startswith(kept) and len(kept) % 3 == 0, (width, len(kept))
        assert text_width(shortened, 26) <= width or kept == ""
    assert len(clean_text("é" * 10_000)) == MAX_CODEPOINTS + 1


@settings(max_examples=40, deadline=None)
@given(names=st.tuples(st.text(max_size=200), st.text(max_size=60)), status=st.text(max_size=120))
def test_any_unicode_names_and_status_render(names: tuple[str, str], status: str) -> None:
    data = render_board(replace(START, names=names, status=status, to_move=Side.WHITE, dice=(4, 4)))
    assert data[:2] == b"\xff\xd8"


def test_rendering_from_many_threads_gives_the_same_bytes() -> None:
    views = list(samples().values())
    expected = [render_board(view) for view in views]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(render_board, views * 6))
    assert results == expected * 6


def test_gallery_writes_every_sample_board(tmp_path: Path) -> None:
    assert gallery_main([str(tmp_path)]) == 0
    files = sorted(tmp_path.iterdir())
    assert [f.stem for f in files] == sorted(samples())
    for file in files:
        image = Image.open(file)
        assert image.format == "JPEG" and image.size == layout.SIZE
    stems = " ".join(f.stem for f in files)
    for wanted in ("short-start", "long-start", "hit", "bear-off", "koks", "six-block", "black-view"):
        assert wanted in stems


def test_gallery_runs_as_a_module(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "render.gallery", str(tmp_path / "out")],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "out").glob("*.jpg"))) == len(samples())


def test_the_stack_label_reads_the_full_height_from_any_view() -> None:
    view = BoardView(game="long", points=LONG_START, viewer=Side.BLACK)
    image = picture(view)
    centre = layout.checker_center(view, 12, layout.STACK - 1)  # Black's head, top right for Black
    assert centre[0] > layout.X_RIGHT and centre[1] < layout.Y_GAP
    assert count_pixels(image, centre, 12, lambda rgb: luminance(rgb) > 170) > 25
