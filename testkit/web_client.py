"""The board page's server without a browser: signed initData as Telegram makes it, a page's socket as a
plain client (hello, presses, the messages it gets), and the bot's game service over a Redis with its
server on a free port, for the tests (tests/web) and bench/webapp.py."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import aiohttp

from bot.model.flow import ComputerPlayer, DiceSource, engine_computer
from bot.model.table import Invite, Lobby, Person, Table, new_id
from bot.service import games, starts
from bot.service.context import Services
from bot.service.rates import Limits
from bot.service.settings import SettingsCache
from bot.storage import Storage
from bot.web.auth import sign
from bot.web.server import WebServer
from bot.web.sockets import Signer
from testkit.fake_telegram.server import BOT_TOKEN

DAY = 86400.0


def init_data(
    user_id: int,
    name: str = "",
    token: str = BOT_TOKEN,
    lang: str = "en",
    auth_date: float | None = None,
    **extra: str,
) -> str:
    """initData as Telegram signs it for the bot of `token`: the user, auth_date (now by default) and
    `extra` fields (start_param, chat_type...)."""
    user = {"id": user_id, "first_name": name or f"user{user_id}", "language_code": lang}
    fields = {
        "auth_date": str(int(time.time() if auth_date is None else auth_date)),
        "query_id": f"AAH{user_id}",
        "user": json.dumps(user, separators=(",", ":")),
        **extra,
    }
    return sign(fields, token)


class PageSocket:
    """One page's socket: every message it got, in order (`messages`), and waits for the next ones."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.arrived: list[float] = []  # when each message came (time.perf_counter)
        self.read = 0  # messages taken by next()
        self.welcome: dict[str, Any] | None = None  # the answer to the hello, once hello() has read it
        self._new = asyncio.Event()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for msg in self.ws:
            if msg.type == aiohttp.WSMsgType.TEXT:
                self.arrived.append(time.perf_counter())
                self.messages.append(json.loads(msg.data))
                self._new.set()
        self._new.set()

    @property
    def closed(self) -> bool:
        return self.ws.closed

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send_str(json.dumps(message))

    async def hello(self, game: str, init: str = "") -> dict[str, Any]:
        """Say hello; the first answer after the welcome (a state, or an error); the welcome in `welcome`."""
        await self.send({"type": "hello", "game": game, "initData": init})
        first = await self.next()
        if first["type"] != "welcome":
            return first
        self.welcome = first
        return await self.next()

    async def press(self, version: int, action: str, src: int | None = None, die: int | None = None) -> None:
        message: dict[str, Any] = {"type": "press", "version": version, "action": action}
        if src is not None:
            message |= {"src": src, "die": die}
        await self.send(message)

    async def next(self, kind: str | None = None, timeout: float = 10.0) -> dict[str, Any]:
        """The next message not read yet (of `kind`, skipping others); AssertionError if none comes."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            while self.read < len(self.messages):
                found = self.messages[self.read]
                self.read += 1
                if kind is None or found["type"] == kind:
                    return found
            if self._reader.done():
                raise AssertionError(f"the socket closed; it got {self.messages}")
            self._new.clear()
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise AssertionError(f"no {kind or 'message'} within {timeout} s; got {self.messages}")
            with suppress(TimeoutError):
                await asyncio.wait_for(self._new.wait(), left)

    async def state(self, version: int | None = None, timeout: float = 10.0) -> dict[str, Any]:
        """The next state (of `version` or newer, if given)."""
        while True:
            found = await self.next("state", timeout)
            if version is None or found["version"] >= version:
                return found

    async def close(self) -> None:
        await self.ws.close()
        await asyncio.wait([self._reader], timeout=2)


@asynccontextmanager
async def page_socket(
    session: aiohttp.ClientSession, url: str, origin: str | None = None
) -> AsyncIterator[PageSocket]:
    """A socket to `url` (ws://.../app/ws) sent from `origin` (by default the server's own)."""
    if origin is None:
        origin = url.replace("ws://", "http://").split("/app/")[0]
    ws = await session.ws_connect(url, headers={"Origin": origin})
    page = PageSocket(ws)
    try:
        yield page
    finally:
        await page.close()


def services(
    storage: Storage, dice: DiceSource, computer: ComputerPlayer | None = None, clock: Any = None
) -> Services:
    """The game service as the sandbox has it (no front to tell of changes: the pages hear them)."""
    kwargs = {} if clock is None else {"clock": clock}
    return Services(storage, dice, computer or engine_computer(seed=3), SettingsCache(storage), **kwargs)


@asynccontextmanager
async def page_server(
    s: Services, token: str = BOT_TOKEN, max_age: float = DAY, limits: Limits | None = None
) -> AsyncIterator[WebServer]:
    """The bot's page server on 127.0.0.1 (a free port, its own origin), initData signed with `token`."""
    server = WebServer(s, Signer(token, max_age), "127.0.0.1", 0, limits=limits)
    server.add_page_routes("/app")
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


# ---------------------------------------------------------------------------------------------- games


async def computer_game(s: Services, me: Person, variant: str = "short", level: str = "beginner") -> Table:
    """`me` against the computer, as the menu starts it."""
    return await starts.against_computer(s, me, variant, level)


async def friend_game(s: Services, starter: Person, friend: Person, variant: str = "short") -> Table:
    """A game of two private chats, from `starter`'s invitation taken by `friend`."""
    invite = Invite(new_id(), variant, starter)
    await s.storage.rooms.put_invite(invite)
    _, table = await starts.accept_invite(s, invite.token, friend)
    return table


async def group_game(
    s: Services, chat_id: int, starter: Person, joiner: Person, variant: str = "short"
) -> Table:
    """A group's game, from `starter`'s lobby joined by `joiner`."""
    lobby = Lobby(new_id(), chat_id, variant, starter)
    await s.storage.rooms.open_lobby(lobby)
    _, table = await starts.join_lobby(s, chat_id, lobby.id, joiner, "Nardy club")
    return table


async def played_out(s: Services, table: Table, level: str = "beginner", seed: int = 1) -> Table:
    """`table`'s game played to its end: each person's turns by the engine's `level` (seeded), pressed through
    the game service as a page's whole play and Done; the computer plays its own."""
    from engine.ai import choose_play

    rng = random.Random(seed)
    for _ in range(2000):
        if table.over:
            return table
        game = table.game
        assert game.dice is not None, f"game {table.id} waits for no play: phase {game.phase}"
        user = table.players[game.deciding].user_id
        play = choose_play(game.rules, game.position, game.dice, level, rng)
        table = await games.play(s, table, user, table.version, tuple((m.src, m.die) for m in play.moves))
        if table.moves:
            table = await games.done(s, table, user, table.version)
    raise AssertionError(f"game {table.id} did not end in 2000 turns")
