"""The board page as a test sees it in the browser: opened (inside or outside a stand-in Telegram) and waited
for, where its checkers and columns are, which destinations are lit, a mouse drag and a finger's drag,
and what went wrong on it (script and console errors, failed requests, Content Security Policy
violations)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from testkit.browser.stub_server import StubServer

if TYPE_CHECKING:
    from playwright.sync_api import Page

CSP_WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__csp.push(e.violatedDirective + ' ' + e.blockedURI);
});
"""


# Telegram's WebApp object as far as the page uses it, outside Telegram (its colours: the browser's).
FAKE_TELEGRAM = """
window.Telegram = {WebApp: {initData: INIT_DATA, initDataUnsafe: {}, colorScheme: '', themeParams: {},
  ready: function () {}, expand: function () {}, onEvent: function () {}}};
"""


def open_board(page: Page, server: StubServer, game: str, init_data: str | None = None) -> None:
    """Open `game`'s board on `page` and wait for it drawn. Without `init_data` the page is outside
    Telegram (initData '': the stub's `guest` side); with it, a stand-in Telegram object hands the page
    that initData ("white", "black"; anything else watches) and the page skips telegram.org's script."""
    page.add_init_script(CSP_WATCH)
    if init_data is not None:
        page.add_init_script(FAKE_TELEGRAM.replace("INIT_DATA", json.dumps(init_data)))
    page.goto(server.page_url(game))
    wait_drawn(page)


def wait_drawn(page: Page, version: int | None = None, timeout: float = 15000) -> None:
    """Until the board shows a state (of `version`, if given)."""
    if version is None:
        page.wait_for_selector("#board[data-version]", timeout=timeout)
    else:
        page.wait_for_selector(f'#board[data-version="{version}"]', timeout=timeout)


def centre(page: Page, selector: str) -> tuple[float, float]:
    """The middle of the first element matching `selector`, in the page's CSS pixels."""
    box = page.locator(selector).first.bounding_box()
    if box is None:
        raise AssertionError(f"{selector} is not shown")
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def checker_centre(page: Page, point: int | str, side: int) -> tuple[float, float]:
    """The middle of `side`'s top checker on `point` (absolute 1..24, or "bar")."""
    locator = page.locator(f'#board .checker[data-point="{point}"][data-side="{side}"]')
    count = locator.count()
    if not count:
        raise AssertionError(f"no checker of side {side} on {point}")
    box = locator.nth(count - 1).bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def zone_centre(page: Page, point: int | str) -> tuple[float, float]:
    """The middle of the column of `point` (absolute 1..24, "bar" or "off")."""
    return centre(page, f'#board .zone[data-point="{point}"]')


def lit(page: Page) -> set[str]:
    """The lit destinations (their data-point) on the page now."""
    return set(page.eval_on_selector_all("#board .zone.lit", "els => els.map(e => e.dataset.point)"))


def mouse_drag(page: Page, start: tuple[float, float], end: tuple[float, float], steps: int = 8) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=steps)
    page.mouse.up()


def touch_drag(page: Page, start: tuple[float, float], end: tuple[float, float], steps: int = 8) -> None:
    """A finger put down on `start`, moved to `end` and lifted (Chromium's touch input, through CDP)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [_touch(start)]})
        for k in range(1, steps + 1):
            x = start[0] + (end[0] - start[0]) * k / steps
            y = start[1] + (end[1] - start[1]) * k / steps
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [_touch((x, y))]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()


def _touch(at: tuple[float, float]) -> dict[str, Any]:
    return {"x": at[0], "y": at[1], "id": 1, "radiusX": 6, "radiusY": 6, "force": 1}


def csp_violations(page: Page) -> list[str]:
    found: list[str] = page.evaluate("window.__csp || []")
    return found


class Problems:
    """What went wrong on a page: script errors, console errors (CSP reports among them), failed requests."""

    def __init__(self, page: Page) -> None:
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        page.on("console", lambda m: self.errors.append(f"console: {m.text}") if m.type == "error" else None)
        page.on("requestfailed", lambda r: self.errors.append(f"request failed: {r.url} {r.failure}"))

    def csp(self) -> list[str]:
        return [e for e in self.errors if "Content Security Policy" in e]
