"""The sandbox as README starts it (`python -m bot --sandbox`, a process of its own): sign in by a name, a
whole game against the computer played on the page by mouse drag, a friend invited by a link opened in
another tab of the same browser (each tab its own person), and a clean stop on SIGTERM."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from testkit.board_pages import buttons, movable, play_to_the_end, press_once, version, wait_version
from testkit.browser import DESKTOP, Problems, wait_drawn

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python -m bot --sandbox --port 0` running; the sign-in page's URL it printed."""
    where = tmp_path_factory.mktemp("sandbox")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NARDY_COMPUTER_PROCESSES": "0"}
    env.pop("BOT_TOKEN", None)
    log = (where / "sandbox.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "--sandbox", "--port", "0"],
        cwd=where,
        env=env,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"open (http://127\.0\.0\.1:\d+/app/sandbox/) in your browser", line)
    assert found, (line, (where / "sandbox.log").read_text())
    yield found[1]
    process.send_signal(signal.SIGTERM)
    assert process.wait(10) == 0, (where / "sandbox.log").read_text()
    log.close()


def sign_in(page: Page, url: str, name: str) -> None:
    page.goto(url)
    page.fill("#name", name)
    page.click("#signin-go")
    page.wait_for_selector("#home:not([hidden])")
    assert page.text_content("#me") == name


def test_a_whole_long_game_against_the_computer_by_mouse_drag(sandbox: str, desktop: Page) -> None:
    sign_in(desktop, sandbox, "Alice")
    desktop.select_option("#computer-variant", "long")
    desktop.click("#levels button[data-level=beginner]")
    wait_drawn(desktop, timeout=15000)
    assert re.search(r"/app/s/[A-Za-z0-9_-]+/\?game=", desktop.url), desktop.url
    names = desktop.locator(".panel .name").all_text_contents()
    assert "Alice" in names and any("Computer" in n for n in names), names
    moves = play_to_the_end(desktop, "drag")
    assert moves >= 15
    assert buttons(desktop) == ["rematch"]
    before = version(desktop)
    desktop.locator("#buttons button.rematch").click()
    wait_version(desktop, before)
    assert "resign" in buttons(desktop)  # the next game of the series is on


def test_a_friend_in_another_tab_of_the_same_browser(sandbox: str, browser: Browser) -> None:
    context = browser.new_context(**DESKTOP)
    alice, bob = context.new_page(), context.new_page()
    problems = [Problems(alice), Problems(bob)]
    sign_in(alice, sandbox, "Alice")
    alice.select_option("#friend-variant", "short")
    alice.click("#invite")
    alice.wait_for_selector("#invitation:not([hidden])")
    link = alice.input_value("#link")
    assert link.startswith(sandbox + "?invite="), link
    bob.goto(link)
    bob.wait_for_selector("#invited:not([hidden])")
    bob.fill("#name", "Bob")
    bob.click("#signin-go")
    wait_drawn(bob, timeout=15000)
    wait_drawn(alice, timeout=15000)  # her start page saw the game begin and opened it
    assert (
        alice.get_attribute("#board", "data-viewer") == "0"
        and bob.get_attribute("#board", "data-viewer") == "1"
    )
    for _ in range(4):  # a few turns each, every move seen on the other tab
        mover, other = (alice, bob) if movable(alice) or "done" in buttons(alice) else (bob, alice)
        before = version(other)
        assert press_once(mover, "drag") is not None
        assert wait_version(other, before) == wait_version(mover, before)
        time.sleep(0.05)
    context.close()
    for found in problems:
        assert not [e for e in found.errors if e.startswith("page error")], found.errors
        assert not found.csp(), found.errors
