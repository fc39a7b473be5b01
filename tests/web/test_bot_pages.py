"""The board page served by the bot itself, with the fake Bot API and a real Redis (NARDY_WEBAPP_* set): the
boards' buttons that open it, a whole game against the computer played on it by tap on a phone, a friend game
played by one player on the page and the other with the chat's buttons, two pages racing a press, watchers
and strangers, and a page that outlives a restart of the bot."""

from __future__ import annotations

import asyncio
import random
import re
import time
from typing import TYPE_CHECKING, Any

import pytest

from bot.model.flow import ScriptedDice
from bot.model.table import Table
from bot.service import games
from bot.storage import Storage
from engine import Side
from testkit.board_pages import (
    buttons,
    movable,
    open_game,
    open_refused,
    play_to_the_end,
    press_once,
    version,
    wait_version,
)
from testkit.browser import Problems, in_thread
from testkit.fake_telegram import FakeTelegram, SimUser, StoredMessage
from testkit.fake_telegram.buttons import web_app_misplaced
from testkit.fake_telegram.play import (
    has_turn,
    is_over,
    play_turn,
    start_computer_game,
    start_friend_game,
    start_group_game,
)
from testkit.fake_telegram.runner import BotRunner
from testkit.web_client import init_data, services

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, WebSocketRoute

GROUP = -100777
LIVE = "📲 Live board"


def live_button(msg: StoredMessage) -> dict[str, Any]:
    found = [b for b in msg.buttons if b["text"] == LIVE]
    assert len(found) == 1, msg.buttons
    return found[0]


def page_url(msg: StoredMessage) -> str:
    return str(live_button(msg)["web_app"]["url"])


def game_of(url: str) -> str:
    found = re.search(r"\?game=([A-Za-z0-9_-]+)$", url)
    assert found, url
    return found[1]


def stored(bot: BotRunner, game_id: str) -> Table:
    async def load(d: Any) -> Table:
        table = await d.storage.games.load(game_id)
        assert table is not None
        return table

    found: Table = bot.call(load)
    return found


def test_a_private_board_opens_the_page_and_a_group_board_has_a_direct_link(
    tg: FakeTelegram, web: BotRunner
) -> None:
    carol = SimUser(tg, 3, "Carol")
    board = start_computer_game(tg, carol, "short", "Beginner")
    button = live_button(board)
    assert web.webapp is not None
    assert button["web_app"] == {"url": f"{web.webapp.url}?game={game_of(page_url(board))}"}
    assert button is board.buttons[-1]  # below the game's own buttons
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    group_board = start_group_game(tg, GROUP, alice, bob)
    link = live_button(group_board)
    assert "web_app" not in link
    game = stored(web, re.sub(r".*startapp=g", "", link["url"]))
    assert link["url"] == f"https://t.me/nardy_test_bot/board?startapp=g{game.id}" and game.mode == "group"
    assert not web.errors.records, web.errors.messages()


def test_the_fake_bot_api_refuses_a_web_app_button_outside_private_chats() -> None:
    markup = {"inline_keyboard": [[{"text": "x", "web_app": {"url": "https://example.org/app/"}}]]}
    assert not web_app_misplaced("sendPhoto", {"chat_id": 5, "reply_markup": markup}, private_chat=True)
    assert web_app_misplaced("sendPhoto", {"chat_id": -5, "reply_markup": markup}, private_chat=False)
    inline = {"inline_message_id": "i1", "reply_markup": markup}
    assert web_app_misplaced("editMessageReplyMarkup", inline, private_chat=False)
    assert web_app_misplaced("answerInlineQuery", {"results": [{"reply_markup": markup}]}, private_chat=False)
    url = {"inline_keyboard": [[{"text": "x", "url": "https://t.me/bot/app?startapp=g"}]]}
    assert not web_app_misplaced("sendPhoto", {"chat_id": -5, "reply_markup": url}, private_chat=False)


