"""The real board page (the bot's server, or the sandbox's) driven in Chromium: open a game's page as Telegram
opens a Mini App (its initData handed over by a stand-in Telegram object), read what it shows, and play on
it by tap (touch) or by mouse drag, taking the first movable checker to its first lit destination: the page
offers only the legal steps the server sent, so such a player plays legally to the end of a game."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from testkit.browser import CSP_WATCH, FAKE_TELEGRAM, checker_centre, lit, mouse_drag, wait_drawn, zone_centre

if TYPE_CHECKING:
    from playwright.sync_api import Page

PRESSES = 600  # more than a game of either variant needs
WAIT_MS = 15000


def open_game(page: Page, url: str, init_data: str | None = None) -> None:
    """Open the page at `url` (…/app/?game=ID); with `init_data`, as Telegram would hand it over."""
    page.add_init_script(CSP_WATCH)
    if init_data is not None:
        page.add_init_script(FAKE_TELEGRAM.replace("INIT_DATA", json.dumps(init_data)))
    page.goto(url)
    wait_drawn(page, timeout=WAIT_MS)


def open_refused(page: Page, url: str, init_data: str | None = None) -> str:
    """Open the page at `url` as open_game does, for a person it refuses: the error it shows."""
    page.add_init_script(CSP_WATCH)
    if init_data is not None:
        page.add_init_script(FAKE_TELEGRAM.replace("INIT_DATA", json.dumps(init_data)))
    page.goto(url)
    page.wait_for_selector("#conn.error", timeout=WAIT_MS)
    return page.text_content("#conn") or ""


def version(page: Page) -> int:
    return int(page.get_attribute("#board", "data-version") or -1)


def wait_version(page: Page, newer_than: int, timeout: float = WAIT_MS) -> int:
    """Until the page shows a version newer than `newer_than`; that version."""
    page.wait_for_function(
        "v => +document.getElementById('board').dataset.version > v", arg=newer_than, timeout=timeout
    )
    return version(page)


def buttons(page: Page) -> list[str]:
    """The actions of the buttons shown (data-action), enabled or not."""
    found: list[str] = page.eval_on_selector_all("#buttons button", "els => els.map(e => e.dataset.action)")
    return found


def movable(page: Page) -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        "#board .zone.movable", "els => els.map(e => e.dataset.point)"
    )
    return found


def press_once(page: Page, by: str) -> str | None:
    """One press of the player on the page now: a checker moved (by "tap" or "drag"), else Done, Roll or
    Take; None when the page offers this player nothing to do now (the other side's turn, or the end)."""
    sources = movable(page)
    side = int(page.get_attribute("#board", "data-viewer") or 0)
    if sources:
        source = sources[0]
        start = checker_centre(page, source, side)
        if by == "tap":
            page.touchscreen.tap(*start)
            target = sorted(lit(page))[0]
            page.touchscreen.tap(*zone_centre(page, target))
        else:
            page.mouse.click(*start)  # to read the lit destinations; a second click puts it down again
            target = sorted(lit(page))[0]
            page.mouse.click(*start)
            mouse_drag(page, start, zone_centre(page, target), steps=4)
        return f"{source}->{target}"
    offered = buttons(page)
    for action in ("done", "roll", "take"):
        if action in offered:
            page.locator(f"#buttons button.{action}").click()
            return action
    return None


def is_over(page: Page) -> bool:
    return page.locator("#panel-top.winner, #panel-bottom.winner").count() == 1


def play_to_the_end(page: Page, by: str, presses: int = PRESSES) -> int:
    """Play this page's player's turns until the game is over (the other side being the computer, or
    playing elsewhere); the number of checker moves made on the page."""
    moves = 0
    for _ in range(presses):
        page.wait_for_selector("#board[data-version]:not(.locked)", timeout=WAIT_MS)
        if is_over(page):
            return moves
        before = version(page)
        done = press_once(page, by)
        if done is None:
            wait_version(page, before)
            continue
        moves += "->" in done
        wait_version(page, before)
    raise AssertionError(f"no end after {presses} presses")
