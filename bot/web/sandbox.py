"""The sandbox: nardy in the browser with no Telegram at all, in one command (`nardy-bot --sandbox`).

The bot's game service over an embedded Redis of its own (a temporary folder), and the board page's server
on 127.0.0.1 with a small start page (static/sandbox/): sign in by a name, then play the computer at any
level, or invite a friend by a link that opens in another tab. Nothing is sent anywhere: the service's
`changed` hook is the default no-op, and the pages hear every change through Redis as in the bot.

Who is who: a sign-in draws a user id in SANDBOX_IDS (from 2**52: no Telegram user id gets there, Telegram
ids have at most 52 significant bits) and a seat, the folder /app/s/<seat>/ the person's pages live in
(start page, board page, socket). Its cookie holds the person as Telegram's initData would, signed with a
secret drawn at each start (bot/web/auth.py sign), and is sent to that folder only (Path): a second tab
that signs in as someone else has a seat of its own, so two people can play in two tabs of one browser.
The socket's check is the bot's (bot/web/sockets.py Signer), with the cookie for initData.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import tempfile
from pathlib import Path
from typing import Any

from aiohttp import web

from bot.embedded_redis import EmbeddedRedis
from bot.i18n import LANGUAGES, texts
from bot.model.flow import FairDice, Refused, engine_computer
from bot.model.table import Invite, Person, new_id
from bot.service import starts
from bot.service.context import Services
from bot.service.settings import SettingsCache
from bot.storage import ChatBusy, Storage, StorageError
from bot.web import auth
from bot.web.auth import BadInitData
from bot.web.server import WebServer
from bot.web.sockets import Signer
from bot.workers.computer import ComputerProcesses
from engine.ai.levels import LEVELS

log = logging.getLogger(__name__)

COOKIE = "nardy_sandbox"
SANDBOX_IDS = (2**52, 2**53)  # user ids of the sandbox's people: above every Telegram user id
MAX_AGE = 7 * 86400.0  # seconds a sign-in lasts
DEFAULT_PORT = 8081
VARIANTS = ("short", "long", "short.3", "long.3", "short.5c")
NAME = re.compile(r"[^\x00-\x1f\x7f<>&\"']{1,32}")
SIGN_IN = "/app/sandbox/"
SEAT = "/app/s/{seat}"
PAGE_FILE = "sandbox/index.html"
MAX_BODY = 4096


class Sandbox:
    """The sandbox's routes and sign-ins over a page server (see the module docstring)."""

    def __init__(self, server: WebServer, secret: str) -> None:
        self.server = server
        self.services = server.services
        self.secret = secret
        router = server.app.router
        router.add_get("/", self._to_sign_in)
        router.add_get("/app", self._to_sign_in)
        router.add_get("/app/", self._to_sign_in)
        router.add_get("/app/sandbox", self._to_sign_in)
        router.add_get(SIGN_IN, self._start_page)
        router.add_get(SIGN_IN + "static/{path:.+}", server.serve_file)
        router.add_post(SIGN_IN + "signin", self._sign_in)
        server.add_page_routes(SEAT)
        router.add_get(SEAT + "/home", self._start_page)
        router.add_get(SEAT + "/me", self._me)
        router.add_post(SEAT + "/computer", self._computer)
        router.add_post(SEAT + "/invite", self._invite)
        router.add_post(SEAT + "/accept", self._accept)

    # ------------------------------------------------------------------ who

    async def _to_sign_in(self, request: web.Request) -> web.StreamResponse:
        invite = request.query.get("invite")
        raise web.HTTPFound(SIGN_IN + (f"?invite={invite}" if invite and _token(invite) else ""))

    async def _start_page(self, request: web.Request) -> web.StreamResponse:
        return self.server.files[PAGE_FILE].response(request)

    def _person(self, request: web.Request) -> Person:
        """The signed-in person of this seat (its cookie); 401 if none, or too old."""
        try:
            init = self.server.sockets.signer.check(request, "", self.services.clock())
        except BadInitData:
            raise web.HTTPUnauthorized(
                text=json.dumps({"error": "Sign in first.", "signin": SIGN_IN}),
                content_type="application/json",
            ) from None
        return Person(init.user.id, init.user.first_name, init.user.language_code or "en")

    async def _body(self, request: web.Request) -> dict[str, Any]:
        """A POST's JSON, from this server's own pages only (its Origin: no other site may post here)."""
        if request.headers.get("Origin", "").lower() != self.server.sockets.origin:
            raise web.HTTPForbidden(text="origin not allowed")
        if request.content_length is None or request.content_length > MAX_BODY:
            raise web.HTTPRequestEntityTooLarge(MAX_BODY, request.content_length or 0)
        try:
            found = json.loads(await request.text())
        except ValueError:
            raise web.HTTPBadRequest(text="not JSON") from None
        if not isinstance(found, dict):
            raise web.HTTPBadRequest(text="not a JSON object")
        return found

    async def _sign_in(self, request: web.Request) -> web.StreamResponse:
        """A name (and a language) becomes a person with a seat of their own; then to its start page."""
        body = await self._body(request)
        name = str(body.get("name", "")).strip()
        if not NAME.fullmatch(name):
            return _error("Choose a name of 1 to 32 letters.", 400)
        lang = str(body.get("lang", "en"))
        lang = lang if lang in LANGUAGES else "en"
        user_id = secrets.randbelow(SANDBOX_IDS[1] - SANDBOX_IDS[0]) + SANDBOX_IDS[0]
        seat = secrets.token_urlsafe(9)
        user = {"id": user_id, "first_name": name, "language_code": lang}
        fields = {"auth_date": str(int(self.services.clock())), "user": json.dumps(user, ensure_ascii=False)}
        invite = str(body.get("invite", ""))
        home = SEAT.format(seat=seat) + "/home" + (f"?invite={invite}" if _token(invite) else "")
        answer = web.json_response({"next": home})
        answer.set_cookie(
            COOKIE,
            auth.sign(fields, self.secret),
            path=SEAT.format(seat=seat) + "/",
            max_age=int(MAX_AGE),
            httponly=True,
            samesite="Strict",
        )
        log.info("sandbox: %s signed in as user %s", name, user_id)
        return answer

    # ------------------------------------------------------------------ games

    async def _me(self, request: web.Request) -> web.StreamResponse:
        """Who is signed in here, and their game going on (None: none)."""
        me = self._person(request)
        game = await starts.active_game(self.services.storage, me.user_id)
        return web.json_response({"name": me.name, "lang": me.lang, "game": game.id if game else None})

    async def _computer(self, request: web.Request) -> web.StreamResponse:
        me = self._person(request)
        body = await self._body(request)
        variant, level = str(body.get("variant", "")), str(body.get("level", ""))
        if variant not in VARIANTS or level not in LEVELS:
            return _error(f"Choose one of {VARIANTS} and one of {LEVELS}.", 400)
        return await self._starting(me, starts.against_computer(self.services, me, variant, level))

    async def _invite(self, request: web.Request) -> web.StreamResponse:
        me = self._person(request)
        body = await self._body(request)
        variant = str(body.get("variant", ""))
        if variant not in VARIANTS:
            return _error(f"Choose one of {VARIANTS}.", 400)
        invite = Invite(new_id(12), variant, me)
        await self.services.storage.rooms.put_invite(invite)
        return web.json_response({"link": f"{self.server.sockets.origin}{SIGN_IN}?invite={invite.token}"})

    async def _accept(self, request: web.Request) -> web.StreamResponse:
        me = self._person(request)
        token = str((await self._body(request)).get("token", ""))
        if not _token(token):
            return _error("That is not an invitation.", 400)
        return await self._starting(me, _table_of(starts.accept_invite(self.services, token, me)))

    async def _starting(self, me: Person, start: Any) -> web.StreamResponse:
        """The new game's page, or why not (in the person's language)."""
        t = texts(me.lang)
        try:
            table = await start
        except Refused as refusal:
            return _error(t.gettext(refusal.msgid, **refusal.params), 409)
        except ChatBusy:
            return _error(t.gettext(starts.GAME_ON), 409)
        except StorageError as err:
            log.warning("sandbox: a game could not start: %s", err)
            return _error("The game storage is not available right now.", 503)
        return web.json_response({"next": f"./?game={table.id}", "game": table.id})


