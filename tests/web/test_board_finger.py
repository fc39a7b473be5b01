"""A finger on a 360-px phone (touch, a mobile viewport): what is directly under the finger wins over a lit
point merely within the finger's slack (14 CSS px, more than half a point's width there). A second tap on
the selected checker puts it down, a press on it starts a drag, a drop on its own column sends nothing, on
the board's middle, on the bar and beside the tray alike; the slack reaches a lit point only from a spot
that means nothing to the press (an empty column, the opponent's)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from testkit.browser import (
    StubServer,
    StubTable,
    checker_centre,
    lit,
    open_board,
    touch_drag,
    wait_drawn,
    zone_centre,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page


def press(version: int, src: int, die: int) -> dict[str, Any]:
    return {"type": "press", "version": version, "action": "move", "src": src, "die": die}


def nothing_sent(page: Page, server: StubServer) -> bool:
    page.wait_for_timeout(300)  # a press would have left by now (it is sent on the pointer's way down or up)
    return server.presses == []


def zone_box(page: Page, point: int | str) -> dict[str, float]:
    """The column of `point` on the page: x, y, width, height in CSS pixels."""
    box = page.locator(f'#board .zone[data-point="{point}"]').bounding_box()
    assert box is not None
    return {"x": box["x"], "y": box["y"], "width": box["width"], "height": box["height"]}


def test_a_second_tap_on_the_selected_checker_puts_it_down_beside_a_lit_point(
    phone: Page, server: StubServer
) -> None:
    server.add(StubTable.start("g", "short", (6, 1)))
    open_board(phone, server, "g", "white")
    phone.touchscreen.tap(*checker_centre(phone, 8, 0))
    assert lit(phone) == {"2", "7"}  # 7 is the next column, within the finger's slack of 8's middle
    phone.touchscreen.tap(*checker_centre(phone, 8, 0))
    assert lit(phone) == set()
    assert nothing_sent(phone, server)
    phone.touchscreen.tap(*checker_centre(phone, 8, 0))
    box = zone_box(phone, 8)
    phone.touchscreen.tap(box["x"] + 2, box["y"] + box["height"] / 2)  # its column's edge, by 7
    assert lit(phone) == set()
    assert nothing_sent(phone, server)


def test_a_press_on_the_selected_checker_starts_a_drag_and_not_a_move(
    phone: Page, server: StubServer
) -> None:
    server.add(StubTable.start("g", "short", (6, 1)))
    open_board(phone, server, "g", "white")
    phone.touchscreen.tap(*checker_centre(phone, 8, 0))
    assert lit(phone) == {"2", "7"}
    touch_drag(phone, checker_centre(phone, 8, 0), zone_centre(phone, 2))
    wait_drawn(phone, 2)
    assert server.presses == [press(1, 8, 6)]


def test_a_drop_back_on_its_own_column_sends_nothing(phone: Page, server: StubServer) -> None:
    server.add(StubTable.start("g", "short", (6, 1)))
    open_board(phone, server, "g", "white")
    start = checker_centre(phone, 8, 0)
    touch_drag(phone, start, (start[0], start[1] - 30))  # lifted, then put back on point 8
    phone.wait_for_selector("#board .checker.floating", state="detached")
    assert nothing_sent(phone, server)
    assert phone.locator('#board .checker[data-point="8"][data-side="0"]').count() == 3


def test_a_second_tap_on_the_bar_puts_the_checker_down_beside_the_entry_point(
    phone: Page, server: StubServer
) -> None:
    server.add(StubTable.at("g", "short", {25: 1, 6: 14}, {24: 15}, (6, 5)))
    open_board(phone, server, "g", "white")
    phone.touchscreen.tap(*checker_centre(phone, "bar", 0))
    assert lit(phone) == {"19", "20"}  # 19 is the column next to the bar
    phone.touchscreen.tap(*checker_centre(phone, "bar", 0))
    assert lit(phone) == set()
    assert nothing_sent(phone, server)
    phone.touchscreen.tap(*checker_centre(phone, "bar", 0))
    phone.touchscreen.tap(*zone_centre(phone, 19))
    wait_drawn(phone, 2)
    assert server.presses == [press(1, 25, 6)]


def test_beside_the_tray_a_tap_on_a_checker_never_bears_off(phone: Page, server: StubServer) -> None:
    server.add(StubTable.at("g", "short", {1: 2, 3: 2}, {1: 3, 3: 1}, (3, 1)))
    open_board(phone, server, "g", "white")
    phone.touchscreen.tap(*checker_centre(phone, 1, 0))
    assert lit(phone) == {"off"}  # point 1 is the column next to the tray
    phone.touchscreen.tap(*checker_centre(phone, 1, 0))
    assert lit(phone) == set()
    assert nothing_sent(phone, server)
    phone.touchscreen.tap(*checker_centre(phone, 3, 0))
    assert lit(phone) == {"off", "2"}  # the tray and point 2 are both within the slack of point 1
    phone.touchscreen.tap(*checker_centre(phone, 1, 0))  # another checker: it is chosen instead
    assert lit(phone) == {"off"}
    assert phone.locator('#board .checker.selected[data-point="1"]').count() == 1
    assert nothing_sent(phone, server)
    tray = zone_box(phone, "off")
    phone.touchscreen.tap(tray["x"] + tray["width"] / 2, tray["y"] + tray["height"] * 0.8)
    wait_drawn(phone, 2)
    assert server.presses == [press(1, 1, 1)]


def test_a_sloppy_tap_on_an_empty_column_beside_a_narrow_lit_point_still_hits_it(
    phone: Page, server: StubServer
) -> None:
    """A point is 24 CSS px wide on a 360-px phone: a tap just outside a lit column, on a column that
    means nothing to the press (empty, or the opponent's), takes the lit one."""
    server.add(StubTable.start("g", "short", (6, 1)))
    open_board(phone, server, "g", "white")
    phone.touchscreen.tap(*checker_centre(phone, 24, 0))
    assert lit(phone) == {"18", "23"}
    box = zone_box(phone, 23)
    assert box["width"] < 32
    phone.touchscreen.tap(box["x"] - 8, box["y"] + box["height"] / 2)  # on point 22, empty
    wait_drawn(phone, 2)
    assert server.presses == [press(1, 24, 1)]


def test_a_sloppy_tap_goes_to_the_nearest_of_what_it_could_mean(phone: Page, server: StubServer) -> None:
    """On an empty column between a movable checker and a lit point, both within the slack, the nearer one
    is meant: here the checker on 6, chosen instead of moving the selected one to 4."""
    server.add(StubTable.at("g", "short", {8: 2, 6: 13}, {24: 15}, (4, 4)))
    open_board(phone, server, "g", "white")
    phone.touchscreen.tap(*checker_centre(phone, 8, 0))
    assert lit(phone) == {"4"}
    five = zone_box(phone, 5)  # empty, between 6 (movable) and 4 (lit)
    assert five["width"] / 2 < 14  # both neighbours are within the slack from its middle
    phone.touchscreen.tap(five["x"] + five["width"] / 2 - 1.5, five["y"] + five["height"] / 2)  # nearer 6
    assert lit(phone) == {"2"}
    assert phone.locator('#board .checker.selected[data-point="6"]').count() == 1
    assert nothing_sent(phone, server)
