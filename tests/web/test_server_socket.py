"""The board page's server at the WebSocket level, without a browser (aiohttp's client): who may open a
game's page (signed, fresh initData of one of its players; anyone watching a group's game; nobody else),
from which origin, and what a press does (the game service's checks, a refusal said, an old board sent
again, a change reaching every page of the game, whoever made it)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

import aiohttp
import pytest
import redis.asyncio

from bot.model.flow import Refused, ScriptedDice
from bot.model.table import Person, Table
from bot.service import games
from bot.service.context import Services
from bot.service.rates import Limits, Rate
from bot.storage import Storage
from bot.web import CONTENT_SECURITY_POLICY, STATIC_DIR, sockets
from bot.web.server import WebServer
from engine import Phase, Side
from testkit.web_client import (
    DAY,
    PageSocket,
    computer_game,
    friend_game,
    group_game,
    init_data,
    page_server,
    page_socket,
    services,
)

ALICE, BOB, CAROL = Person(1001, "Alice"), Person(1002, "Bob", "ru"), Person(1003, "Carol")


class Clock:
    """The bot's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Setup:
    s: Services
    server: WebServer
    http: aiohttp.ClientSession
    clock: Clock

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.server.port}/app/ws"

    def init(self, who: Person, **kw: object) -> str:
        return init_data(who.user_id, who.name, auth_date=kw.pop("auth_date", self.clock.now), **kw)  # type: ignore[arg-type]

    def page(self, origin: str | None = None) -> AbstractAsyncContextManager[PageSocket]:
        return page_socket(self.http, self.ws_url, origin)


@pytest.fixture
async def setup(redis_url: str) -> AsyncIterator[Setup]:
    storage = Storage.from_url(redis_url)
    clock = Clock()
    s = services(storage, ScriptedDice(seed=5), clock=clock)
    async with page_server(s) as server, aiohttp.ClientSession() as http:
        yield Setup(s, server, http, clock)
    await storage.close()


def move_of(state: dict[str, object]) -> tuple[int, int]:
    steps = state["steps"]
    assert isinstance(steps, list) and steps, state
    return steps[0]["src"], steps[0]["die"]


async def test_a_player_with_good_init_data_gets_the_board_from_their_side(setup: Setup) -> None:
    table = await friend_game(setup.s, ALICE, BOB)
    async with setup.page() as alice, setup.page() as bob:
        state = await alice.hello(table.id, setup.init(ALICE))
        assert state["type"] == "state" and state["game"] == table.id and state["version"] == table.version
        assert (
            state["you"] == 0 and state["view"]["viewer"] == 0 and state["view"]["names"] == ["Alice", "Bob"]
        )
        russian = await bob.hello(table.id, setup.init(BOB, lang="ru"))
        assert russian["you"] == 1 and russian["lang"] == "ru"
        mover = Side(table.game.deciding)
        mine = (state, russian)[mover]
        assert mine["steps"] and "resign" in mine["actions"], mine
        assert not (state, russian)[mover.other]["steps"]


async def test_forged_expired_foreign_or_missing_init_data_is_refused_and_changes_nothing(
    setup: Setup,
) -> None:
    table = await friend_game(setup.s, ALICE, BOB)
    good = setup.init(ALICE)
    cases = {
        "forged": good.replace("Alice", "Carol"),
        "another bot's": init_data(ALICE.user_id, "Alice", token="999:OTHER", auth_date=setup.clock.now),
        "expired": setup.init(ALICE, auth_date=setup.clock.now - DAY - 1),
        "none": "",
    }
    for name, init in cases.items():
        async with setup.page() as page:
            answer = await page.hello(table.id, init)
            assert answer["type"] == "error" and answer["fatal"], (name, answer)
            assert "could not prove who you are" in answer["text"], (name, answer)
            await asyncio.wait_for(page._reader, 5)
            assert page.closed, name
    assert (await setup.s.storage.games.load(table.id)) == table


async def test_a_socket_from_another_origin_or_none_is_refused(setup: Setup) -> None:
    for origin in ("https://evil.example", f"http://localhost:{setup.server.port}", ""):
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await setup.http.ws_connect(setup.ws_url, headers={"Origin": origin} if origin else {})
        assert refused.value.status == 403, origin


