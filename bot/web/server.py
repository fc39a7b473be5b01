"""The board page's web server, inside the bot's process (aiohttp): /app/ (the page), /app/static/... (its
files, kept in memory, gzipped for browsers that take it), /app/ws (the socket: bot/web/sockets.py), and in
the sandbox its start page and sign-in (bot/web/sandbox.py). Every answer carries CONTENT_SECURITY_POLICY
and no-sniff and no-referrer headers. Started and stopped with the bot (bot/telegram/app.py), or alone by
`nardy-bot --sandbox` (bot/__main__.py).
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import logging
import mimetypes
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from bot.config import WebAppConfig
from bot.service.context import Services
from bot.service.rates import Limits
from bot.web import CONTENT_SECURITY_POLICY, CONTENT_TYPES, HOME, PAGE, REVIEW, STATIC_DIR
from bot.web.home import Home
from bot.web.live import Live
from bot.web.reviews import Reviews
from bot.web.sockets import Signer, Sockets
from bot.web.standings import standings
from bot.web.tourney_view import START_PREFIX

log = logging.getLogger(__name__)

STOP_WITHIN = 0.5  # seconds the server gets to close its sockets and stop when the bot stops
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class WebServerError(RuntimeError):
    """The server could not start (its port is taken, say): the bot does not start either."""


@dataclass(frozen=True)
class StaticFile:
    """A file of the page, as served: its bytes, gzipped, its type and its ETag."""

    body: bytes
    gzipped: bytes
    content_type: str
    etag: str

    @classmethod
    def read(cls, path: Path) -> StaticFile:
        body = path.read_bytes()
        kind = (
            CONTENT_TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        )
        return cls(
            body, gzip.compress(body, 9, mtime=0), kind, '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        )

    def response(self, request: web.Request) -> web.Response:
        headers = {"Cache-Control": "no-cache", "ETag": self.etag, "Vary": "Accept-Encoding"}
        if request.headers.get("If-None-Match") == self.etag:
            return web.Response(status=304, headers=headers)
        charset = "utf-8" if self.content_type.startswith("text/") else None
        if "gzip" in request.headers.get("Accept-Encoding", ""):
            response = web.Response(body=self.gzipped, content_type=self.content_type, charset=charset)
            response.headers["Content-Encoding"] = "gzip"
        else:
            response = web.Response(body=self.body, content_type=self.content_type, charset=charset)
        response.headers.update(headers)
        return response


def static_files(folder: Path = STATIC_DIR) -> dict[str, StaticFile]:
    """Every file under `folder` by its path there ("board/main.js", "sandbox/sandbox.js"): read once, so that a
    request names a file of this dict or nothing (no path is ever joined from a request)."""
    return {
        path.relative_to(folder).as_posix(): StaticFile.read(path)
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.name.startswith(".")
    }


async def _security_headers(request: web.Request, response: web.StreamResponse) -> None:
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)


class WebServer:
    """The page's server of one worker: the sockets, their live feed, the routes, its start and stop."""

    def __init__(
        self,
        services: Services,
        signer: Signer,
        listen: str,
        port: int,
        origin: str | None = None,
        limits: Limits | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.services = services
        self.listen = listen
        self.port = port
        self.files = static_files()
        self.live = Live(services.storage)
        self.sockets = Sockets(services, self.live, signer, limits, clock)
        self.home = Home(self.sockets)
        self.reviews = Reviews(self.sockets)  # its member_of: the Telegram front's (bot/app.py)
        self.live.ended = self.reviews.analyses.warm  # a game ended before a player: its analysis ahead
        self._origin = origin  # None: the server's own local address once bound (the sandbox)
        self.config: WebAppConfig | None = None  # the bot's NARDY_WEBAPP_* (None: the sandbox's server)
        self.app = web.Application()
        self.app.on_response_prepare.append(_security_headers)
        self._runner: web.AppRunner | None = None

    @classmethod
    def for_bot(
        cls, services: Services, config: WebAppConfig, token: str, limits: Limits | None = None
    ) -> WebServer:
        """The bot's server: initData signed with its token, the public origin of NARDY_WEBAPP_URL."""
        server = cls(
            services, Signer(token, config.max_age), config.listen, config.port, config.origin, limits
        )
        server.config = config
        server.add_page_routes("/app")
        return server

    def add_page_routes(self, base: str) -> None:
        """The page at `base`/ (`base` redirects there): a game's board (?game=<id>), else the home; its files
        at `base`/static/..., its socket at `base`/ws, the home's and the reviews' requests at `base`/api/..."""
        router = self.app.router
        self.home.add_routes(self.app, base)
        self.reviews.add_routes(self.app, base)
        router.add_get(base, self._to_folder)
        router.add_get(base + "/", self._page)
        router.add_get(base + "/ws", self.sockets.handle)
        router.add_get(base + "/static/{path:.+}", self.serve_file)
        router.add_post(base + "/tourney/standings", self._standings)  # bot/web/tourney_view.py

    @property
    def local_url(self) -> str:
        host = "127.0.0.1" if self.listen in ("0.0.0.0", "", "127.0.0.1") else self.listen
        return f"http://{host}:{self.port}"

    async def start(self) -> None:
        """Listen (a taken port: WebServerError; port 0: a free one, then in `port`) and start the feed."""
        runner = web.AppRunner(self.app, access_log=None, handle_signals=False, shutdown_timeout=STOP_WITHIN)
        await runner.setup()
        try:
            if self.port == 0:
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                sock.bind((self.listen, 0))
                self.port = sock.getsockname()[1]
                site: web.BaseSite = web.SockSite(runner, sock)
            else:
                site = web.TCPSite(runner, self.listen, self.port, reuse_address=True)
            await site.start()
        except OSError as err:
            await runner.cleanup()
            raise WebServerError(f"the board page cannot listen on {self.listen}:{self.port}: {err}") from err
        self._runner = runner
        self.sockets.origin = (self._origin or self.local_url).lower()
        self.live.start()
        log.info("the board page is served on %s:%s (origin %s)", self.listen, self.port, self.sockets.origin)

    async def stop(self, timeout: float = STOP_WITHIN) -> None:
        """Close every page's socket (each connects again by itself), stop the feed and the server."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        loop = asyncio.get_running_loop()
        until = loop.time() + timeout

        def left() -> float:
            return max(0.05, until - loop.time())

        try:
            await asyncio.wait_for(self.sockets.close_all(), left() / 2)
        except TimeoutError:
            log.warning("stopping: the board pages' sockets did not close in time")
        await self.live.stop(left() / 3)
        await self.reviews.analyses.stop(left() / 4)
        try:
            await asyncio.wait_for(runner.cleanup(), left())
        except TimeoutError:
            log.warning("stopping: the board page's server did not stop in time")

    # ------------------------------------------------------------------ routes

    async def _to_folder(self, request: web.Request) -> web.StreamResponse:
        query = f"?{request.query_string}" if request.query_string else ""
        raise web.HTTPFound(request.path + "/" + query)

    async def _page(self, request: web.Request) -> web.StreamResponse:
        """A tournament's standings (static/tourney/) for a card's 📲 Standings (its Direct Link's start
        parameter, which Telegram also puts in the URL) or ?tourney=<id>; a finished game's review for
        ?review=GAME/N; a game's board when the address names one; else the home (which opens what a Direct
        Link names, a review's `r<N>_<GAME>` among them)."""
        start = request.query.get("tgWebAppStartParam", "")
        if start.startswith(START_PREFIX) or "tourney" in request.query:
            return self.files["tourney/index.html"].response(request)
        if "review" in request.query:
            return self.files[REVIEW.name].response(request)
        page = PAGE if request.query.get("game") else HOME
        return self.files[page.name].response(request)

    async def _standings(self, request: web.Request) -> web.StreamResponse:
        """A tournament's standings for a page that may watch it (tourney_view.may_watch): 401 for initData
        that proves no one, 404 alike for a tournament that is not there and one the page may not see."""
        return await standings(self.services, self.sockets.signer, request, self.sockets.within_limits)

    async def serve_file(self, request: web.Request) -> web.StreamResponse:
        """A file of the page, named by the route's {path} (only files read at the start are served)."""
        found = self.files.get(request.match_info["path"])
        if found is None:
            raise web.HTTPNotFound()
        return found.response(request)