async def _table_of(accepting: Any) -> Any:
    _, table = await accepting
    return table


def _token(text: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z0-9_-]{8,32}", text))


def _error(text: str, status: int) -> web.Response:
    return web.json_response({"error": text}, status=status)


def sandbox_server(services: Services, port: int = DEFAULT_PORT) -> tuple[WebServer, Sandbox]:
    """The sandbox's page server on 127.0.0.1:`port` (0: a free one), its secret drawn now."""
    secret = secrets.token_hex(32)
    server = WebServer(services, Signer(secret, MAX_AGE, cookie=COOKIE), "127.0.0.1", port)
    return server, Sandbox(server, secret)


async def run(port: int = DEFAULT_PORT, computer_processes: int = 1, data_dir: Path | None = None) -> None:
    """`nardy-bot --sandbox`: the embedded Redis in a temporary folder (or `data_dir`), the computer in
    `computer_processes` worker processes (0: a thread), the page until SIGINT or SIGTERM."""
    import signal

    with tempfile.TemporaryDirectory(prefix="nardy-sandbox-") as scratch:
        redis = EmbeddedRedis(data_dir or Path(scratch) / "redis")
        redis.start()
        storage = Storage.from_url(redis.url)
        computers = ComputerProcesses(computer_processes) if computer_processes else None
        try:
            if computers is not None:
                await computers.start()
            s = Services(storage, FairDice(), engine_computer(processes=computers), SettingsCache(storage))
            server, _ = sandbox_server(s, port)
            await server.start()
            print(
                f"nardy sandbox: open {server.local_url}{SIGN_IN} in your browser (Ctrl+C stops it)",
                flush=True,
            )
            stopping = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stopping.set)
            await stopping.wait()
            await server.stop()
        finally:
            if computers is not None:
                await computers.stop()
            await storage.close()
            redis.stop()