async def test_every_answer_carries_the_content_security_policy(setup: Setup) -> None:
    base = f"http://127.0.0.1:{setup.server.port}"
    for path in (
        "/app/",
        "/app/static/board/main.js",
        "/app/static/board.css",
        "/app/static/nothing",
        "/elsewhere",
    ):
        async with setup.http.get(base + path) as answer:
            assert answer.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY, path
            assert answer.headers["X-Content-Type-Options"] == "nosniff", path
    async with setup.http.get(base + "/app?game=x", allow_redirects=False) as answer:
        assert answer.status == 302 and answer.headers["Location"] == "/app/?game=x"
    async with setup.http.get(base + "/app/static/../__init__.py") as answer:
        assert answer.status == 404
    async with setup.http.get(base + "/app/static/board/../../__init__.py") as answer:
        assert answer.status == 404


async def test_the_pages_modules_are_served_as_javascript(setup: Setup) -> None:
    """A browser runs an ES module only if it comes as JavaScript (nosniff: no guessing)."""
    base = f"http://127.0.0.1:{setup.server.port}/app/static/"
    modules = sorted(path.name for path in (STATIC_DIR / "board").glob("*.js"))
    assert "main.js" in modules and "input.js" in modules
    for name in modules:
        async with setup.http.get(base + "board/" + name) as answer:
            assert answer.status == 200, name
            assert answer.content_type == "text/javascript", name
            assert answer.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY, name
            assert (await answer.text()).startswith("/* "), name


async def test_a_stranger_is_refused_a_private_game_and_watches_a_group_game(setup: Setup) -> None:
    private = await computer_game(setup.s, ALICE)
    async with setup.page() as page:
        answer = await page.hello(private.id, setup.init(CAROL))
        assert (
            answer["type"] == "error"
            and answer["fatal"]
            and answer["text"] == "You are not playing in this game."
        )
    group = await group_game(setup.s, -100500, ALICE, BOB)
    async with setup.page() as watcher:
        state = await watcher.hello(group.id, setup.init(CAROL))
        assert (
            state["type"] == "state" and state["you"] is None and not state["steps"] and not state["actions"]
        )
        await watcher.press(state["version"], "resign")
        refused = await watcher.next()
        assert refused == {"type": "refused", "text": "You are not playing in this game."}
    assert (await setup.s.storage.games.load(group.id)) == group


async def test_each_player_sees_the_others_moves_at_once(setup: Setup) -> None:
    table = await friend_game(setup.s, ALICE, BOB)
    async with setup.page() as alice, setup.page() as bob:
        states = [await alice.hello(table.id, setup.init(ALICE)), await bob.hello(table.id, setup.init(BOB))]
        mover = int(table.game.deciding)
        page = (alice, bob)[mover]
        src, die = move_of(states[mover])
        await page.press(table.version, "move", src, die)
        for each in (alice, bob):
            state = await each.state()
            assert state["version"] == table.version + 1
            assert state["view"]["dice_used"] == [die]


async def test_a_press_on_an_old_board_is_refused_and_the_board_sent_again(setup: Setup) -> None:
    table = await computer_game(setup.s, ALICE)
    async with setup.page() as page:
        state = await page.hello(table.id, setup.init(ALICE))
        src, die = move_of(state)
        await page.press(state["version"] - 1, "move", src, die)
        assert await page.next() == {
            "type": "refused",
            "text": "The board has just changed. Look at it again.",
        }
        again = await page.next()
        assert again["type"] == "state" and again["version"] == table.version
    assert (await setup.s.storage.games.load(table.id)) == table


async def test_a_refused_press_says_why_in_the_players_language(setup: Setup) -> None:
    table = await friend_game(setup.s, ALICE, BOB)
    waiting = BOB if table.game.deciding is Side.WHITE else ALICE
    async with setup.page() as page:
        state = await page.hello(table.id, setup.init(waiting, lang=waiting.lang))
        await page.press(state["version"], "done")
        refused = await page.next()
        expected = "Сейчас не ваш ход." if waiting is BOB else "It is not your turn."
        assert refused["type"] == "refused" and refused["text"] == expected, refused