def test_the_fake_bot_api_answers_a_web_app_button_in_a_group_as_telegram_does(tg: FakeTelegram) -> None:
    import json
    import urllib.request

    tg.add_chat(GROUP, "group", "Nardy club")
    markup = {"inline_keyboard": [[{"text": "x", "web_app": {"url": "https://example.org/app/"}}]]}
    body = json.dumps({"chat_id": GROUP, "text": "hi", "reply_markup": markup}).encode()
    request = urllib.request.Request(
        f"{tg.api_url}/bot{tg.token}/sendMessage", body, {"Content-Type": "application/json"}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)
    assert refused.value.code == 400
    assert json.loads(refused.value.read())["description"] == "Bad Request: BUTTON_TYPE_INVALID"
    assert not tg.bot_messages(GROUP)


@pytest.mark.slow
def test_a_whole_short_game_against_the_computer_by_tap_on_a_phone(
    tg: FakeTelegram, web: BotRunner, phone: Page
) -> None:
    carol = SimUser(tg, 3, "Carol")
    board = start_computer_game(tg, carol, "short", "Beginner")
    url = page_url(board)
    open_game(phone, url, init_data(carol.id, "Carol"))
    assert phone.get_attribute("#board", "data-version") == str(stored(web, game_of(url)).version)
    moves = play_to_the_end(phone, "tap")
    assert moves >= 10 and buttons(phone) == ["rematch"]
    web.settle()
    final = tg.message(carol.id, board.message_id)
    assert is_over(final) and "wins" in (final.caption or ""), final.caption  # the chat's board followed
    game = game_of(url)  # the finished board's 📲 opens the game's review, the page offers it too
    assert web.webapp is not None and final.buttons[-1]["text"] == "📲 Review"
    assert final.buttons[-1]["web_app"] == {"url": f"{web.webapp.url}?review={game}/1"}
    assert phone.get_attribute("#buttons a.review", "data-game") == f"{game}/1"
    assert not web.errors.records, web.errors.messages()


