"""The review page (bot/web/static/review.html) in Chromium: a real finished game (fair dice, the engine's
analysis; testkit/review_pages.py) stepped through by keyboard only with the board's checkers as each frame
says; the expert's better play drawn as arrows on a play that lost equity and not on one that lost none;
the win-chance graph jumping to a play; the dice proof verified in the page, and the failing check named
when the record is tampered with; the analysis asked for while it is not there (busy: try again); the
downloads through Telegram; Telegram's BackButton to the home; a Persian review right to left; a player's
name shown as text, never HTML; and the page against the bot's own server and its review API."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

import pytest

from testkit.review_pages import (
    ReviewServer,
    checkers,
    frame,
    open_review,
    real_review_server,
    review_payload,
    wait_ready,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

GAME = "g1/1"
WAIT_MS = 15000


@cache
def payload(lang: str = "en", analysed: bool = True) -> str:
    """The review JSON of one real game (made once: the engine's analysis takes a moment)."""
    return json.dumps(review_payload(lang=lang, game_name=GAME, analysed=analysed))


def review(lang: str = "en", analysed: bool = True, **changes: Any) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(payload(lang, analysed))
    found.update(changes)
    return found


@pytest.fixture
def server() -> Iterator[ReviewServer]:
    with ReviewServer() as stub:
        yield stub


def focused(page: Page) -> str:
    """What has the focus: its id, "play:N" for the play of frame N in the list, "download:KIND"."""
    found: str = page.evaluate(
        "() => { var e = document.activeElement; if (!e || e === document.body) { return ''; }"
        " if (e.id) { return e.id; } if (e.dataset.frame) { return 'play:' + e.dataset.frame; }"
        " if (e.dataset.kind) { return 'download:' + e.dataset.kind; } return e.tagName; }"
    )
    return found


def tab_to(page: Page, target: str, key: str = "Tab", most: int = 40) -> list[str]:
    """Press `key` (Tab, Shift+Tab) until `target` (focused()'s answer) has the focus; the stops."""
    stops = []
    for _ in range(most):
        page.keyboard.press(key)
        stops.append(focused(page))
        if stops[-1] == target:
            return stops
    raise AssertionError(f"{target} never had the focus: {stops}")


def graph_point(page: Page, k: int, frames: int, rtl: bool = False) -> tuple[float, float]:
    """Where frame `k` of `frames` is on the graph (graph.js: 600 wide, 12 of padding each side)."""
    box = page.locator("#graph").bounding_box()
    assert box is not None
    x = (12 + k * (600 - 24) / (frames - 1)) / 600
    return box["x"] + (1 - x if rtl else x) * box["width"], box["y"] + box["height"] / 2


def test_a_review_is_stepped_through_by_keyboard_only(server: ReviewServer, desktop: Page) -> None:
    data = server.add(review())
    frames, plays = data["frames"], data["plays"]
    open_review(desktop, server, GAME)
    assert frame(desktop) == 0 and checkers(desktop) == frames[0]["points"]
    assert desktop.text_content("#now") == "Start position"
    # every control is a stop of the Tab order, in the order they are seen
    stops = tab_to(desktop, "download:json")
    seen = ["home", "first", "back", "autoplay", "forward", "last", "graph", "play:1", "download:mat"]
    assert [s for s in stops if s in seen] == seen, stops  # the list of plays: one stop
    tab_to(desktop, "forward", "Shift+Tab")
    shown = []
    for k in range(1, len(frames)):
        desktop.keyboard.press("ArrowRight")
        assert frame(desktop) == k
        assert checkers(desktop) == frames[k]["points"], k
        shown.append(desktop.text_content("#now") or "")
    first = plays[0]
    side = "White" if first["side"] == 0 else "Black"
    dice = "-".join(map(str, first["dice"]))
    assert shown[0].startswith(f"Play 1 of {len(plays)}: {side} {dice} {first['text']}")
    assert shown[-1] == data["result"]
    desktop.keyboard.press("ArrowRight")  # at the end: stays there
    assert frame(desktop) == len(frames) - 1
    for k in range(len(frames) - 2, len(frames) - 6, -1):
        desktop.keyboard.press("ArrowLeft")
        assert frame(desktop) == k and checkers(desktop) == frames[k]["points"]
    desktop.keyboard.press("Home")
    assert frame(desktop) == 0 and checkers(desktop) == frames[0]["points"]
    desktop.keyboard.press("End")
    assert frame(desktop) == len(frames) - 1
    desktop.keyboard.press("Home")
    # the list of plays is one stop; the arrows move along it, Enter jumps to the play
    tab_to(desktop, "play:1")
    for _ in range(6):
        desktop.keyboard.press("ArrowDown")
    desktop.keyboard.press("ArrowUp")
    assert focused(desktop).endswith("play:6") and frame(desktop) == 0
    desktop.keyboard.press("Enter")
    assert frame(desktop) == 6 and checkers(desktop) == frames[6]["points"]
    assert desktop.get_attribute('#plays button[data-frame="6"]', "aria-current") == "step"
    # Space runs through the game by itself and stops it (from anywhere but a button)
    desktop.focus("#graph")
    desktop.keyboard.press("Space")
    assert desktop.get_attribute("#autoplay", "aria-pressed") == "true"
    desktop.wait_for_function("() => +document.getElementById('board').dataset.frame > 6", timeout=WAIT_MS)
    desktop.keyboard.press("Space")
    assert desktop.get_attribute("#autoplay", "aria-pressed") == "false"


def test_the_better_play_is_drawn_on_a_play_that_lost_equity_and_not_on_one_that_lost_none(
    server: ReviewServer, desktop: Page
) -> None:
    data = server.add(review())
    judged = data["analysis"]["plays"]
    lost = next(j for j in judged if j["loss"] > 0.05 and len(j["best_moves"]) >= 2)
    none = next(j for j in judged if j["loss"] == 0)
    forced = next(p for p in data["plays"] if p["forced"])
    open_review(desktop, server, GAME)
    desktop.click(f'#plays button[data-frame="{lost["n"]}"]')
    arrows = desktop.locator("#board .layer-better .better-arrow")
    assert arrows.count() == len(lost["best_moves"])
    assert [
        (int(a.get_attribute("data-src") or -1), int(a.get_attribute("data-dst") or -1)) for a in arrows.all()
    ] == [(m["src"], m["dst"]) for m in lost["best_moves"]]
    assert desktop.text_content("#better") == f"Better: {lost['best']} (lost {lost['loss']:.3f})"
    assert (desktop.text_content(f'#plays button[data-frame="{lost["n"]}"] .loss') or "").startswith("−")
    desktop.click(f'#plays button[data-frame="{none["n"]}"]')
    assert arrows.count() == 0 and desktop.text_content("#better") == "The best play"
    desktop.click(f'#plays button[data-frame="{forced["n"]}"]')
    assert arrows.count() == 0 and desktop.is_hidden("#better")
    assert desktop.text_content(f'#plays button[data-frame="{forced["n"]}"] .mark') == "forced"


def test_the_better_play_is_shown_on_the_position_before_the_play_by_key_b_until_a_step(
    server: ReviewServer, desktop: Page
) -> None:
    data = server.add(review())
    frames, judged = data["frames"], data["analysis"]["plays"]
    lost = next(j for j in judged if j["loss"] > 0.05 and len(j["best_moves"]) >= 2)
    none = next(j for j in judged if j["loss"] == 0)
    k = lost["n"]
    open_review(desktop, server, GAME)
    assert desktop.is_hidden("#show-better")  # the start: no play, nothing to show
    for _ in range(k):
        desktop.keyboard.press("ArrowRight")
    arrows = desktop.locator("#board .layer-better .better-arrow")
    assert frame(desktop) == k and checkers(desktop) == frames[k]["points"]
    toggle = "#show-better"
    assert desktop.text_content(toggle) == "Show the better play"
    assert desktop.get_attribute(toggle, "aria-pressed") == "false"
    desktop.keyboard.press("b")  # the position before the play, its dice to play, the better play's arrows
    assert desktop.get_attribute("#board", "data-before") == "1" and frame(desktop) == k
    assert checkers(desktop) == frames[k - 1]["points"] != frames[k]["points"]
    assert desktop.get_attribute(toggle, "aria-pressed") == "true"
    assert [
        (int(a.get_attribute("data-src") or -1), int(a.get_attribute("data-dst") or -1)) for a in arrows.all()
    ] == [(m["src"], m["dst"]) for m in lost["best_moves"]]
    desktop.keyboard.press("B")  # back to the play made
    assert desktop.get_attribute("#board", "data-before") == "0" and checkers(desktop) == frames[k]["points"]
    assert desktop.get_attribute(toggle, "aria-pressed") == "false" and arrows.count() == len(
        lost["best_moves"]
    )
    desktop.keyboard.press("b")
    desktop.keyboard.press("ArrowRight")  # a step lets go: the next play as it was made
    desktop.keyboard.press("ArrowLeft")
    assert frame(desktop) == k and desktop.get_attribute("#board", "data-before") == "0"
    assert checkers(desktop) == frames[k]["points"]
    tab_to(desktop, "show-better")  # a stop of the Tab order while shown; Enter presses it
    desktop.keyboard.press("Enter")
    assert desktop.get_attribute("#board", "data-before") == "1"
    assert desktop.get_attribute(toggle, "aria-pressed") == "true"
    desktop.click(f'#plays button[data-frame="{none["n"]}"]')  # a play that lost nothing: no toggle, B idle
    desktop.keyboard.press("b")
    assert desktop.is_hidden(toggle) and desktop.get_attribute("#board", "data-before") == "0"
    assert checkers(desktop) == frames[none["n"]]["points"]


def test_clicking_the_graph_jumps_to_that_play(server: ReviewServer, desktop: Page, phone: Page) -> None:
    data = server.add(review())
    count = len(data["frames"])
    for page in (desktop, phone):
        open_review(page, server, GAME)
        for k in (count // 3, count - 2, 5):
            x, y = graph_point(page, k, count)
            if page is phone:
                page.touchscreen.tap(x, y)
            else:
                page.mouse.click(x, y)
            assert frame(page) == k, page
            assert checkers(page) == data["frames"][k]["points"]
        assert page.get_attribute("#graph", "aria-valuenow") == "5"
        assert page.get_attribute("#graph", "aria-valuetext") == page.text_content("#now")
    marks = {j["n"] for j in data["analysis"]["plays"] if j["mark"] in ("?", "??")}
    drawn = desktop.eval_on_selector_all(
        "#graph .graph-mark:not([r='3.5'])", "els => els.map(e => +e.dataset.frame)"
    )
    assert set(drawn) == marks


def test_the_dice_proof_is_verified_in_the_page(server: ReviewServer, desktop: Page) -> None:
    data = server.add(review())
    open_review(desktop, server, GAME)
    desktop.wait_for_selector('#proof-verdict[data-result="verified"]', timeout=WAIT_MS)
    rolls = len(data["proof"]["rolls"])
    assert (
        desktop.text_content("#proof-verdict") == f"✓ Dice verified · {rolls} rolls checked in this browser"
    )
    shown = desktop.locator("#proof dd").all_text_contents()
    assert data["proof"]["commitment"] in shown and data["proof"]["seed"] in shown


@pytest.mark.parametrize(
    ("tamper", "check", "said"),
    [
        ("roll", "failRoll", "Check failed: roll 5 is {derived} by the seeds but {recorded} in the record"),
        ("commitment", "failCommitment", "Check failed: SHA-256 of the seed is not the commitment"),
        ("parts", "failParts", "Check failed: the seed is not SHA-256 of its parts"),
        ("made", "failCount", "Check failed: the seeds made {made} rolls, the record shows {rolls}"),
    ],
)
def test_a_tampered_proof_names_the_check_that_fails(
    server: ReviewServer, desktop: Page, tamper: str, check: str, said: str
) -> None:
    data = server.add(review())
    proof = data["proof"]
    real = proof["rolls"][5]
    forged = [real[0] % 6 + 1, real[1]]

    def altered(route: Route) -> None:
        answer = route.fetch()
        body = answer.json()
        if tamper == "roll":
            body["proof"]["rolls"][5] = forged
        elif tamper == "commitment":
            body["proof"]["commitment"] = "0" * 64
        elif tamper == "parts":
            body["proof"]["parts"][1] = "0" * 64
        else:
            body["proof"]["made"] = len(body["proof"]["rolls"]) + 2
        route.fulfill(response=answer, json=body)

    desktop.route(re.compile(r".*/api/review\?.*"), altered)
    open_review(desktop, server, GAME)
    desktop.wait_for_selector(f'#proof-verdict[data-result="{check}"]', timeout=WAIT_MS)
    expected = said.format(
        derived="-".join(map(str, real)),
        recorded="-".join(map(str, forged)),
        made=len(proof["rolls"]) + 2,
        rolls=len(proof["rolls"]),
    )
    assert desktop.text_content("#proof-verdict") == "✗ " + expected


def test_while_the_analysis_is_not_there_the_page_asks_for_it_and_offers_to_try_again(
    server: ReviewServer, desktop: Page
) -> None:
    full = review()
    server.add(review(analysed=False), analysis=full["analysis"])
    server.busy = 1
    open_review(desktop, server, GAME)
    desktop.wait_for_selector("#retry:not([hidden])", timeout=WAIT_MS)
    assert desktop.text_content("#analysing") == "The analysis workers are busy: try again."
    assert desktop.is_hidden("#graph-box") and desktop.is_hidden("#figures")
    assert server.headers and all(h == "tma user=1" for h in server.headers)
    desktop.click("#retry")
    desktop.wait_for_selector("#figures:not([hidden])", timeout=WAIT_MS)
    assert desktop.is_visible("#graph-box") and desktop.is_hidden("#retry")
    assert server.asked == ["review", "analysis", "analysis"]
    rows = desktop.locator("#figures tbody tr").all_inner_texts()
    assert rows[0].split("\t")[0] == "Error rate" and len(rows) == 5


def test_the_downloads_go_through_telegram_where_it_can_else_plain_links(
    server: ReviewServer, desktop: Page, phone: Page
) -> None:
    data = server.add(review())
    open_review(desktop, server, GAME)
    assert desktop.locator("#downloads a").all_text_contents() == [
        "Match file (.mat)",
        "Text record",
        "Record (JSON)",
    ]
    desktop.click('#downloads a[data-kind="txt"]')
    asked = desktop.evaluate("window.__downloads")
    entry = data["downloads"][1]
    assert asked == [{"url": server.url + entry["url"], "file_name": entry["name"]}]
    open_review(phone, server, GAME, download=False)
    link = phone.locator('#downloads a[data-kind="mat"]')
    assert link.get_attribute("href") == data["downloads"][0]["url"]
    assert link.get_attribute("download") == data["downloads"][0]["name"]


def test_telegrams_back_button_goes_back_to_the_home(server: ReviewServer, desktop: Page) -> None:
    server.add(review())
    open_review(desktop, server, GAME)
    assert desktop.evaluate("window.Telegram.WebApp.BackButton.isVisible") is True
    with desktop.expect_navigation(timeout=WAIT_MS):
        desktop.evaluate("window.__backClick()")
    assert desktop.url == server.url


def test_a_persian_review_runs_right_to_left(server: ReviewServer, desktop: Page) -> None:
    data = server.add(review("fa"))
    open_review(desktop, server, GAME)
    assert desktop.evaluate("[document.documentElement.lang, document.documentElement.dir]") == ["fa", "rtl"]
    assert desktop.evaluate("getComputedStyle(document.getElementById('board-wrap')).direction") == "ltr"
    back = desktop.locator("#back").bounding_box()
    forward = desktop.locator("#forward").bounding_box()
    assert back is not None and forward is not None and forward["x"] < back["x"]
    assert desktop.get_attribute("#forward", "aria-label") == "حرکت بعدی"
    first = data["plays"][0]["text"]  # a play stays left to right inside the Persian words
    assert desktop.text_content('#plays button[data-frame="1"] .text') == f"\u2066{first}\u2069"
    desktop.keyboard.press("ArrowLeft")  # forward, in a language read from the right
    assert frame(desktop) == 1 and (desktop.text_content("#now") or "").startswith("حرکت 1 از ")
    desktop.keyboard.press("ArrowRight")
    assert frame(desktop) == 0
    count = len(data["frames"])
    x, y = graph_point(desktop, 7, count, rtl=True)  # the graph runs from the right too
    desktop.mouse.click(x, y)
    assert frame(desktop) == 7


def test_no_players_name_reaches_html(server: ReviewServer, desktop: Page) -> None:
    evil = '<img src=x onerror="window.__xss=1">'
    data = review()
    data["names"] = [evil, "Bob"]
    data["title"] = f"Short nardy · {evil} – Bob"
    data["result"] = f"{evil} won: oin (1)"
    for view in data["frames"]:
        view["names"] = [evil, "Bob"]
    server.add(data)
    open_review(desktop, server, GAME)
    desktop.keyboard.press("End")
    assert desktop.locator("img").count() == 0 and desktop.evaluate("window.__xss") is None
    assert desktop.text_content("#title") == f"Short nardy · {evil} – Bob"
    assert desktop.text_content("#now") == f"{evil} won: oin (1)"
    assert desktop.text_content("#figures thead") == f"{evil}youBob"  # Alice's review: "you" by her name


def test_a_review_link_on_the_home_opens_the_review(server: ReviewServer, desktop: Page) -> None:
    """A Direct Link's startapp r<N>_<GAME> (the home's openStartParam) turns into ?review=GAME/N."""
    from testkit.home_pages import open_home

    server.add(review(game="abcdefghij/2"))
    open_home(desktop, server.url, "user=1", start_param="r2_abcdefghij")
    desktop.wait_for_url("**/app/?review=abcdefghij%2F2", timeout=WAIT_MS)
    wait_ready(desktop)
    assert desktop.text_content("#title") == review()["title"]


def test_the_review_against_the_bots_own_server(redis_url: str, desktop: Page) -> None:
    """The page and the bot's review API together: a friend game played out, its review opened by one of
    its players, the analysis worked out by the bot and drawn, the proof verified, a stranger refused."""
    with real_review_server(redis_url) as real:
        open_review(desktop, real, real.game, init_data=real.init_data)
        desktop.wait_for_selector("#proof-verdict[data-result]", timeout=WAIT_MS)
        assert desktop.get_attribute("#proof-verdict", "data-result") == "verified", desktop.text_content(
            "#proof-verdict"
        )
        desktop.wait_for_selector("#figures:not([hidden])", timeout=60000)
        assert desktop.text_content("#title") == "Short nardy (backgammon) · Alice – Bob"
        assert desktop.locator("#plays button.play").count() == real.frames - 2
        desktop.keyboard.press("End")
        assert desktop.get_attribute("#board", "data-frame") == str(real.frames - 1)
        stranger = desktop.context.new_page()
        open_review(stranger, real, real.game, init_data=real.stranger, wait=lambda p: None)
        stranger.wait_for_selector("#note:not(:empty)", timeout=WAIT_MS)
        assert stranger.get_attribute("#review", "aria-busy") == "false" and stranger.is_hidden("#cols")
