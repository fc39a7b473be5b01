"""The ways to a finished game's review from where the game ends: the board page's state names the game to
review ("GAME/N") for its players and a group's watchers, a match's game that just ended included, while
a game going on names none; and the analysis a player is likely to ask for next is worked out in the
background as the game ends before their eyes (bot/service/reviews.py Analyses.warm), once, never while
the analysis workers are busy, and never from a page that opened on a game already over."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from typing import Any

import aiohttp
import pytest

from bot.i18n import texts
from bot.model.flow import ScriptedDice
from bot.model.table import Person, Table
from bot.service import games
from bot.service.context import Services
from bot.storage import Storage
from bot.telegram.keyboards import WebAppLinks, board_markup
from bot.web.live import Live
from bot.web.server import WebServer
from engine import Game, Side
from testkit.web_client import (
    PageSocket,
    friend_game,
    group_game,
    init_data,
    page_server,
    page_socket,
    played_out,
    services,
)

ALICE, BOB, CAROL = Person(1001, "Alice"), Person(1002, "Bob"), Person(1003, "Carol")
NOW = 1_800_000_000.0
WAIT = 60.0  # seconds a background analysis may take on a loaded machine


@dataclass
class Setup:
    s: Services
    server: WebServer
    http: aiohttp.ClientSession
    works: list[str]
    idle: list[bool]

    def page(self) -> AbstractAsyncContextManager[PageSocket]:
        return page_socket(self.http, f"ws://127.0.0.1:{self.server.port}/app/ws")

    async def kept(self, table: Table, number: int = 1) -> dict[str, Any] | None:
        return await self.s.storage.reviews.analysis(table.id, number)

    async def until_kept(self, table: Table, number: int = 1) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT
        while loop.time() < deadline:
            found = await self.kept(table, number)
            if found is not None:
                return found
            await asyncio.sleep(0.05)
        raise AssertionError(f"no analysis of {table.id}/{number} kept within {WAIT} s (works: {self.works})")


def init(who: Person) -> str:
    return init_data(who.user_id, who.name, auth_date=NOW)


@pytest.fixture
async def setup(redis_url: str) -> AsyncIterator[Setup]:
    storage = Storage.from_url(redis_url)
    s = services(storage, ScriptedDice(seed=5), clock=lambda: NOW)
    works: list[str] = []
    idle = [True]

    async def work(s: Services, game: Game) -> dict[str, Any]:  # a stand-in: the real one is the API's test
        works.append(game.game)
        await asyncio.sleep(0.05)
        return {"depth": "expert", "plays": [], "sides": [], "chances": [], "turns": len(game.history)}

    async with page_server(s) as server, aiohttp.ClientSession() as http:
        server.reviews.analyses.work = work
        server.reviews.analyses.idle = lambda: idle[0]
        yield Setup(s, server, http, works, idle)
    await storage.close()


async def played_until(s: Services, table: Table, done: Callable[[Table], bool], seed: int = 1) -> Table:
    """`table` played by both persons (the engine's beginner, seeded) until `done(table)`."""
    from engine.ai import choose_play

    rng = random.Random(seed)
    for _ in range(4000):
        if done(table):
            return table
        game = table.game
        assert game.dice is not None, f"game {table.id} waits for no play: phase {game.phase}"
        user = table.players[game.deciding].user_id
        play = choose_play(game.rules, game.position, game.dice, "beginner", rng)
        table = await games.play(s, table, user, table.version, tuple((m.src, m.die) for m in play.moves))
        if table.moves:
            table = await games.done(s, table, user, table.version)
    raise AssertionError(f"game {table.id} did not get there in 4000 turns")


# ---------------------------------------------------------------------- the chat's board


def test_a_finished_boards_button_opens_the_review_in_a_private_chat_and_by_direct_link_elsewhere() -> None:
    links = WebAppLinks("https://nardy.example/app/", "nardybot", "play")
    playing = Table("gAbCdEfGhI", "friend", Game.new("short"), (ALICE, BOB), "en", number=3)
    over = replace(playing, game=playing.game.resign(Side.BLACK))
    group = replace(over, mode="group", chat_id=-5)
    en, ru = texts("en"), texts("ru")

    def last(table: Table, t: Any = en) -> Any:
        markup = board_markup(t, table, None, links)
        assert markup is not None
        return markup.inline_keyboard[-1][0]

    live = last(playing)
    assert live.text == "📲 Live board" and live.web_app.url == "https://nardy.example/app/?game=gAbCdEfGhI"
    review = last(over)
    assert (
        review.text == "📲 Review" and review.web_app.url == "https://nardy.example/app/?review=gAbCdEfGhI/3"
    )
    assert last(over, ru).text == ru.gettext("📲 Review") != "📲 Review"
    direct = last(group)
    assert direct.web_app is None and direct.url == "https://t.me/nardybot/play?startapp=r3_gAbCdEfGhI"
    assert WebAppLinks("https://nardy.example/app/", "nardybot").button(en, group) is None


# ---------------------------------------------------------------------- the state names the review


async def test_a_finished_game_names_its_review_to_its_players_and_a_groups_watchers(setup: Setup) -> None:
    table = await group_game(setup.s, -100500, ALICE, BOB)
    async with setup.page() as alice, setup.page() as carol:
        playing = await alice.hello(table.id, init(ALICE))
        watching = await carol.hello(table.id, init(CAROL))
        assert "review" not in playing and "review" not in watching  # nothing to review yet
        over = await played_out(setup.s, table)
        mine, theirs = await alice.state(over.version), await carol.state(over.version)
    assert mine["review"] == theirs["review"] == f"{table.id}/1"
    assert mine["you"] is not None and theirs["you"] is None


async def test_a_matchs_game_that_just_ended_is_named_as_the_next_begins(setup: Setup) -> None:
    table = await friend_game(setup.s, ALICE, BOB, "short.3")
    async with setup.page() as page:
        await page.hello(table.id, init(ALICE))
        second = await played_until(setup.s, table, lambda t: t.number == 2)
        state = await page.state(second.version)
        assert not second.over and state["review"] == f"{table.id}/1"
        later = await played_until(setup.s, second, lambda t: t.version > second.version)  # a play of game 2
        assert later.number == 2 and "review" not in await page.state(later.version)


# ---------------------------------------------------------------------- the analysis ahead


async def test_a_game_that_ends_before_its_players_page_has_its_analysis_kept_unasked(setup: Setup) -> None:
    table = await friend_game(setup.s, ALICE, BOB)
    async with setup.page() as alice:
        await alice.hello(table.id, init(ALICE))
        over = await played_out(setup.s, table)  # the chat's presses: the page hears them through Redis
        await alice.state(over.version)
        kept = await setup.until_kept(table)
    assert kept["turns"] == len(over.game.history) and setup.works == ["short"]
    url = f"http://127.0.0.1:{setup.server.port}/app/api/review?game={table.id}%2F1"
    async with setup.http.get(url, headers={"Authorization": "tma " + init(BOB)}) as answer:
        assert answer.status == 200 and (await answer.json())["analysis"] == kept  # the review reads it


class FakePage:
    def __init__(self, game: str, you: Side | None, shown: int) -> None:
        self.game, self.you, self.lang, self.shown, self.ready = game, you, "en", shown, True
        self.sent: list[str] = []

    async def send(self, text: str) -> None:
        self.sent.append(text)


async def test_only_a_game_ending_before_a_players_eyes_is_told_for_its_analysis(redis_url: str) -> None:
    storage = Storage.from_url(redis_url)
    live = Live(storage)
    told: list[tuple[str, int]] = []
    live.ended = lambda table, number: told.append((table.id, number))
    playing = Table("gAbCdEfGhI", "group", Game.new("short"), (ALICE, BOB), "en", chat_id=-5, version=7)
    over = replace(playing, game=playing.game.resign(Side.BLACK), version=8)
    watcher, opened = FakePage(over.id, None, 7), FakePage(over.id, Side.WHITE, -1)
    for page in (watcher, opened):
        await live.join(page)
    await live.show(over)  # a watcher saw it end; a player's page opened on it over
    await live.show(playing)
    player = FakePage(over.id, Side.BLACK, 6)
    await live.join(player)
    await live.show(replace(playing, version=9))  # a change that ends nothing
    assert told == [] and watcher.sent and opened.sent and player.sent
    await live.show(replace(over, version=10))
    assert told == [(over.id, 1)]
    await storage.close()


async def test_the_analysis_ahead_waits_for_idle_workers_runs_once_and_logs_its_failures(
    setup: Setup, caplog: pytest.LogCaptureFixture
) -> None:
    analyses = setup.server.reviews.analyses
    over = await played_out(setup.s, await friend_game(setup.s, ALICE, BOB))
    setup.idle[0] = False
    analyses.warm(over, 1)  # the workers are busy: nothing starts
    assert not analyses._warming and await setup.kept(over) is None
    setup.idle[0] = True
    for _ in range(5):
        analyses.warm(over, 1)
    await asyncio.wait(analyses._warming, timeout=WAIT)
    assert setup.works == ["short"] and await setup.kept(over) is not None
    analyses.warm(over, 1)  # kept: read, not worked out again
    await asyncio.wait(analyses._warming, timeout=WAIT)
    assert setup.works == ["short"]

    async def failing(s: Services, game: Game) -> dict[str, Any]:
        raise RuntimeError("the engine broke")

    analyses.work = failing
    other = await played_out(setup.s, await friend_game(setup.s, ALICE, CAROL))
    analyses.warm(other, 1)
    await asyncio.wait(analyses._warming, timeout=WAIT)
    assert await setup.kept(other) is None and "failed to be worked out ahead" in caplog.text


async def test_the_analysis_ahead_is_cancelled_when_the_server_stops(redis_url: str) -> None:
    storage = Storage.from_url(redis_url)
    s = services(storage, ScriptedDice(seed=5), clock=lambda: NOW)
    started = asyncio.Event()

    async def endless(s: Services, game: Game) -> dict[str, Any]:
        started.set()
        await asyncio.Event().wait()
        raise AssertionError("never")

    async with page_server(s) as server:
        server.reviews.analyses.work = endless
        server.reviews.analyses.idle = lambda: True
        over = await played_out(s, await friend_game(s, ALICE, BOB))
        server.reviews.analyses.warm(over, 1)
        tasks = set(server.reviews.analyses._warming)
        await asyncio.wait_for(started.wait(), WAIT)
    assert tasks and all(t.done() for t in tasks)
    await storage.close()