def test_a_page_and_the_chats_buttons_play_one_game_together(
    tg: FakeTelegram, web: BotRunner, dice: ScriptedDice, desktop: Page
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(5, 3)  # the opening roll: Alice (white) 5, Bob 3: Alice moves first, with 5-3
    alice_board, bob_board = start_friend_game(tg, alice, bob, "short")
    url = page_url(alice_board)
    game_id = game_of(url)
    open_game(desktop, url, init_data(alice.id, "Alice"))
    rng = random.Random(5)
    turns = {"page": 0, "buttons": 0}
    for _ in range(8):
        table = stored(web, game_id)
        if table.over:
            break
        if table.game.deciding is Side.WHITE:  # Alice, on the page: Bob's board follows each move
            while movable(desktop) or "done" in buttons(desktop):
                before = version(desktop)
                press_once(desktop, "drag")
                shown = wait_version(desktop, before)
                web.settle()
                assert tg.message(bob.id, bob_board.message_id).caption, "Bob's board is drawn"
                assert stored(web, game_id).version == shown
            turns["page"] += 1
            tg.wait_for(
                lambda: (
                    has_turn(tg.message(bob.id, bob_board.message_id))
                    or stored(web, game_id).game.deciding is Side.WHITE
                ),
                10,
                "Bob's board offering his moves",
            )
        else:  # Bob, with the buttons: the page shows his moves as they are made
            before = version(desktop)
            play_turn(bob, tg.message(bob.id, bob_board.message_id), rng)
            wait_version(desktop, before)
            desktop.wait_for_selector(f'#board[data-version="{stored(web, game_id).version}"]')
            turns["buttons"] += 1
    assert turns["page"] >= 2 and turns["buttons"] >= 2, turns
    caption = tg.message(bob.id, bob_board.message_id).caption or ""
    assert "Alice rolled" in caption or "Alice moves" in caption or "Your move" in caption, caption
    assert not web.errors.records, web.errors.messages()


def test_two_pages_racing_the_same_press_one_wins_the_other_is_told(
    tg: FakeTelegram, web: BotRunner, browser: Browser
) -> None:
    carol = SimUser(tg, 3, "Carol")
    url = page_url(start_computer_game(tg, carol, "short", "Beginner"))
    one, two = browser.new_context().new_page(), browser.new_context().new_page()
    problems = [Problems(one), Problems(two)]
    held: list[str | bytes] = []
    routes: list[WebSocketRoute] = []
    holding = [False]

    def route(ws: WebSocketRoute) -> None:  # the second page's socket, its pushes held back on demand
        server = ws.connect_to_server()
        ws.on_message(server.send)
        server.on_message(lambda message: held.append(message) if holding[0] else ws.send(message))
        routes.append(ws)

    two.route_web_socket(re.compile(r".*/app/ws$"), route)
    init = init_data(carol.id, "Carol")
    open_game(one, url, init)
    open_game(two, url, init)
    start = version(one)
    assert version(two) == start
    holding[0] = True  # the second page does not hear of the first one's press...
    assert press_once(one, "drag") is not None
    wait_version(one, start)
    assert press_once(two, "drag") is not None  # ...and presses the same checker on the board it shows
    web.call(lambda d: asyncio.sleep(0.3))  # its refusal and the board now are on their way
    holding[0] = False
    for message in held:
        routes[0].send(message)
    two.wait_for_selector("#toast:not([hidden])")
    assert two.text_content("#toast") == "The board has just changed. Look at it again."
    wait_version(two, start)
    assert version(two) == version(one) == stored(web, game_of(url)).version == start + 1
    for page, found in zip((one, two), problems, strict=True):
        page.context.close()
        assert not [e for e in found.errors if e.startswith("page error")], found.errors


def test_a_stranger_watches_a_group_game_and_is_refused_a_private_one(
    tg: FakeTelegram, web: BotRunner, browser: Browser
) -> None:
    alice, bob, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob"), SimUser(tg, 3, "Carol")
    group_board = start_group_game(tg, GROUP, alice, bob)
    group_id = re.sub(r".*startapp=g", "", live_button(group_board)["url"])
    assert web.webapp is not None
    watcher = browser.new_context().new_page()
    open_game(watcher, f"{web.webapp.url}?game={group_id}", init_data(carol.id, "Carol"))
    assert watcher.text_content("#conn") == "watching" and not buttons(watcher) and not movable(watcher)
    private = page_url(start_computer_game(tg, SimUser(tg, 4, "Dave"), "short", "Beginner"))
    stranger = browser.new_context().new_page()
    assert "could not prove who you are" in open_refused(stranger, private)  # outside Telegram: no initData
    intruder = browser.new_context().new_page()
    assert (
        open_refused(intruder, private, init_data(carol.id, "Carol")) == "You are not playing in this game."
    )
    for page in (watcher, stranger, intruder):
        page.context.close()
    dave = init_data(4, "Dave")
    for bad in (  # the player's own page, with initData forged, expired, or signed for another bot
        dave.replace("Dave", "Eve"),
        init_data(4, "Dave", auth_date=time.time() - 2 * 86400),
        init_data(4, "Dave", token="999:OTHER"),
    ):
        page = browser.new_context().new_page()
        assert "could not prove who you are" in open_refused(page, private, bad)
        page.context.close()
    owner = browser.new_context().new_page()
    open_game(owner, private, dave)  # the same page, with initData Telegram signed for its player: the board
    assert movable(owner) or buttons(owner)
    owner.context.close()


def test_the_page_reconnects_after_a_restart_of_the_bot_and_shows_the_truth(
    tg: FakeTelegram, web: BotRunner, redis_url: str, desktop: Page
) -> None:
    carol = SimUser(tg, 3, "Carol")
    url = page_url(start_computer_game(tg, carol, "short", "Beginner"))
    open_game(desktop, url, init_data(carol.id, "Carol"))
    before = version(desktop)
    web.stop()
    desktop.wait_for_selector("#conn:not([hidden])")  # "reconnecting…"

    async def move_while_down() -> int:  # a change the page cannot hear: the bot is down
        storage = Storage.from_url(redis_url)
        table = await storage.games.load(game_of(url))
        assert table is not None
        step = table.step().next_moves[0]
        moved = await games.move(
            services(storage, ScriptedDice()), table, carol.id, table.version, step.src, step.die
        )
        await storage.close()
        return moved.version

    truth = in_thread(lambda: asyncio.run(move_while_down()))
    assert truth > before
    web.start()
    desktop.wait_for_selector(f'#board[data-version="{truth}"]', timeout=20000)
    desktop.wait_for_selector("#conn", state="hidden")
    assert movable(desktop) or "done" in buttons(desktop)
