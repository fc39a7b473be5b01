"""The page and its socket: the hello it sends, a press in flight locking the board, a refusal shown and
the board as the last state says, a dropped socket recovered with the truth, a fatal error not retried,
and a Content-Security-Policy with nothing inline that the page never violates."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.web import CONTENT_SECURITY_POLICY, STATIC_DIR
from bot.web.protocol import Press
from engine import Side
from testkit.browser import (
    CSP_WATCH,
    FAKE_TELEGRAM,
    Problems,
    StubServer,
    StubTable,
    checker_centre,
    csp_violations,
    lit,
    open_board,
    wait_drawn,
    zone_centre,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


def tap_move(page: Page, src: int, dst: int) -> None:
    page.mouse.click(*checker_centre(page, src, 0))
    page.mouse.click(*zone_centre(page, dst))


def test_outside_telegram_the_hello_names_the_game_of_the_url(desktop: Page, server: StubServer) -> None:
    server.add(StubTable.start("Gm_1-x", "short", (6, 1)))
    requests: list[str] = []
    desktop.on("request", lambda r: requests.append(r.url))
    open_board(desktop, server, "Gm_1-x")
    assert server.hellos == [{"game": "Gm_1-x", "initData": ""}]
    assert all(url.startswith(f"http://127.0.0.1:{server.port}/") for url in requests), requests
    assert desktop.locator("#conn").is_hidden()


def test_inside_telegram_the_hello_carries_init_data_and_the_start_param(
    desktop: Page, server: StubServer
) -> None:
    server.add(StubTable.start("g7", "long", (5, 3), lang="ru"))
    desktop.add_init_script(
        "window.Telegram = {WebApp: {initData: 'query_id=1&hash=ab', initDataUnsafe: {start_param: 'g7',"
        " user: {language_code: 'ru'}}, colorScheme: 'dark', themeParams: {bg_color: '#102030'},"
        " ready: function () {}, expand: function () {}, onEvent: function () {}}};"
    )
    desktop.goto(server.url)  # no ?game=: Telegram's start_param names it
    desktop.wait_for_selector("#board[data-version]")
    assert server.hellos == [{"game": "g7", "initData": "query_id=1&hash=ab"}]
    assert desktop.evaluate("document.documentElement.dataset.theme") == "dark"
    assert desktop.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(16, 32, 48)"


def test_opened_by_telegram_the_page_loads_telegrams_script_first(desktop: Page, server: StubServer) -> None:
    """Telegram's launch parameters in the URL's fragment: the page loads telegram-web-app.js (allowed by
    the CSP; here served by a stand-in) and only then says hello with its initData and start_param."""
    server.add(StubTable.start("g9", "short", (6, 1)))
    script = FAKE_TELEGRAM.replace("INIT_DATA", '"user=1&hash=cd"') + (
        "window.Telegram.WebApp.initDataUnsafe = {start_param: 'g9'};"
    )
    desktop.route(
        "https://telegram.org/js/telegram-web-app.js",
        lambda route: route.fulfill(content_type="application/javascript", body=script),
    )
    desktop.add_init_script(CSP_WATCH)
    desktop.goto(server.url + "#tgWebAppData=user%3D1&tgWebAppVersion=7.0&tgWebAppPlatform=android")
    wait_drawn(desktop)
    assert server.hellos == [{"game": "g9", "initData": "user=1&hash=cd"}]
    assert csp_violations(desktop) == []


def test_without_a_game_the_page_says_so_and_opens_no_socket(desktop: Page, server: StubServer) -> None:
    desktop.goto(server.url)
    desktop.wait_for_selector("#conn.error")
    assert "No game" in (desktop.locator("#conn").text_content() or "")
    desktop.wait_for_timeout(300)
    assert server.connections == 0


def test_a_press_in_flight_locks_the_board_until_the_answer(desktop: Page, server: StubServer) -> None:
    server.add(StubTable.start("g", "short", (6, 1)))
    open_board(desktop, server, "g")
    server.hold = True
    tap_move(desktop, 13, 7)
    server.wait_for(lambda: len(server.presses) == 1)
    assert desktop.locator("#board.locked").count() == 1
    assert desktop.locator("#board .checker.floating.pending").count() == 1  # waiting, dimmed
    assert all(b.is_disabled() for b in desktop.locator("#buttons button").all())
    tap_move(desktop, 24, 18)  # a second press while the first is in flight: not sent
    desktop.mouse.click(*checker_centre(desktop, 8, 0))
    desktop.wait_for_timeout(150)
    assert len(server.presses) == 1
    assert lit(desktop) == set()
    server.hold = False
    server.tables["g"].apply(Press(1, "move", 13, 6), Side.WHITE)
    server.push("g")
    wait_drawn(desktop, 2)
    assert desktop.locator("#board.locked").count() == 0
    tap_move(desktop, 24, 23)
    server.wait_for(lambda: len(server.presses) == 2)
    assert server.presses[-1] == {"type": "press", "version": 2, "action": "move", "src": 24, "die": 1}


def test_a_refusal_shows_its_text_and_the_board_stays_as_the_last_state(
    desktop: Page, server: StubServer
) -> None:
    server.add(StubTable.start("g", "short", (6, 1)))
    open_board(desktop, server, "g")
    server.refusals.append("It is not your turn.")
    tap_move(desktop, 13, 7)
    desktop.wait_for_selector("#toast:not([hidden])")
    assert desktop.locator("#toast").text_content() == "It is not your turn."
    assert desktop.locator('#board .checker[data-point="13"][data-side="0"]').count() == 5
    assert desktop.locator('#board .checker[data-point="7"]').count() == 0
    assert desktop.locator("#board .checker.floating, #board .checker.lifted").count() == 0
    assert desktop.locator("#board.locked").count() == 0
    assert desktop.locator("#board").get_attribute("data-version") == "1"
    tap_move(desktop, 13, 7)  # unlocked: the same press again goes out and is taken
    wait_drawn(desktop, 2)
    assert len(server.presses) == 2


def test_a_stale_press_is_refused_by_the_server_and_the_page_follows_the_push(
    desktop: Page, server: StubServer
) -> None:
    """A move made elsewhere (the chat's buttons) reaches the page; a press on the old board is told."""
    table = server.add(StubTable.start("g", "short", (6, 1)))
    open_board(desktop, server, "g")
    server.hold = True
    tap_move(desktop, 24, 18)
    server.wait_for(lambda: len(server.presses) == 1)
    server.hold = False
    assert table.apply(Press(1, "move", 13, 6), Side.WHITE) is None  # the chat's button was first
    server.send("g", {"type": "refused", "text": "The board has changed: look again."})
    desktop.wait_for_selector("#toast:not([hidden])")
    server.push("g")
    wait_drawn(desktop, 2)
    assert desktop.locator('#board .checker[data-point="7"][data-side="0"]').count() == 1
    assert desktop.locator('#board .checker[data-point="24"][data-side="0"]').count() == 2


def test_a_dropped_socket_shows_reconnecting_and_the_next_state_is_the_truth(
    browser: Browser, server: StubServer
) -> None:
    context = browser.new_context()
    page = context.new_page()
    problems = Problems(page)
    table = server.add(StubTable.start("g", "short", (6, 1)))
    open_board(page, server, "g")
    server.down = True  # the bot restarts: sockets are refused for a while
    server.drop()
    page.wait_for_selector("#conn:not([hidden])")
    assert page.locator("#conn").text_content() == "reconnecting…"
    assert page.locator("#board.locked").count() == 1
    assert table.apply(Press(1, "move", 13, 6), Side.WHITE) is None  # played while the page was away
    page.wait_for_timeout(700)
    server.down = False
    wait_drawn(page, 2, timeout=15000)
    assert page.locator("#conn").is_hidden()
    assert page.locator('#board .checker[data-point="7"][data-side="0"]').count() == 1
    assert page.locator("#board.locked").count() == 0
    assert len(server.hellos) == 2
    assert server.hellos[1] == server.hellos[0]
    tap_move(page, 24, 23)
    wait_drawn(page, 3)
    context.close()
    # the refused handshakes are the only console errors
    assert all("WebSocket" in e for e in problems.errors), problems.errors


def test_a_fatal_error_is_shown_and_never_retried(desktop: Page, server: StubServer) -> None:
    server.add(StubTable.start("g", "short", (6, 1)))
    server.fatal_hello = "Sign-in failed: open the board from Telegram again."
    desktop.add_init_script(CSP_WATCH)
    desktop.goto(server.page_url("g"))
    desktop.wait_for_selector("#conn.error")
    assert desktop.locator("#conn").text_content() == "Sign-in failed: open the board from Telegram again."
    desktop.wait_for_timeout(1500)
    assert server.connections == 1
    assert desktop.locator("#board .checker").count() == 0


def test_the_page_runs_under_its_content_security_policy(browser: Browser, server: StubServer) -> None:
    """Every answer carries the CSP; the page plays a move and loads nothing inline (no violation)."""
    context = browser.new_context()
    page = context.new_page()
    problems = Problems(page)
    headers: dict[str, str | None] = {}
    page.on("response", lambda r: headers.__setitem__(r.url, r.headers.get("content-security-policy")))
    server.add(StubTable.start("g", "short", (6, 1)))
    open_board(page, server, "g")
    tap_move(page, 13, 7)
    wait_drawn(page, 2)
    page.click("button.undo")
    wait_drawn(page, 3)
    modules = list((STATIC_DIR / "board").glob("*.js"))
    assert len(headers) == 2 + len(modules)  # the page, board.css, the script's modules
    assert set(headers.values()) == {CONTENT_SECURITY_POLICY}
    assert csp_violations(page) == []
    assert problems.errors == []
    # the policy is enforced: an inline script is refused and reported
    page.evaluate("""() => { const s = document.createElement('script'); s.textContent = 'window.x = 1';
        document.head.appendChild(s); }""")
    page.wait_for_timeout(100)
    assert page.evaluate("window.x") is None
    assert csp_violations(page) == ["script-src-elem inline"]
    context.close()