async def test_two_pages_racing_the_same_press_one_wins_the_other_is_told(setup: Setup) -> None:
    table = await computer_game(setup.s, ALICE)
    async with setup.page() as one, setup.page() as two:
        first = await one.hello(table.id, setup.init(ALICE))
        await two.hello(table.id, setup.init(ALICE))
        src, die = move_of(first)
        await asyncio.gather(
            one.press(table.version, "move", src, die), two.press(table.version, "move", src, die)
        )
        for page in (one, two):  # each page shows the winner's move (the loser's page too)
            assert (await page.state(table.version + 1))["version"] == table.version + 1
        told = [page for page in (one, two) if any(m["type"] == "refused" for m in page.messages)]
        if not told:  # the loser's refusal may come after the winner's state
            await asyncio.sleep(0.5)
            told = [page for page in (one, two) if any(m["type"] == "refused" for m in page.messages)]
        assert len(told) == 1, [one.messages, two.messages]
        refusal = next(m for m in told[0].messages if m["type"] == "refused")
        assert refusal["text"] == "The board has just changed. Look at it again."
    stored = await setup.s.storage.games.load(table.id)
    assert stored is not None and stored.version == table.version + 1 and len(stored.moves) == 1


async def test_a_change_made_elsewhere_reaches_the_page_through_redis(setup: Setup) -> None:
    table = await friend_game(setup.s, ALICE, BOB)
    mover = ALICE if table.game.deciding is Side.WHITE else BOB
    async with setup.page() as page:
        await page.hello(table.id, setup.init(mover))
        move = table.step().next_moves[0]
        elsewhere = services(setup.s.storage, ScriptedDice(seed=1))  # as a button on another worker
        await games.move(elsewhere, table, mover.user_id, table.version, move.src, move.die)
        state = await page.state(table.version + 1, timeout=5)
        assert state["view"]["dice_used"] == [move.die]
    assert setup.server.live.loads >= 1


async def test_a_hint_in_a_game_against_the_computer_and_none_in_a_rated_one(setup: Setup) -> None:
    solo = await computer_game(setup.s, ALICE)
    async with setup.page() as page:
        state = await page.hello(solo.id, setup.init(ALICE))
        assert "hint" in state["actions"]
        await page.press(state["version"], "hint")
        hinted = await page.next()
        assert hinted["type"] == "state" and hinted["message"].splitlines()[-1].startswith("💡 Best: "), (
            hinted
        )
    rated = await friend_game(setup.s, CAROL, BOB)
    mover = CAROL if rated.game.deciding is Side.WHITE else BOB
    async with setup.page() as page:
        state = await page.hello(rated.id, setup.init(mover))
        assert "hint" not in state["actions"] and state["steps"]
        await page.press(state["version"], "hint")
        assert (await page.next())["type"] == "refused"


async def test_presses_past_the_inbound_limit_are_refused(redis_url: str) -> None:
    storage = Storage.from_url(redis_url)
    s = services(storage, ScriptedDice(seed=5))
    limits = Limits(user_presses=Rate(3, 0.01), clock=lambda: 1000.0)  # the buckets' clock stands still
    table = await computer_game(s, ALICE)
    async with (
        page_server(s, limits=limits) as server,
        aiohttp.ClientSession() as http,
        page_socket(http, f"ws://127.0.0.1:{server.port}/app/ws") as page,
    ):
        state = await page.hello(table.id, init_data(ALICE.user_id, "Alice"))  # the hello takes one
        texts = []
        for _ in range(3):
            await page.press(state["version"] - 1, "undo")
            texts.append((await page.next("refused"))["text"])
        assert texts[:2] == ["The board has just changed. Look at it again."] * 2
        assert texts[2] == "Too many presses at once. Wait a moment, then press again."
    await storage.close()


async def test_init_data_that_ages_while_the_page_is_open_ends_it_at_the_next_press(setup: Setup) -> None:
    table = await computer_game(setup.s, ALICE)
    async with setup.page() as page:
        state = await page.hello(table.id, setup.init(ALICE))
        setup.clock.now += DAY + 1
        src, die = move_of(state)
        await page.press(state["version"], "move", src, die)
        answer = await page.next()
        assert answer["type"] == "error" and answer["fatal"], answer
    assert (await setup.s.storage.games.load(table.id)) == table


async def test_a_socket_that_says_no_hello_is_closed(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sockets, "HELLO_WITHIN", 0.2)
    async with setup.page() as page:
        answer = await page.next(timeout=5)
        assert answer == {"type": "error", "text": "no hello", "fatal": True}


