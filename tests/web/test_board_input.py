"""Moving on the page: a tap on a checker lights its destinations (the state's steps, nothing else), a
second tap or a drop sends the step's press; a drop elsewhere sends nothing and the checker goes back.
With a mouse on a desktop and with a finger on a 360-px phone (what the finger's slack may and may not
reach: test_board_finger.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import Side
from testkit.browser import (
    StubServer,
    StubTable,
    checker_centre,
    lit,
    mouse_drag,
    open_board,
    touch_drag,
    wait_drawn,
    zone_centre,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page


def press(version: int, src: int, die: int) -> dict[str, Any]:
    return {"type": "press", "version": version, "action": "move", "src": src, "die": die}


def short_6_1(server: StubServer, **kwargs: Any) -> StubTable:
    """White (you) to play 6-1 from the start of short nardy."""
    return server.add(StubTable.start("g", "short", (6, 1), **kwargs))


def checkers_on(page: Page, point: int | str, side: int) -> int:
    return page.locator(f'#board .checker[data-point="{point}"][data-side="{side}"]').count()


def test_a_tap_lights_the_states_destinations_and_a_second_tap_sends_the_press(
    desktop: Page, server: StubServer
) -> None:
    short_6_1(server)
    open_board(desktop, server, "g", "white")
    movable = desktop.eval_on_selector_all("#board .zone.movable", "els => els.map(e => e.dataset.point)")
    assert sorted(movable, key=int) == ["6", "8", "13", "24"]
    desktop.mouse.click(*checker_centre(desktop, 13, 0))
    assert lit(desktop) == {"7"}  # 13/12 would land on black's head
    assert desktop.locator("#board .target").count() == 1
    desktop.mouse.click(*checker_centre(desktop, 24, 0))  # another checker: its destinations instead
    assert lit(desktop) == {"18", "23"}
    desktop.mouse.click(*zone_centre(desktop, 18))
    wait_drawn(desktop, 2)
    assert server.presses == [press(1, 24, 6)]
    assert checkers_on(desktop, 18, 0) == 1
    assert checkers_on(desktop, 24, 0) == 1
    assert lit(desktop) == set()  # the next state: nothing selected
    assert desktop.locator("#board .die.used").count() == 1


def test_a_second_tap_on_the_selected_checker_puts_it_down(desktop: Page, server: StubServer) -> None:
    short_6_1(server)
    open_board(desktop, server, "g", "white")
    desktop.mouse.click(*checker_centre(desktop, 8, 0))
    assert lit(desktop) == {"2", "7"}
    desktop.mouse.click(*checker_centre(desktop, 8, 0))
    assert lit(desktop) == set()
    desktop.mouse.click(*checker_centre(desktop, 8, 0))
    desktop.mouse.click(*zone_centre(desktop, 10))  # not lit: nothing is sent, the selection goes
    assert lit(desktop) == set()
    desktop.wait_for_timeout(100)
    assert server.presses == []


def test_a_mouse_drag_and_drop_sends_the_press(desktop: Page, server: StubServer) -> None:
    short_6_1(server)
    open_board(desktop, server, "g", "white")
    start = checker_centre(desktop, 13, 0)
    desktop.mouse.move(*start)
    desktop.mouse.down()
    target = zone_centre(desktop, 7)
    desktop.mouse.move(*target, steps=6)
    assert lit(desktop) == {"7"}
    assert desktop.locator("#board .zone.over").get_attribute("data-point") == "7"
    assert desktop.locator("#board .checker.floating").count() == 1
    desktop.mouse.up()
    wait_drawn(desktop, 2)
    assert server.presses == [press(1, 13, 6)]
    assert checkers_on(desktop, 13, 0) == 4
    assert checkers_on(desktop, 7, 0) == 1
    assert desktop.locator("#board .checker.floating").count() == 0


def test_a_drop_off_a_lit_point_sends_nothing_and_the_checker_goes_back(
    desktop: Page, server: StubServer
) -> None:
    short_6_1(server)
    open_board(desktop, server, "g", "white")
    mouse_drag(desktop, checker_centre(desktop, 13, 0), zone_centre(desktop, 10))
    desktop.wait_for_selector("#board .checker.floating", state="detached")
    assert server.presses == []
    assert checkers_on(desktop, 13, 0) == 5
    assert desktop.locator("#board .checker.lifted").count() == 0
    assert lit(desktop) == set()
    mouse_drag(desktop, checker_centre(desktop, 6, 0), (5, 5))  # off the board altogether
    desktop.wait_for_selector("#board .checker.floating", state="detached")
    assert server.presses == []
    assert checkers_on(desktop, 6, 0) == 5


def test_bearing_off_by_a_drop_on_the_tray_and_entering_from_the_bar(
    desktop: Page, server: StubServer
) -> None:
    server.add(StubTable.at("g", "short", {1: 2, 2: 2}, {1: 3, 3: 1}, (6, 5)))
    open_board(desktop, server, "g", "white")
    mouse_drag(desktop, checker_centre(desktop, 2, 0), centre_of_tray(desktop))
    wait_drawn(desktop, 2)
    assert server.presses == [press(1, 2, 5)]  # the smaller die where both bear off
    server.add(StubTable.at("h", "short", {25: 1, 6: 14}, {24: 15}, (3, 1)))
    desktop.goto(server.page_url("h"))
    wait_drawn(desktop, 1)
    assert checkers_on(desktop, "bar", 0) == 1
    desktop.mouse.click(*checker_centre(desktop, "bar", 0))
    assert lit(desktop) == {"22", "24"}
    desktop.mouse.click(*zone_centre(desktop, 22))
    wait_drawn(desktop, 2)
    assert server.presses[-1] == press(1, 25, 3)


def centre_of_tray(page: Page) -> tuple[float, float]:
    box = page.locator('#board .tray[data-side="0"] .tray-count').bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2 + 60


def test_a_finger_on_a_phone_taps_and_drags(phone: Page, server: StubServer) -> None:
    short_6_1(server)
    open_board(phone, server, "g", "white")
    phone.touchscreen.tap(*checker_centre(phone, 13, 0))
    assert lit(phone) == {"7"}
    phone.touchscreen.tap(*zone_centre(phone, 7))
    wait_drawn(phone, 2)
    assert server.presses == [press(1, 13, 6)]
    touch_drag(phone, checker_centre(phone, 6, 0), zone_centre(phone, 5))
    wait_drawn(phone, 3)
    assert server.presses[-1] == press(2, 6, 1)
    assert checkers_on(phone, 5, 0) == 1
    touch_drag(phone, checker_centre(phone, 8, 0), zone_centre(phone, 10))  # no die left for it
    phone.wait_for_timeout(300)
    assert len(server.presses) == 2
    assert phone.evaluate("window.scrollX") == 0


def test_the_buttons_send_their_actions_and_resign_asks_first(desktop: Page, server: StubServer) -> None:
    short_6_1(server, later=[(3, 2)], computer=Side.BLACK)
    open_board(desktop, server, "g", "white")
    desktop.mouse.click(*checker_centre(desktop, 13, 0))
    desktop.mouse.click(*zone_centre(desktop, 7))
    wait_drawn(desktop, 2)
    assert desktop.locator("#buttons button").all_text_contents() == ["↶ Undo", "⚑ Resign"]
    desktop.click("button.undo")
    wait_drawn(desktop, 3)
    assert checkers_on(desktop, 13, 0) == 5
    for version, (point, to) in enumerate(((13, 7), (8, 7)), start=4):
        desktop.mouse.click(*checker_centre(desktop, point, 0))
        desktop.mouse.click(*zone_centre(desktop, to))
        wait_drawn(desktop, version)  # not table.version: read before the press arrives, it is the old one
    desktop.click("button.done")
    wait_drawn(desktop, 6)  # the computer (black) played its 3-2 and white's next roll waits
    assert [p["action"] for p in server.presses] == ["move", "undo", "move", "move", "done"]
    desktop.click("button.resign")
    assert desktop.locator("#confirm").is_visible()
    desktop.click("#confirm-no")
    assert not desktop.locator("#confirm").is_visible()
    assert server.presses[-1]["action"] == "done"
    desktop.click("button.resign")
    desktop.click("#confirm-yes")
    wait_drawn(desktop, 7)
    assert server.presses[-1] == {"type": "press", "version": 6, "action": "resign"}
    assert desktop.locator("#buttons button").all_text_contents() == ["↻ Rematch"]
    assert desktop.locator("#panel-top.winner").count() == 1


def test_a_hint_is_shown_as_text(desktop: Page, server: StubServer) -> None:
    short_6_1(server, hint_text="Best: 13/7 8/7")
    open_board(desktop, server, "g", "white")
    assert desktop.locator("#message").is_hidden()
    desktop.click("button.hint")
    desktop.wait_for_selector("#message:not([hidden])")
    assert desktop.locator("#message").text_content() == "Best: 13/7 8/7"
    assert server.presses == [{"type": "press", "version": 1, "action": "hint"}]
