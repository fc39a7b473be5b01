"""Debian's Chromium found and launched headless through Playwright (which downloads no browser here), and
the two devices the page is tried on: a phone and a desktop."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
PHONE: dict[str, Any] = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 860}}


def chromium_path() -> str | None:
    """Debian's Chromium (or NARDY_CHROMIUM), or None where it is not installed."""
    named = os.environ.get("NARDY_CHROMIUM")
    for path in ((named,) if named else ()) + CHROMIUM_PATHS:
        if path and Path(path).is_file() and os.access(path, os.X_OK):
            return path
    found = shutil.which("chromium")
    return found


def launch(playwright: Playwright) -> Browser:
    """Headless Chromium from the system (Playwright downloads no browser here)."""
    path = chromium_path()
    if path is None:
        raise RuntimeError("no Chromium: apt-get install chromium (or set NARDY_CHROMIUM)")
    return playwright.chromium.launch(executable_path=path, headless=True, args=["--no-sandbox"])


T = TypeVar("T")


def in_thread(work: Callable[[], T]) -> T:
    """`work()` in a thread of its own: Playwright's sync API holds this thread's event loop, and the fake
    Bot API's start (or an asyncio.run) needs one of its own."""
    found: list[T] = []
    thread = threading.Thread(target=lambda: found.append(work()))
    thread.start()
    thread.join(60)
    assert found, "the work in a thread failed (see the log)"
    return found[0]