async def test_a_live_game_sends_its_clocks_as_of_the_save_for_the_page_to_count_down(setup: Setup) -> None:
    table: Table = await friend_game(setup.s, ALICE, BOB, "short-live")
    assert table.clock is not None and table.moved_at is not None
    async with setup.page() as page:
        state = await page.hello(table.id, setup.init(ALICE))
        assert "Opening roll" in state["message"], state
        assert "⏱" not in state["message"], state  # the clocks tick in the panels, not in a stale line
        assert page.welcome is not None and page.welcome["now"] == setup.clock.now
    clock = state["clock"]
    reserve = table.clock.control.reserve(1)
    assert clock["left"] == [reserve, reserve]
    assert clock["running"] == int(table.game.deciding)
    assert clock["at"] == round(table.moved_at, 3)
    assert 0 < clock["delay"] <= table.clock.control.delay
    assert table.game.phase is Phase.MOVE


async def test_a_game_without_clocks_sends_none(setup: Setup) -> None:
    table = await friend_game(setup.s, ALICE, BOB)
    async with setup.page() as page:
        state = await page.hello(table.id, setup.init(ALICE))
    assert "clock" not in state


async def test_a_flag_applied_by_the_server_reaches_the_page_at_once_with_the_clocks_stopped(
    setup: Setup,
) -> None:
    table: Table = await friend_game(setup.s, ALICE, BOB, "short-live")
    assert table.clock is not None
    deadline = table.clock.deadline()
    assert deadline is not None
    async with setup.page() as page:
        await page.hello(table.id, setup.init(ALICE))
        setup.clock.now = deadline + 1
        with pytest.raises(Refused):
            await games.apply_flag(setup.s, table)  # as the clocks' sweeper does, on any worker
        state = await page.state(table.version + 1)
    assert state["view"]["winner"] == int(table.game.deciding.other)
    assert state["clock"]["running"] is None and state["actions"] == ["rematch"]


@pytest.mark.parametrize(
    ("code", "lang", "direction", "undo"),
    [("uk", "uk", "ltr", "Скасувати"), ("fa-IR", "fa", "rtl", "برگرداندن"), ("kk", "ru", "ltr", "Отменить")],
)
async def test_the_welcome_brings_the_page_its_words_in_the_persons_language(
    setup: Setup, code: str, lang: str, direction: str, undo: str
) -> None:
    table = await friend_game(setup.s, ALICE, BOB)
    async with setup.page() as page:
        state = await page.hello(table.id, setup.init(ALICE, lang=code))
    welcome = page.welcome
    assert welcome is not None and state["lang"] == welcome["lang"] == lang
    assert welcome["dir"] == direction and welcome["words"]["undo"] == undo
    assert welcome["words"]["match"].count("{n}") == 1  # the page fills the placeholders


async def test_a_chosen_language_in_settings_wins_over_telegrams_on_the_page(setup: Setup) -> None:
    await setup.s.settings.choose(ALICE.user_id, "lang", "hy")
    table = await friend_game(setup.s, ALICE, BOB)
    async with setup.page() as page:
        await page.hello(table.id, setup.init(ALICE, lang="ru"))
    assert page.welcome is not None and page.welcome["lang"] == "hy"
    assert page.welcome["words"]["resign"] == "Հանձնվել"


async def test_a_game_that_is_not_there_is_said_so(setup: Setup) -> None:
    for game in ("nosuchgame", "../../etc", "g:1 *"):
        async with setup.page() as page:
            answer = await page.hello(game, setup.init(ALICE))
            assert answer == {
                "type": "error",
                "text": "This game is over or no longer exists.",
                "fatal": True,
            }
    assert setup.server.live.pages("nosuchgame") == 0


async def test_a_save_made_while_the_feed_was_lost_reaches_the_page_once_it_is_back(
    setup: Setup, redis_url: str
) -> None:
    table = await friend_game(setup.s, ALICE, BOB)
    mover = ALICE if table.game.deciding is Side.WHITE else BOB
    async with setup.page() as page:
        await page.hello(table.id, setup.init(mover))
        killer = redis.asyncio.Redis.from_url(redis_url)
        assert await killer.client_kill_filter(_type="pubsub") >= 1  # Redis drops the worker's subscription
        await killer.aclose()
        move = table.step().next_moves[0]
        elsewhere = services(setup.s.storage, ScriptedDice(seed=1))  # a button on another worker, meanwhile
        await games.move(elsewhere, table, mover.user_id, table.version, move.src, move.die)
        state = await page.state(table.version + 1, timeout=10)
        assert state["view"]["dice_used"] == [move.die]
        await asyncio.wait_for(setup.server.live.connected.wait(), 5)
