"""The standings page's server (bot/web/standings.py, tourney_view.py) against the real Redis: a player, or a
page opened from the group card's link (its signed start parameter), reads the standings, and sees a result
once the tournament is saved; initData of another bot, someone else's page and a forged id see nothing."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from bot.model.flow import ScriptedDice, resign
from bot.model.table import Person
from bot.service import tournaments
from bot.service.context import Services
from bot.service.rates import Limits, Rate
from bot.storage import Storage
from bot.web.server import WebServer
from bot.web.tourney_view import start_param
from testkit.web_client import init_data, page_server, services

GROUP = -100555


@pytest.fixture
async def served(redis_url: str) -> AsyncIterator[tuple[Services, WebServer, aiohttp.ClientSession]]:
    storage = Storage.from_url(redis_url, timeout=10.0)
    s = services(storage, ScriptedDice(seed=5), clock=time.time)
    async with page_server(s) as server, aiohttp.ClientSession() as http:
        yield s, server, http
    await storage.close()


async def running_arena(s: Services) -> str:
    t = await tournaments.create(s, GROUP, "Club", Person(1, "Ann"), "arena", "short-blitz", 5, 0)
    for uid, name in ((1, "Ann"), (2, "Ben"), (3, "Cid"), (4, "Dee")):
        await tournaments.join(s, t.id, Person(uid, name))
    started = await tournaments.start(s, t.id, 1)
    await tournaments.start_games(s, started)
    return t.id


async def ask(
    server: WebServer, http: aiohttp.ClientSession, init: str, tourney_id: str
) -> tuple[int, dict[str, Any]]:
    async with http.post(
        server.local_url + "/app/tourney/standings", json={"initData": init, "id": tourney_id}
    ) as answer:
        return answer.status, (await answer.json() if answer.status == 200 else {})


async def test_a_player_sees_the_arena_standings_and_a_result_after_the_save(
    served: tuple[Services, WebServer, aiohttp.ClientSession],
) -> None:
    s, server, http = served
    tid = await running_arena(s)
    status, view = await ask(server, http, init_data(2), tid)
    assert status == 200
    assert sorted(line["name"] for line in view["standings"]) == ["Ann", "Ben", "Cid", "Dee"]
    assert all(line["playing"] for line in view["standings"])
    assert len(view["playing"]) == 2 and view["left"] > 0 and view["you"] == "Ben"
    assert view["words"]["standings"] == "Standings"
    t = await s.storage.tournaments.load(tid)
    assert t is not None
    game = t.running_games[0]
    table = await s.storage.games.load(game.game)
    assert table is not None
    await s.storage.games.save(s.stamped(resign(table, game.players[1], table.number)))
    await tournaments.advance(s, tid)
    _, after = await ask(server, http, init_data(2), tid)
    winner = next(line for line in after["standings"] if line["points"] > 0)
    assert winner["place"] == 1 and winner["name"] == t.name_of(game.players[0])


async def test_the_card_link_shows_the_standings_to_someone_not_playing_in_their_language(
    served: tuple[Services, WebServer, aiohttp.ClientSession],
) -> None:
    s, server, http = served
    tid = await running_arena(s)
    status, view = await ask(server, http, init_data(9, lang="ru", start_param=start_param(tid)), tid)
    assert status == 200 and view["you"] is None
    assert view["words"]["standings"] == "Турнирная таблица"


async def test_foreign_init_data_a_stranger_and_a_forged_id_see_nothing(
    served: tuple[Services, WebServer, aiohttp.ClientSession],
) -> None:
    s, server, http = served
    tid = await running_arena(s)
    assert (await ask(server, http, init_data(2, token="123:another-bot"), tid))[0] == 401
    assert (await ask(server, http, init_data(9), tid)) == (404, {})  # not a player, no card link
    forged = init_data(9, start_param=start_param("forged1234"))
    assert (await ask(server, http, forged, tid)) == (404, {})  # a link to another tournament
    assert (await ask(server, http, forged, "forged1234")) == (404, {})
    assert (await ask(server, http, init_data(2), "../../etc"))[0] == 404
    async with http.post(server.local_url + "/app/tourney/standings", data=b"not json") as answer:
        assert answer.status == 400


async def test_the_card_link_opens_the_standings_page_and_no_other_link_does(
    served: tuple[Services, WebServer, aiohttp.ClientSession],
) -> None:
    _, server, http = served
    async with http.get(server.local_url + f"/app/?tgWebAppStartParam={start_param('abc')}") as page:
        assert "static/tourney/main.js" in await page.text()
        assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    async with http.get(server.local_url + "/app/?tgWebAppStartParam=abc") as page:
        assert "static/tourney/main.js" not in await page.text()  # the home, which opens a game's link


async def test_a_knockout_shows_its_bracket_round_by_round_to_a_player(
    served: tuple[Services, WebServer, aiohttp.ClientSession],
) -> None:
    s, server, http = served
    t = await tournaments.create(s, GROUP - 1, "Cup", Person(1, "Ann"), "knockout", "short-blitz", 0, 0)
    for uid, name in ((1, "Ann"), (2, "Ben"), (3, "Cid"), (4, "Dee"), (5, "Eve")):
        await tournaments.join(s, t.id, Person(uid, name))
    await tournaments.start_games(s, await tournaments.start(s, t.id, 1))
    status, view = await ask(server, http, init_data(5), t.id)
    assert status == 200 and "standings" not in view
    first, *later = view["rounds"]
    assert len(first) == 8 and first.count("") == 3  # five players: three byes
    assert sorted(name for name in first if name) == ["Ann", "Ben", "Cid", "Dee", "Eve"]
    assert later[-1] == [None]  # no champion yet
    assert view["playing"] and all(
        len(set(pair) & {"Ann", "Ben", "Cid", "Dee", "Eve"}) == 2 for pair in view["playing"]
    )


async def test_a_flood_of_standings_requests_is_refused_past_the_press_limit(redis_url: str) -> None:
    storage = Storage.from_url(redis_url, timeout=10.0)
    s = services(storage, ScriptedDice(seed=5), clock=time.time)
    frozen = Limits(user_presses=Rate(3, 1.0), clock=lambda: 1000.0)  # nothing refills while it floods
    async with page_server(s, limits=frozen) as server, aiohttp.ClientSession() as http:
        tid = await running_arena(s)
        statuses = [(await ask(server, http, init_data(2), tid))[0] for _ in range(6)]
        assert statuses == [200, 200, 200, 429, 429, 429]
        assert (await ask(server, http, init_data(3), tid))[0] == 200  # another person is not slowed
    await storage.close()
