"""The board page (bot/web/static) in a real browser: Debian's Chromium driven by Playwright, and a stub
server that serves the page and speaks its protocol (bot/web/protocol.py) over the real engine.

- launch.py: Chromium found and launched headless, the phone and desktop devices;
- stub_server.py: `StubServer`, aiohttp on 127.0.0.1 in a thread of its own, scripted from the test's thread;
- stub_table.py: `StubTable`, one game on it (the engine's Game, the moves made this turn, a version per
  change) and what each page sees of it;
- page.py: the page opened and waited for, where its checkers are, mouse and touch drags, its problems;
- screenshots.py: the pictures in docs/ (`python -m testkit.browser docs`).

The stub decides as the bot's flow would in outline (the version, the turn, the engine's legal steps),
not in detail: it is the page's test harness, not a second server. Tests and benches import its names
from here.
"""

from testkit.browser.launch import CHROMIUM_PATHS, DESKTOP, PHONE, chromium_path, in_thread, launch
from testkit.browser.page import (
    CSP_WATCH,
    FAKE_TELEGRAM,
    Problems,
    centre,
    checker_centre,
    csp_violations,
    lit,
    mouse_drag,
    open_board,
    touch_drag,
    wait_drawn,
    zone_centre,
)
from testkit.browser.stub_server import StubServer
from testkit.browser.stub_table import NO_SUCH_MOVE, NOT_YOUR_TURN, STALE, STATUS, StubTable

__all__ = [
    "CHROMIUM_PATHS",
    "CSP_WATCH",
    "DESKTOP",
    "FAKE_TELEGRAM",
    "NOT_YOUR_TURN",
    "NO_SUCH_MOVE",
    "PHONE",
    "STALE",
    "STATUS",
    "Problems",
    "StubServer",
    "StubTable",
    "centre",
    "checker_centre",
    "chromium_path",
    "csp_violations",
    "in_thread",
    "launch",
    "lit",
    "mouse_drag",
    "open_board",
    "touch_drag",
    "wait_drawn",
    "zone_centre",
]
