"""Fixtures of the board page's tests: Debian's Chromium (skipped where it is missing), the stub server,
a desktop page and a phone page, each checked at the end for script errors and CSP violations."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import pytest

from testkit.browser import DESKTOP, PHONE, Problems, StubServer, chromium_path, launch

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
