"""The board page draws what the state says: checkers per point, stacks, dice, pips, names, the cube, the
last move, in render/layout.py's geometry, from either side, in English and Russian, on a 360-px phone."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest

from bot.web.protocol import Press
from engine import Side
from render import layout as L
from render.view import BoardView
from testkit.browser import StubServer, StubTable, open_board

if TYPE_CHECKING:
    from playwright.sync_api import Page


def checkers_per_point(page: Page) -> dict[str, list[tuple[int, str]]]:
    """data-point -> [(side, label text)] of the checker elements drawn on it."""
    found = page.eval_on_selector_all(
        "#board .checker",
        "els => els.map(e => [e.dataset.point, +e.dataset.side, (e.querySelector('.count') || {}).textContent || ''])",
    )
    out: dict[str, list[tuple[int, str]]] = {}
    for point, side, label in found:
        out.setdefault(point, []).append((side, label))
    return out


def state_of(server: StubServer, game: str) -> dict[str, Any]:
    return next(m for m in reversed(server.sent) if m.get("type") == "state" and m["game"] == game)


@pytest.mark.parametrize("variant", ["short", "long"])
@pytest.mark.parametrize("side", ["white", "black"])
def test_the_board_draws_the_start_of_each_variant(
    desktop: Page, server: StubServer, variant: str, side: str
) -> None:
    first = Side.WHITE if side == "white" else Side.BLACK
    server.add(StubTable.start("g", variant, (6, 1) if variant == "short" else (5, 3), first=first))
    open_board(desktop, server, "g", side)
    view = state_of(server, "g")["view"]
    drawn = checkers_per_point(desktop)
    for index, count in enumerate(view["points"]):
        on_point = drawn.get(str(index + 1), [])
        assert len(on_point) == min(abs(count), L.STACK), f"A{index + 1}: {count}"
        if count:
            assert {s for s, _ in on_point} == {0 if count > 0 else 1}
            labels = [label for _, label in on_point if label]
            assert labels == ([str(abs(count))] if abs(count) > L.STACK else [])
    assert "bar" not in drawn
    assert desktop.locator("#board .die").count() == 2
    assert desktop.locator("#board .slab").count() == 0
    assert desktop.locator("#board .tray-count").all_text_contents() == ["0", "0"]
    pips = "167" if variant == "short" else "360"
    assert desktop.locator(".pips-value").all_text_contents() == [pips, pips]
    # you at the bottom, the other side on top, whose turn highlighted
    assert desktop.locator("#panel-bottom .name").text_content() == ("Alice" if side == "white" else "Bob")
    assert desktop.locator("#panel-bottom.turn").count() == 1
    assert desktop.locator("#status").text_content() == f"{'Alice' if side == 'white' else 'Bob'} to move"


def board_xy(page: Page, selector: str) -> list[tuple[float, float]]:
    """The board coordinates (render/layout.py's pixels) of the elements' translate()."""
    transforms = page.eval_on_selector_all(selector, "els => els.map(e => e.getAttribute('transform'))")
    out = []
    for text in transforms:
        match = re.match(r"translate\(([-\d.]+)[ ,]+([-\d.]+)\)", text)
        assert match, text
        out.append((float(match[1]), float(match[2])))
    return out


@pytest.mark.parametrize("variant", ["short", "long"])
def test_checkers_sit_where_the_picture_puts_them(desktop: Page, server: StubServer, variant: str) -> None:
    """Black's view of a start position: every checker at render/layout.py's checker_center."""
    server.add(StubTable.start("g", variant, (6, 1) if variant == "short" else (5, 3), first=Side.BLACK))
    open_board(desktop, server, "g", "black")
    view = state_of(server, "g")["view"]
    picture = BoardView(game=variant, points=tuple(view["points"]), viewer=Side.BLACK)
    for index, count in enumerate(view["points"]):
        if count:
            expected = [L.checker_center(picture, index + 1, k) for k in range(min(abs(count), L.STACK))]
            assert board_xy(desktop, f'#board .checker[data-point="{index + 1}"]') == expected


def test_a_hit_checker_on_the_bar_and_the_last_move_are_drawn(desktop: Page, server: StubServer) -> None:
    """White hits on its 5-point with 6-2 (13/7/5*): black's checker goes to the bar, the marks show it."""
    table = server.add(
        StubTable.at("g", "short", {24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 4, 20: 1}, (6, 2))
    )
    open_board(desktop, server, "g", "white")
    assert table.apply(Press(1, "move", 13, 6), Side.WHITE) is None
    assert table.apply(Press(2, "move", 7, 2), Side.WHITE) is None
    server.push("g")
    desktop.wait_for_selector('#board[data-version="3"]')
    assert desktop.locator('#board .checker[data-point="bar"][data-side="1"]').count() == 1
    assert desktop.locator('#board .checker[data-point="5"][data-side="0"]').count() == 1
    assert desktop.locator("#board .mark-hit").count() == 2  # on the point and on the bar
    assert desktop.locator("#board .mark-arrived").count() == 1
    assert desktop.locator("#board .mark-left").count() == 1
    marked = desktop.eval_on_selector_all("#board .mark-num-bg", "els => els.map(e => e.dataset.point)")
    assert sorted(marked, key=int) == ["5", "7", "13"]  # as the picture: every point the play touched
    assert desktop.locator("#board .die.used").count() == 2
    # black 181 - 20 + 25 (its hit checker counts 25 on the bar), white 167 - 8; black on top
    assert desktop.locator(".pips-value").all_text_contents() == ["186", "159"]


def test_borne_off_checkers_fill_the_trays(desktop: Page, server: StubServer) -> None:
    server.add(StubTable.at("g", "short", {1: 2, 2: 2}, {1: 3, 3: 1}, (6, 5)))
    open_board(desktop, server, "g", "white")
    white = desktop.locator('#board .tray[data-side="0"]')
    black = desktop.locator('#board .tray[data-side="1"]')
    assert white.locator(".slab").count() == 11
    assert black.locator(".slab").count() == 11
    assert white.locator(".tray-count").text_content() == "11"
    movable = desktop.eval_on_selector_all("#board .zone.movable", "els => els.map(e => e.dataset.point)")
    assert movable == ["2"]  # a die above the highest point bears off from the highest


def test_the_cube_shows_its_value_and_an_offer(desktop: Page, server: StubServer) -> None:
    table = server.add(StubTable.start("g", "short", None, cube=True, match_to=5, score=(2, 1)))
    open_board(desktop, server, "g", "white")
    cube = desktop.locator("#board .cube")
    assert cube.get_attribute("data-value") == "1"
    assert desktop.locator("#match").text_content() == "Match to 5"
    assert desktop.locator(".score").all_text_contents() == ["1", "2"]  # black on top, white (you) below
    buttons = desktop.locator("#buttons button").all_text_contents()
    assert buttons == ["⚂ Roll", "Double to 2", "⚑ Resign"]
    assert table.apply(Press(1, "double"), Side.WHITE) is None
    server.push("g")
    desktop.wait_for_selector("#board .cube.offered")
    assert desktop.locator("#board .cube").get_attribute("data-value") == "2"
    assert desktop.locator("#buttons button").all_text_contents() == ["⚑ Resign"]  # black decides


def test_russian_strings_follow_the_state(desktop: Page, server: StubServer) -> None:
    server.add(StubTable.start("g", "short", (6, 1), lang="ru"))
    open_board(desktop, server, "g", "white")
    assert desktop.locator("#buttons button").all_text_contents() == ["? Подсказка", "⚑ Сдаться"]
    assert desktop.locator(".pips-label").first.text_content() == "пипсы "
    assert desktop.evaluate("document.documentElement.lang") == "ru"


def test_a_watcher_sees_the_board_and_can_press_nothing(desktop: Page, server: StubServer) -> None:
    server.add(StubTable.start("g", "short", (6, 1)))
    open_board(desktop, server, "g", "someone else")
    assert desktop.locator("#buttons button").count() == 0
    assert desktop.locator("#board .zone.movable").count() == 0
    assert desktop.locator("#conn").text_content() == "watching"
    desktop.mouse.click(*_zone(desktop, 13))
    desktop.mouse.click(*_zone(desktop, 7))
    desktop.wait_for_timeout(150)
    assert server.presses == []


def _zone(page: Page, point: int) -> tuple[float, float]:
    box = page.locator(f'#board .zone[data-point="{point}"]').bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


@pytest.mark.parametrize("variant", ["short", "long"])
def test_no_horizontal_scroll_on_a_360_px_phone(phone: Page, server: StubServer, variant: str) -> None:
    """Long names, a long status and hint, a match score and every button still fit in 360 px."""
    name = "Александра Константинопольская-Длинноимённая"
    server.add(
        StubTable.start(
            "g",
            variant,
            (6, 1) if variant == "short" else (5, 3),
            names=(name, name + " II"),
            match_to=7,
            score=(6, 5),
            hint_text="💡 Best: 24/18 13/12 — your chance to win: 51.3 % " * 3,
        )
    )
    open_board(phone, server, "g", "white")
    phone.locator("#buttons button.hint").click()
    phone.wait_for_selector("#message:not([hidden])")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 360
    assert phone.evaluate("document.body.scrollWidth") <= 360
    for box in phone.locator("#buttons button").all():
        size = box.bounding_box()
        assert size is not None and size["height"] >= 32 and size["width"] >= 32
    board = phone.locator("#board").bounding_box()
    assert board is not None and board["width"] >= 340
