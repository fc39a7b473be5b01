"""The page's server in miniature: aiohttp on 127.0.0.1 (a free port) in a thread of its own, serving the
page (/app/), its files (/app/static/...) and its socket (/app/ws), which speaks the page's protocol
(bot/web/protocol.py) over the `StubTable`s a test adds. A test drives the browser with Playwright's sync
API and scripts the server from the same thread: read the `hellos` and `presses` the pages sent,
`refuse_next` a press, `hold` presses unanswered, `push` a state to every page of a game, `drop` every
socket (a restart), refuse sockets while `down`. A hello is answered as the bot's server answers it: the
page's words in its table's language (bot/web/words.py), and the server's time, `now()` (a test may set a
clock of its own: the page's clocks count from it)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from bot.web import CONTENT_SECURITY_POLICY, CONTENT_TYPES, PAGE, STATIC_DIR
from bot.web.protocol import (
    Hello,
    ProtocolError,
    error_message,
    parse_client_message,
    refused_message,
    welcome_message,
)
from bot.web.words import direction, page_words
from engine import Side
from testkit.browser.stub_table import StubTable


@dataclass
class _Client:
    ws: web.WebSocketResponse
    game: str = ""
    you: Side | None = None


class StubServer:
    """The page's server in miniature: /app/ (the page), /app/static/... (its files), /app/ws (the socket)."""

    def __init__(self, static: Path = STATIC_DIR) -> None:
        self.static = static
        self.tables: dict[str, StubTable] = {}
        self.hellos: list[dict[str, Any]] = []
        self.presses: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        self.refusals: list[str] = []  # the next presses are refused with these texts (no effect)
        self.hold = False  # presses are recorded and left unanswered
        self.down = False  # sockets are refused (the bot is restarting)
        self.fatal_hello: str | None = None  # every hello is answered with this fatal error
        self.guest: Side | None = Side.WHITE  # the side of a page with no initData (outside Telegram)
        self.connections = 0
        self.now: Callable[[], float] = time.time  # the server's clock, said in each welcome
        self._clients: list[_Client] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # ---------------------------------------------------------------- lifecycle

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/app/"

    def page_url(self, game: str) -> str:
        return f"{self.url}?game={game}"

    def start(self) -> StubServer:
        """Serve from a thread of its own (its own event loop: Playwright's sync API holds this thread's)."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        self.port = sock.getsockname()[1]
        ready = threading.Event()
        failed: list[BaseException] = []

        def serve() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            try:
                app = web.Application(middlewares=[_security_headers])
                app.router.add_get("/app", _redirect)
                app.router.add_get("/app/", self._page)
                app.router.add_get("/app/ws", self._socket)
                app.router.add_get("/app/static/{name:.+}", self._file)
                runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
                loop.run_until_complete(runner.setup())
                loop.run_until_complete(web.SockSite(runner, sock).start())
                self._loop, self._runner = loop, runner
            except BaseException as error:
                failed.append(error)
                ready.set()
                loop.close()
                return
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=serve, name="stub-page-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failed:
            raise failed[0]
        return self

    def stop(self) -> None:
        if self._loop is None or self._runner is None:
            return
        self.drop()
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)
        self._loop = None

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _call(self, coro_fn: Callable[[], Any]) -> Any:
        assert self._loop is not None, "the stub server is not running"
        return asyncio.run_coroutine_threadsafe(coro_fn(), self._loop).result(10)

    # ---------------------------------------------------------------- scripting (from the test's thread)

    def add(self, table: StubTable) -> StubTable:
        self.tables[table.id] = table
        return table

    def push(self, game: str, message: str = "") -> None:
        """Send game's current state to every page showing it."""
        self._call(lambda: self._broadcast(game, message))

    def send(self, game: str, message: dict[str, Any]) -> None:
        """Send `message` as it is to every page showing `game`."""

        async def go() -> None:
            for client in list(self._clients):
                if client.game == game:
                    await self._send(client, message)

        self._call(go)

    def drop(self) -> None:
        """Close every socket, as a restart of the bot does."""

        async def go() -> None:
            for client in list(self._clients):
                await client.ws.close()

        if self._loop is not None:
            self._call(go)

    def pages(self, game: str) -> int:
        """How many pages are connected to `game` (having said hello)."""
        return sum(1 for c in self._clients if c.game == game and not c.ws.closed)

    def wait_for(self, what: Callable[[], object], timeout: float = 5.0, message: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not what():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {message or what}")
            time.sleep(0.01)

    # ---------------------------------------------------------------- aiohttp handlers

    async def _page(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(self.static / PAGE.name, headers={"Cache-Control": "no-cache"})

    async def _file(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]  # "board.css", "board/main.js": no "..", no hidden file
        path = self.static / name
        if any(not part or part.startswith(".") for part in name.split("/")) or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Cache-Control": "no-cache", "Content-Type": _type(path)})

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        if self.down:
            raise web.HTTPServiceUnavailable()
        ws = web.WebSocketResponse(heartbeat=20)
        await ws.prepare(request)
        self.connections += 1
        client = _Client(ws)
        self._clients.append(client)
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                await self._receive(client, msg.data)
        finally:
            self._clients.remove(client)
        return ws

    async def _receive(self, client: _Client, text: str) -> None:
        try:
            message = parse_client_message(text)
        except ProtocolError as error:
            await self._send(client, error_message(str(error), fatal=False))
            return
        if isinstance(message, Hello):
            self.hellos.append({"game": message.game, "initData": message.init_data})
            if self.fatal_hello is not None:
                await self._send(client, error_message(self.fatal_hello, fatal=True))
                await client.ws.close()
                return
            table = self.tables.get(message.game)
            if table is None:
                await self._send(client, error_message(f"No game {message.game!r}.", fatal=True))
                await client.ws.close()
                return
            client.game = message.game
            sides = {"white": Side.WHITE, "black": Side.BLACK, "": self.guest}
            client.you = sides.get(message.init_data)
            words = page_words(table.lang)
            await self._send(client, welcome_message(table.lang, direction(table.lang), words, self.now()))
            await self._send(client, table.state(client.you))
            return
        self.presses.append(json.loads(text))
        table = self.tables.get(client.game)
        if table is None or self.hold:
            return
        if self.refusals:
            await self._send(client, refused_message(self.refusals.pop(0)))
            return
        refusal = table.apply(message, client.you)
        if refusal is not None:
            await self._send(client, refused_message(refusal))
        elif message.action == "hint":
            hint = table.hint_text or f"Best: {table.game.legal_plays()[0]}"
            await self._send(client, table.state(client.you, hint))
        else:
            await self._broadcast(client.game)

    async def _broadcast(self, game: str, message: str = "") -> None:
        table = self.tables[game]
        for client in list(self._clients):
            if client.game == game:
                await self._send(client, table.state(client.you, message))

    async def _send(self, client: _Client, message: dict[str, Any]) -> None:
        if client.ws.closed:
            return
        self.sent.append(message)
        await client.ws.send_str(json.dumps(message, ensure_ascii=False))


@web.middleware
async def _security_headers(request: web.Request, handler: Any) -> web.StreamResponse:
    response: web.StreamResponse = await handler(request)
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def _type(path: Path) -> str:
    """A file's type as the bot's server sends it (a module script must come as JavaScript)."""
    return CONTENT_TYPES.get(path.suffix) or "application/octet-stream"


async def _redirect(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/app/" + (f"?{request.query_string}" if request.query_string else ""))
