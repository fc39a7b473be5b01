"""Fixtures of the board page's tests: Debian's Chromium (skipped where it is missing), the stub server,
a desktop page and a phone page, each checked at the end for script errors and CSP violations; and for the
pages against the bot itself, the fake Bot API started beside the browser (`tg`) and the bot with its page
server (`web`)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import pytest

from bot.config import WebAppConfig
from bot.model.flow import ScriptedDice, engine_computer
from testkit.browser import DESKTOP, PHONE, Problems, StubServer, chromium_path, in_thread, launch
from testkit.fake_telegram import FakeTelegram
from testkit.fake_telegram.runner import BotRunner

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if chromium_path() is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed ('.[test]')")
    with sync_api.sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture
def server() -> Iterator[StubServer]:
    with StubServer() as stub:
        yield stub


@contextmanager
def _page(browser: Browser, options: dict[str, Any]) -> Iterator[Page]:
    context = browser.new_context(**options)
    page = context.new_page()
    problems = Problems(page)
    yield page
    context.close()
    assert not [e for e in problems.errors if e.startswith("page error")], problems.errors
    assert not problems.csp(), problems.errors


@pytest.fixture
def desktop(browser: Browser) -> Iterator[Page]:
    """A desktop page (1280 px wide, a mouse)."""
    with _page(browser, DESKTOP) as page:
        yield page


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    """A phone page: 360 x 740 CSS pixels, touch, a mobile viewport."""
    with _page(browser, PHONE) as page:
        yield page


@pytest.fixture
def tg() -> Iterator[FakeTelegram]:
    """The fake Bot API, started beside the browser (tests/conftest.py's starts it in this thread, which
    Playwright's sync API holds)."""
    server = FakeTelegram()

    def start() -> bool:
        server.start()
        return True

    in_thread(start)
    yield server
    server.stop()


@pytest.fixture
def web(tg: FakeTelegram, redis_url: str, dice: ScriptedDice) -> Iterator[BotRunner]:
    """The bot with its page on a free port of 127.0.0.1 (the Mini App's short name: "board")."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    config = WebAppConfig(url=f"http://127.0.0.1:{port}/app/", listen="127.0.0.1", port=port, name="board")
    runner = BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=3), webapp=config)
    runner.start()
    tg.settlers.append(runner.settle)
    yield runner
    tg.settlers.remove(runner.settle)
    runner.stop()
