"""The Mini App's home (bot/web/static/home.html) driven in Chromium: opened as Telegram opens a Mini App (a
stand-in Telegram object hands it initData, and a Direct Link's start_param), its games read, a game against
the computer started from it."""

from __future__ import annotations

import json
import urllib.parse
from typing import TYPE_CHECKING, Any

from testkit.browser import CSP_WATCH

if TYPE_CHECKING:
    from playwright.sync_api import Page

WAIT_MS = 15000
# Telegram.WebApp as the home and the board use it: initData, initDataUnsafe.start_param, the theme, the
# client's version, and the calls they make recorded in window.__tg.calls (BackButton's handler: __tg.back).
FAKE_TELEGRAM = """
window.__tg = {calls: [], back: null};
(function () {
  var version = VERSION;
  function atLeast(wanted) {
    var a = version.split("."), b = wanted.split(".");
    for (var i = 0; i < Math.max(a.length, b.length); i++) {
      var x = parseInt(a[i] || "0", 10), y = parseInt(b[i] || "0", 10);
      if (x !== y) { return x > y; }
    }
    return true;
  }
  function record(name) { return function () { __tg.calls.push([name].concat([].slice.call(arguments))); }; }
  window.Telegram = {WebApp: {initData: INIT_DATA, initDataUnsafe: START, colorScheme: SCHEME, themeParams: {},
    version: version, isVersionAtLeast: atLeast,
    ready: function () {}, expand: function () {}, onEvent: function () {},
    switchInlineQuery: record("switchInlineQuery"), openTelegramLink: record("openTelegramLink"),
    BackButton: {show: record("BackButton.show"), hide: record("BackButton.hide"),
      onClick: function (f) { __tg.back = f; }, offClick: function () {}}}};
})();
"""
NEW_CLIENT, OLD_CLIENT = "8.0", "6.0"  # Telegram clients: with switchInlineQuery, BackButton...; with neither


def fake_telegram(
    init_data: str, start_param: str | None = None, scheme: str = "", version: str = NEW_CLIENT
) -> str:
    """FAKE_TELEGRAM's script handing over `init_data` (and `start_param`) as a client of `version` would."""
    start = {"start_param": start_param} if start_param else {}
    script = FAKE_TELEGRAM.replace("INIT_DATA", json.dumps(init_data)).replace("START", json.dumps(start))
    return script.replace("VERSION", json.dumps(version)).replace("SCHEME", json.dumps(scheme))


def open_home(
    page: Page,
    url: str,
    init_data: str | None = None,
    start_param: str | None = None,
    scheme: str = "",
    version: str = NEW_CLIENT,
) -> None:
    """Open the home at `url` (…/app/); with `init_data` (and `start_param`), as a Telegram client of
    `version` would hand them over. Waits until the home shows the player's games (or what went wrong),
    unless a start parameter sends it on to a board."""
    page.add_init_script(CSP_WATCH)
    if init_data is not None:
        page.add_init_script(fake_telegram(init_data, start_param, scheme, version))
    page.goto(url)
    if start_param is None:
        wait_home(page)


def wait_home(page: Page) -> None:
    page.wait_for_selector('#home[aria-busy="false"]', timeout=WAIT_MS)


def games(page: Page) -> list[str]:
    """The games in progress the home lists: their ids."""
    return [b.get_attribute("data-game") or "" for b in page.query_selector_all("#games button.game")]


def start_computer_game(page: Page, fmt: str = "short", level: str = "beginner") -> None:
    """Choose `fmt` and `level` and press Start: the board opens."""
    page.select_option("#format", fmt)
    page.select_option("#level", level)
    page.click("#start")
    page.wait_for_url("**/app/?game=*", timeout=WAIT_MS)


def seek(page: Page, variant: str = "short", length: int = 1, clock: str = "") -> None:
    """Choose a quick match's variant, length and clock and press 🎲 Find an opponent."""
    page.select_option("#quick-variant", variant)
    page.select_option("#quick-length", str(length))
    page.select_option("#quick-clock", clock)
    page.click("#find")


def wait_waiting(page: Page) -> str:
    """Until the home shows its search waiting: the waiting line."""
    page.wait_for_selector("#waiting:not([hidden])", timeout=WAIT_MS)
    return page.text_content("#waiting-text") or ""


def telegram_calls(page: Page) -> list[list[Any]]:
    """What the page asked of the stand-in Telegram object: [method, arguments...] in order."""
    return list(page.evaluate("window.__tg ? window.__tg.calls : []"))


def game_of(url: str) -> str:
    """The game a board's address names (?game=)."""
    return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).get("game", [""])[0]
