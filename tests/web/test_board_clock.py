"""A live game's clocks tick on the page between states: counted from the state's server time, corrected by
the clock offset the page measured at the hello (the welcome's `now`), the running side's delay spent before
its reserve, stopped at 0:00 until the server applies the flag, which the page shows the moment its state
comes. The browser's clock is Playwright's, paused and moved by the test; the server's is the stub's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.web.protocol import clock_json
from engine import Side
from testkit.browser import StubServer, StubTable, open_board

if TYPE_CHECKING:
    from playwright.sync_api import Page

SERVER_TIME = 1_900_000_000.0  # the server's clock: years away from the browser's, which the offset bridges
BROWSER_TIME = 1_700_000_000  # seconds


def clocks(page: Page) -> list[str]:
    return [
        page.text_content(f"#panel-bottom .clock[data-side='{Side.WHITE.value}']") or "",
        page.text_content(f"#panel-top .clock[data-side='{Side.BLACK.value}']") or "",
    ]


def test_the_running_clock_ticks_down_from_the_servers_time_and_stops_at_zero(
    server: StubServer, desktop: Page
) -> None:
    table = server.add(StubTable.start("g", "short", (6, 1)))
    table.clock = clock_json((60.0, 90.0), Side.WHITE, 5.0, SERVER_TIME)
    server.now = lambda: SERVER_TIME + 1.0  # the welcome comes a second after the save the state shows
    desktop.clock.install(time=BROWSER_TIME)
    desktop.clock.pause_at(BROWSER_TIME + 10)
    open_board(desktop, server, "g")
    assert clocks(desktop) == ["1:00 +4 s", "1:30"]  # a second of the delay gone already
    assert desktop.locator(".clock.running").count() == 1
    desktop.clock.run_for(3000)
    assert clocks(desktop) == ["1:00 +1 s", "1:30"]
    desktop.clock.run_for(4000)  # the delay spent, then 3 s of the reserve
    assert clocks(desktop) == ["0:57", "1:30"]
    desktop.clock.run_for(120_000)
    assert clocks(desktop) == ["0:00", "1:30"]
    assert desktop.locator(".clock.out").count() == 1  # at 0:00, waiting for the server's flag


def test_the_flag_shows_the_moment_the_server_applies_it(server: StubServer, desktop: Page) -> None:
    table = server.add(StubTable.start("g", "short", (6, 1)))
    table.clock = clock_json((10.0, 90.0), Side.WHITE, 0.0, SERVER_TIME)
    server.now = lambda: SERVER_TIME
    desktop.clock.install(time=BROWSER_TIME)
    desktop.clock.pause_at(BROWSER_TIME + 10)
    open_board(desktop, server, "g")
    desktop.clock.run_for(11_000)
    assert clocks(desktop)[0] == "0:00"
    table.game = table.game.resign(Side.WHITE)  # the sweeper's flag, as far as the page can tell
    table.clock = clock_json((0.0, 90.0), None, 0.0, SERVER_TIME + 10)
    table.version += 1
    server.push("g")
    desktop.wait_for_selector(f'#board[data-version="{table.version}"]')
    assert (desktop.text_content("#status") or "").startswith("Bob wins")
    assert clocks(desktop) == ["0:00", "1:30"]
    assert desktop.locator(".clock.running").count() == 0 and desktop.locator(".clock.out").count() == 0


def test_a_new_state_restarts_the_count_from_its_own_server_time(server: StubServer, desktop: Page) -> None:
    table = server.add(StubTable.start("g", "short", (6, 1)))
    table.clock = clock_json((60.0, 90.0), Side.WHITE, 0.0, SERVER_TIME)
    server.now = lambda: SERVER_TIME
    desktop.clock.install(time=BROWSER_TIME)
    desktop.clock.pause_at(BROWSER_TIME + 10)
    open_board(desktop, server, "g")
    desktop.clock.run_for(20_000)
    assert clocks(desktop) == ["0:40", "1:30"]
    table.clock = clock_json((40.0, 90.0), Side.BLACK, 0.0, SERVER_TIME + 20)  # white's turn ended
    table.version += 1
    server.push("g")
    desktop.wait_for_selector(f'#board[data-version="{table.version}"]')
    desktop.clock.run_for(5000)
    assert clocks(desktop) == ["0:40", "1:25"]


def test_a_game_without_clocks_shows_none(server: StubServer, desktop: Page) -> None:
    server.add(StubTable.start("g", "short", (6, 1)))
    open_board(desktop, server, "g")
    assert desktop.locator(".clock").count() == 0
