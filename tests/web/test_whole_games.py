"""Whole games played on the page against the stub's computer: short nardy by tap on a phone (touch),
long nardy by mouse drag on a desktop. The page only ever offers what the state's steps allow, so a
player who takes the first movable checker and its first lit destination every time plays legally to
the end: entering from the bar, hitting, bearing off, Done after each turn."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from engine import Side
from testkit.browser import StubServer, StubTable, checker_centre, lit, mouse_drag, open_board, zone_centre

if TYPE_CHECKING:
    from playwright.sync_api import Page

MOVES = 400  # far more than a game of either variant needs


def moved_on(table: StubTable, version: int) -> Callable[[], bool]:
    return lambda: table.version > version


def play_to_the_end(page: Page, server: StubServer, by: str) -> int:
    """Play White's turns on the page until the game is over; the number of moves made on the board."""
    table = server.tables["g"]
    moves = 0
    for _ in range(MOVES):
        page.wait_for_selector(f'#board[data-version="{table.version}"]:not(.locked)')
        if table.game.is_over:
            return moves
        version = table.version
        movable = page.eval_on_selector_all("#board .zone.movable", "els => els.map(e => e.dataset.point)")
        if movable:
            source = movable[0]
            start = checker_centre(page, source, 0)
            if by == "tap":
                page.touchscreen.tap(*start)
                target = sorted(lit(page))[0]
                page.touchscreen.tap(*zone_centre(page, target))
            else:
                page.mouse.click(*start)  # only to read the destinations; a tap on it again puts it down
                target = sorted(lit(page))[0]
                page.mouse.click(*start)
                mouse_drag(page, start, zone_centre(page, target), steps=3)
            moves += 1
        else:
            page.locator("button.done").click()
        server.wait_for(moved_on(table, version), message=f"the press after version {version}")
    raise AssertionError(f"no end after {MOVES} presses")


@pytest.mark.slow
def test_a_whole_short_game_by_tap_on_a_phone(phone: Page, server: StubServer) -> None:
    server.add(StubTable.start("g", "short", (3, 1), computer=Side.BLACK))
    open_board(phone, server, "g", "white")
    moves = play_to_the_end(phone, server, "tap")
    table = server.tables["g"]
    assert table.game.result is not None
    assert moves >= 15  # at least every white checker was borne off, or black won after White's moves
    assert phone.locator("#buttons button").all_text_contents() == ["↻ Rematch"]
    assert phone.locator("#panel-top.winner, #panel-bottom.winner").count() == 1


@pytest.mark.slow
def test_a_whole_long_game_by_mouse_drag(desktop: Page, server: StubServer) -> None:
    server.add(StubTable.start("g", "long", (5, 3), computer=Side.BLACK))
    open_board(desktop, server, "g", "white")
    moves = play_to_the_end(desktop, server, "drag")
    assert server.tables["g"].game.result is not None
    assert moves >= 15
    assert desktop.locator("#buttons button").all_text_contents() == ["↻ Rematch"]
