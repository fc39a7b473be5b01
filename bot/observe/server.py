"""A worker's own small HTTP server for its operator (NARDY_METRICS_PORT; bot/config.py MetricsConfig):

- `GET /metrics`: the worker's metrics in Prometheus's text format (prometheus_client's exposition of its
  own registry), behind `Authorization: Bearer <NARDY_METRICS_TOKEN>` when a token is set;
- `GET /healthz`: liveness: 200 while the event loop answers;
- `GET /readyz`: readiness: 200 when Redis answers a PING within READY_WITHIN and every worker pool has its
  processes alive, else 503 with what is missing (one line each).

Served in polling and webhook mode alike, on 127.0.0.1 unless told otherwise; off (no port open) unless
NARDY_METRICS_PORT is set. Meanwhile a sampler refreshes the gauges read from Redis (bot/observe/sampler.py)."""

from __future__ import annotations

import asyncio
import hmac
import logging
import socket
from collections.abc import Awaitable, Callable, Sequence

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from bot.observe.metrics import Metrics

log = logging.getLogger(__name__)

READY_WITHIN = 1.0  # seconds Redis has to answer the readiness probe's PING

Check = Callable[[], Awaitable[str | None]]  # None: fine; else what is wrong, in a few words


class ObserveError(RuntimeError):
    """The endpoint cannot listen where it was told to (a taken port)."""


class ObserveServer:
    """/metrics, /healthz and /readyz of one worker; `checks` make up readiness."""

    def __init__(
        self,
        metrics: Metrics,
        listen: str,
        port: int,
        token: str | None = None,
        checks: Sequence[Check] = (),
    ) -> None:
        self.metrics = metrics
        self.listen = listen
        self.port = port
        self._token = token
        self._checks = tuple(checks)
        self.app = web.Application()
        self.app.router.add_get("/metrics", self._metrics)
        self.app.router.add_get("/healthz", self._healthz)
        self.app.router.add_get("/readyz", self._readyz)
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        """Listen (port 0: a free one, then in `port`); a taken port raises ObserveError."""
        runner = web.AppRunner(self.app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        try:
            if self.port == 0:
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.bind((self.listen, 0))
                self.port = sock.getsockname()[1]
                site: web.BaseSite = web.SockSite(runner, sock)
            else:
                site = web.TCPSite(runner, self.listen, self.port, reuse_address=True)
            await site.start()
        except OSError as err:
            await runner.cleanup()
            raise ObserveError(
                f"the metrics endpoint cannot listen on {self.listen}:{self.port}: {err}"
            ) from err
        self._runner = runner
        log.info("metrics and health on http://%s:%s (/metrics, /healthz, /readyz)", self.listen, self.port)

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.listen in ("0.0.0.0", "") else self.listen
        return f"http://{host}:{self.port}"

    async def _metrics(self, request: web.Request) -> web.Response:
        if self._token is not None:
            given = request.headers.get("Authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {self._token}".encode()):
                raise web.HTTPUnauthorized(
                    text="a bearer token is needed", headers={"WWW-Authenticate": 'Bearer realm="metrics"'}
                )
        body = generate_latest(self.metrics.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def _readyz(self, request: web.Request) -> web.Response:
        found = await asyncio.gather(*(check() for check in self._checks), return_exceptions=True)
        wrong = [f"{type(f).__name__}: {f}" if isinstance(f, BaseException) else f for f in found]
        problems = [w for w in wrong if w]
        if problems:
            return web.Response(status=503, text="".join(f"{p}\n" for p in problems))
        return web.Response(text="ready\n")
