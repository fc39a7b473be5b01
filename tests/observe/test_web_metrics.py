"""The board page's metrics (bot/web/sockets.py, bot/web/live.py): open sockets, hellos refused by reason,
states pushed and how long after their save."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import aiohttp
import pytest

from bot.model.flow import ScriptedDice
from bot.model.table import Person
from bot.observe.metrics import Metrics, using
from bot.service.context import Services
from bot.storage import Storage
from bot.web.server import WebServer
from testkit.web_client import friend_game, init_data, page_server, page_socket, services

ALICE, BOB = Person(1001, "Alice"), Person(1002, "Bob")


@pytest.fixture
async def counted(
    redis_url: str,
) -> AsyncIterator[tuple[Metrics, Services, WebServer, aiohttp.ClientSession]]:
    metrics = Metrics()
    with using(metrics):  # the server's tasks start in this context, as a worker's do in bot/observing.py
        storage = Storage.from_url(redis_url)
        s = services(storage, ScriptedDice(seed=5), clock=time.time)
        async with page_server(s) as server, aiohttp.ClientSession() as http:
            yield metrics, s, server, http
        await storage.close()


def sample(metrics: Metrics, name: str, **labels: str) -> float:
    return metrics.registry.get_sample_value(name, labels) or 0.0


async def test_hellos_refused_are_counted_by_reason_and_pages_by_their_sockets(
    counted: tuple[Metrics, Services, WebServer, aiohttp.ClientSession],
) -> None:
    metrics, s, server, http = counted
    url = f"ws://127.0.0.1:{server.port}/app/ws"
    table = await friend_game(s, ALICE, BOB)
    with pytest.raises(aiohttp.WSServerHandshakeError):
        await http.ws_connect(url, headers={"Origin": "https://evil.example"})
    async with page_socket(http, url) as forged:
        await forged.hello(
            table.id, init_data(ALICE.user_id, "Alice", token="999:OTHER", auth_date=time.time())
        )
    async with page_socket(http, url) as alice, page_socket(http, url) as bob:
        state = await alice.hello(table.id, init_data(ALICE.user_id, "Alice", auth_date=time.time()))
        await bob.hello(table.id, init_data(BOB.user_id, "Bob", auth_date=time.time()))
        assert sample(metrics, "nardy_web_sockets") == 2
        pushed_before = sample(metrics, "nardy_web_push_seconds_count")
        mover = (alice, bob)[int(table.game.deciding)]
        mine = state if mover is alice else await bob.state()
        step = mine["steps"][0]
        await mover.press(table.version, "move", step["src"], step["die"])
        for page in (alice, bob):
            assert (await page.state())["version"] == table.version + 1
    assert sample(metrics, "nardy_web_hellos_refused_total", reason="origin") == 1
    assert sample(metrics, "nardy_web_hellos_refused_total", reason="auth") == 1
    assert sample(metrics, "nardy_web_push_seconds_count") - pushed_before >= 2  # the move, to both pages
    for _ in range(600):  # up to 30 s for the server to see them close
        if not sample(metrics, "nardy_web_sockets"):
            break
        await asyncio.sleep(0.05)
    assert sample(metrics, "nardy_web_sockets") == 0
