"""The board page without a mouse or a finger: every control is reached by Tab, a move is made from the
list of legal moves (buttons a screen reader reads: "From point 13 to point 7"), the focus stays with the
moves as the turn goes on, and the board's stacks are labelled for screen readers."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engine import Side
from testkit.browser import StubServer, StubTable, open_board

if TYPE_CHECKING:
    from playwright.sync_api import Page

FOCUSED = "document.activeElement ? document.activeElement.textContent : ''"
IN_MOVES = "!!(document.activeElement && document.activeElement.closest('#moves'))"


def tab_to(page: Page, test: str, most: int = 30) -> None:
    """Press Tab until `test` (a script) holds for the focused element."""
    for _ in range(most):
        if page.evaluate(test):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{test} never held within {most} Tabs; the focus is on {page.evaluate(FOCUSED)!r}")


def test_a_turn_is_played_by_keyboard_only(server: StubServer, desktop: Page) -> None:
    table = server.add(StubTable.start("g", "short", (6, 1)))
    open_board(desktop, server, "g")
    hidden = desktop.locator("#moves").bounding_box()
    assert hidden is not None and hidden["width"] <= 1  # out of sight until the keyboard comes in
    tab_to(desktop, IN_MOVES)
    box = desktop.locator("#moves").bounding_box()
    assert box is not None and box["width"] > 100  # in sight once the keyboard is in it
    first = desktop.evaluate(FOCUSED)
    assert re.fullmatch(r"From point \d+ to point \d+", first), first
    src, die = (
        int(v)
        for v in desktop.evaluate("[document.activeElement.dataset.src, document.activeElement.dataset.die]")
    )
    desktop.keyboard.press("Enter")
    desktop.wait_for_selector('#board[data-version="2"]')
    assert server.presses[-1] == {"type": "press", "version": 1, "action": "move", "src": src, "die": die}
    desktop.wait_for_function(IN_MOVES)  # the focus is back on the moves left
    desktop.keyboard.press("Enter")
    desktop.wait_for_selector('#board[data-version="3"]')
    assert [p["action"] for p in server.presses] == ["move", "move"]
    desktop.wait_for_function("document.activeElement && document.activeElement.closest('#buttons')")
    tab_to(desktop, "document.activeElement.dataset.action === 'done'")
    desktop.keyboard.press("Enter")
    desktop.wait_for_selector('#board[data-version="4"]')
    assert [p["action"] for p in server.presses] == ["move", "move", "done"]
    assert table.game.turn is Side.BLACK


def test_resigning_by_keyboard_asks_first_and_escape_takes_it_back(server: StubServer, desktop: Page) -> None:
    server.add(StubTable.start("g", "short", (6, 1)))
    open_board(desktop, server, "g")
    tab_to(desktop, "document.activeElement.dataset.action === 'resign'")
    desktop.keyboard.press("Enter")
    assert desktop.is_visible("#confirm")
    assert desktop.evaluate("document.activeElement.id") == "confirm-no"
    desktop.keyboard.press("Escape")
    assert not desktop.is_visible("#confirm") and server.presses == []


def test_the_boards_stacks_are_labelled_for_screen_readers(server: StubServer, desktop: Page) -> None:
    server.add(StubTable.at("g", "short", {24: 2, 13: 5, 25: 1}, {19: 2, 6: 5}, (6, 1)))
    open_board(desktop, server, "g")
    labels = desktop.eval_on_selector_all(
        "#board [aria-label]", "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert "Point 24: White, 2" in labels and "Point 13: White, 5" in labels
    assert "Bar: White, 1" in labels and "Point 19: Black, 5" in labels and "Point 6: Black, 2" in labels
    assert "Borne off: White, 7" in labels and "Borne off: Black, 8" in labels
    hidden = desktop.locator('#board .checker[data-point][data-index="1"]').first.get_attribute("aria-hidden")
    assert hidden == "true"  # one label a stack, not one a checker
    assert desktop.get_attribute("#board", "role") == "group"


def test_a_finished_games_review_is_a_link_reached_by_keyboard(server: StubServer, desktop: Page) -> None:
    server.add(StubTable.start("g", "short", (6, 1)))
    open_board(desktop, server, "g")
    assert desktop.locator("#buttons a.review").count() == 0  # no review while the game goes on
    tab_to(desktop, "document.activeElement.dataset.action === 'resign'")
    desktop.keyboard.press("Enter")
    desktop.keyboard.press("Shift+Tab")  # from "No, play on" to "Yes, resign"
    desktop.keyboard.press("Enter")
    desktop.wait_for_selector("#buttons a.review")  # the game is over
    tab_to(desktop, "document.activeElement.classList.contains('review')")
    assert desktop.evaluate(FOCUSED).endswith("Game review")
    href = desktop.evaluate("document.activeElement.href")
    assert "?review=g%2F1" in href and href.startswith(server.url), href
