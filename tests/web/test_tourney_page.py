"""The standings page (bot/web/static/tourney/) in Debian's Chromium, served by the bot's own page server
over a real Redis: a player's page lists the arena's players and the games in play, and shows the winner on
top after a result (the page reads the standings again by itself)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Coroutine, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from bot.model.flow import ScriptedDice, resign
from bot.model.table import Person
from bot.service import tournaments
from bot.service.context import Services
from bot.storage import Storage
from bot.web.server import WebServer
from bot.web.sockets import Signer
from testkit.browser import CSP_WATCH, FAKE_TELEGRAM
from testkit.fake_telegram.server import BOT_TOKEN
from testkit.web_client import init_data, services

if TYPE_CHECKING:
    from playwright.sync_api import Page

T = TypeVar("T")
WAIT_MS = 30_000  # generous: a loaded machine, and the page reads every 5 s


class Served:
    """The page server and the game service on an event loop of their own thread (Playwright's sync API
    runs in the test's)."""

    def __init__(self, redis_url: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.storage = self.run(self._storage(redis_url))
        self.s: Services = services(self.storage, ScriptedDice(seed=5), clock=time.time)
        self.server = WebServer(self.s, Signer(BOT_TOKEN, 86400.0), "127.0.0.1", 0)
        self.server.add_page_routes("/app")
        self.run(self.server.start())

    @staticmethod
    async def _storage(redis_url: str) -> Storage:
        return Storage.from_url(redis_url, timeout=10.0)

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(60)

    def close(self) -> None:
        self.run(self.server.stop())
        self.run(self.storage.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def served(redis_url: str) -> Iterator[Served]:
    here = Served(redis_url)
    yield here
    here.close()


async def running_arena(s: Services) -> str:
    t = await tournaments.create(s, -100666, "Club", Person(1, "Ann"), "arena", "short-blitz", 5, 0)
    for uid, name in ((1, "Ann"), (2, "Ben"), (3, "Cid"), (4, "Dee")):
        await tournaments.join(s, t.id, Person(uid, name))
    await tournaments.start_games(s, await tournaments.start(s, t.id, 1))
    return t.id


async def first_game_resigned(s: Services, tourney_id: str) -> str:
    """The first running game's black resigns; the tournament takes the result. The winner's name."""
    t = await s.storage.tournaments.load(tourney_id)
    assert t is not None
    game = t.running_games[0]
    table = await s.storage.games.load(game.game)
    assert table is not None
    await s.storage.games.save(s.stamped(resign(table, game.players[1], table.number)))
    await tournaments.advance(s, tourney_id)
    return t.name_of(game.players[0])


def test_the_standings_page_shows_the_players_and_the_winner_after_a_result(
    served: Served, desktop: Page
) -> None:
    tid = served.run(running_arena(served.s))
    desktop.add_init_script(CSP_WATCH)
    desktop.add_init_script(FAKE_TELEGRAM.replace("INIT_DATA", json.dumps(init_data(2, "Ben"))))
    desktop.goto(f"{served.server.local_url}/app/?tourney={tid}")
    desktop.wait_for_selector("td.name", timeout=WAIT_MS)
    assert sorted(desktop.locator("td.name").all_text_contents()) == ["Ann", "Ben", "Cid", "Dee"]
    assert desktop.locator("#playing li").count() == 2
    winner = served.run(first_game_resigned(served.s, tid))
    desktop.wait_for_function(
        "() => { var p = document.querySelector('td.points'); return p && p.textContent !== '0'; }",
        timeout=WAIT_MS,
    )
    assert desktop.locator("td.name").first.text_content() == winner


def test_the_home_sends_a_cards_start_parameter_to_the_standings_page(served: Served, desktop: Page) -> None:
    """Where Telegram gives the start parameter only inside initData, the home opens the standings."""
    tid = served.run(running_arena(served.s))
    init = init_data(9, "Stranger", start_param=f"tourney_{tid}")
    fake = FAKE_TELEGRAM.replace("INIT_DATA", json.dumps(init)).replace(
        "initDataUnsafe: {}", "initDataUnsafe: " + json.dumps({"start_param": f"tourney_{tid}"})
    )
    desktop.add_init_script(CSP_WATCH)
    desktop.add_init_script(fake)
    desktop.goto(f"{served.server.local_url}/app/")
    desktop.wait_for_selector("td.name", timeout=WAIT_MS)
    assert desktop.locator("td.name").count() == 4
