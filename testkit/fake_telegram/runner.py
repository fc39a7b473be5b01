"""Runs the real bot Application (long polling the fake Bot API) in a thread with its own event loop."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

from telegram import Update
from telegram.ext import Application, BaseRateLimiter, TypeHandler

from bot.app import with_board_page
from bot.config import MetricsConfig, WebAppConfig
from bot.model.flow import ComputerPlayer, DiceSource, engine_computer
from bot.observe.server import ObserveServer
from bot.observing import observed
from bot.service.rates import Limits
from bot.storage import Storage
from bot.telegram.app import ALLOWED_UPDATES, build_application, services
from bot.telegram.rate_limit import ChatRateLimiter
from bot.telegram.webhook import start_webhook
from bot.workers.computer import ComputerProcesses
from testkit.fake_telegram.server import BOT_TOKEN

WEBHOOK_SECRET = "fake-webhook-secret"


class ErrorLog(logging.Handler):
    """Collects ERROR records of the bot's loggers, so a test can show what went wrong inside."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def messages(self) -> list[str]:
        return [self.format(r) for r in self.records]


class BotRunner:
    """start() polls the fake until stop(); a test may stop and start again (a bot restart).

    With `webhook_port`, the bot runs as a webhook worker instead (http://127.0.0.1:<port>/hook, with a
    secret token), the way several workers share the updates in production."""

    def __init__(
        self,
        api_url: str,
        redis_url: str,
        dice: DiceSource,
        computer: ComputerPlayer,
        webhook_port: int | None = None,
        name: str = "bot",
        limits: Limits | None = None,
        rate_limiter: BaseRateLimiter | None = None,
        heal_every: float = 1.0,
        request_timeout: float = 5.0,
        claim_after: float | None = None,
        board_retry: float = 0.2,
        seek_timeout: float | None = None,
        remind_after: float | None = None,
        reminders_per_game: int | None = None,
        media_chat: int | None = None,
        computer_processes: int = 0,
        computer_timeout: float = 30.0,
        clock: Callable[[], float] | None = None,
        clocks_every: float | None = None,
        webapp: WebAppConfig | None = None,
        metrics: MetricsConfig | None = None,
        redis_timeout: float | None = None,
    ) -> None:
        self.api_url = api_url
        self.webhook_port = webhook_port
        self.name = name
        self.redis_url = redis_url
        self.dice = dice
        self.computer = computer
        self.limits = limits  # inbound limits: off unless a test is about them
        self.rate_limiter = rate_limiter  # Telegram's outgoing limits: off unless a test is about them
        self.heal_every = heal_every
        self.request_timeout = request_timeout
        self.claim_after = claim_after
        self.board_retry = board_retry
        self.seek_timeout = seek_timeout  # quick-match searches (None: NARDY_SEEK_TIMEOUT, else 300 s)
        self.remind_after = remind_after  # turn reminders (None: NARDY_REMIND_AFTER, else 10 minutes)
        self.reminders_per_game = reminders_per_game
        self.media_chat = media_chat
        self.computer_processes = computer_processes  # > 0: the computer decides in worker processes
        self.computer_timeout = computer_timeout
        self.clock = clock  # the bot's clock (claims, live games' clocks); None: time.time
        self.clocks_every = (
            clocks_every  # seconds between looks for live games' due flags (None: the default)
        )
        self.webapp = webapp  # the board page's server (bot/web/), started with the bot; None: none
        self.metrics = metrics  # /metrics, /healthz, /readyz (bot/observing.py); None: off
        self.observer: ObserveServer | None = None  # that endpoint, while the bot runs
        self.redis_timeout = (
            redis_timeout  # seconds any wait on Redis may take (None: NARDY_REDIS_TIMEOUT's 1 s)
        )
        self.computers: ComputerProcesses | None = None  # those workers, while the bot runs
        self.app: Application | None = None
        self.errors = ErrorLog()
        self.starts = 0
        self.handled = 0  # updates this runner's Application took (a repeated delivery counts too)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None

    def start(self, timeout: float = 20.0) -> None:
        logging.getLogger("bot").addHandler(self.errors)
        self._ready.clear()
        self._failure = None
        self._thread = threading.Thread(target=self._run, name=f"{self.name}-{self.starts}", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError(f"the bot did not start polling within {timeout}s")
        if self._failure is not None:
            raise RuntimeError("the bot failed to start") from self._failure
        self.starts += 1

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as err:
            self._failure = err
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        storage = (
            Storage.from_url(self.redis_url)
            if self.redis_timeout is None
            else Storage.from_url(self.redis_url, timeout=self.redis_timeout)
        )
        computer = self.computer
        if self.computer_processes:
            self.computers = ComputerProcesses(self.computer_processes, timeout=self.computer_timeout)
            await self.computers.start()
            computer = engine_computer(seed=3, processes=self.computers)
        app: Application = build_application(
            BOT_TOKEN,
            storage,
            api_url=self.api_url,
            dice=self.dice,
            computer=computer,
            rate_limiter=self.rate_limiter or ChatRateLimiter(overall_per_second=0, group_per_minute=0),
            poll_timeout=1,
            drop_repeats=self.webhook_port is not None,
            limits=self.limits,
            heal_every=self.heal_every,
            request_timeout=self.request_timeout,
            claim_after=self.claim_after,
            board_retry=self.board_retry,
            seek_timeout=self.seek_timeout,
            remind_after=self.remind_after,
            reminders_per_game=self.reminders_per_game,
            media_chat=self.media_chat,
            clock=self.clock,
            clocks_every=self.clocks_every,
        )
        if self.webapp is not None:
            with_board_page(app, self.webapp)
        app.add_handler(TypeHandler(Update, self._count), group=-3)
        self.app = app
        pools = [("computer", self.computers)] if self.computers is not None else []
        try:
            async with observed(self.metrics, storage, services(app).outbox, pools) as observer, app:
                self.observer = observer
                await app.start()
                if app.post_init is not None:
                    await app.post_init(app)
                assert app.updater is not None
                if self.webhook_port is None:
                    await app.updater.start_polling(
                        poll_interval=0, timeout=1, allowed_updates=ALLOWED_UPDATES
                    )
                else:
                    await start_webhook(
                        app.updater,
                        listen="127.0.0.1",
                        port=self.webhook_port,
                        url_path="hook",
                        webhook_url=self.webhook_url,
                        secret_token=WEBHOOK_SECRET,
                        allowed_updates=ALLOWED_UPDATES,
                    )
                self._ready.set()
                await self._stop.wait()
                await app.updater.stop()
                await app.stop()
                if app.post_stop is not None:
                    await app.post_stop(app)
        finally:
            await storage.close()
            if self.computers is not None:
                await self.computers.stop()
                self.computers = None

    async def _count(self, update: object, context: object) -> None:
        self.handled += 1

    def call(self, coro_fn: Any, timeout: float = 30.0) -> Any:
        """Run `coro_fn(deps)` in the bot's loop (e.g. wait until the boards are drawn) and return its result."""
        assert self._loop is not None and self.app is not None
        future = asyncio.run_coroutine_threadsafe(coro_fn(services(self.app)), self._loop)
        return future.result(timeout)

    def settle(self, timeout: float = 30.0) -> None:
        """Wait until every board being drawn is drawn and every queued message is sent."""
        if self._thread is None or self._loop is None or self.app is None:
            return

        async def idle(d: Any) -> None:
            await d.boards.idle(timeout)
            await d.outbox.drain()
            await d.boards.idle(timeout)

        self.call(idle, timeout + 5)

    @property
    def webhook_url(self) -> str:
        return f"http://127.0.0.1:{self.webhook_port}/hook"

    def stop(self, timeout: float = 20.0) -> None:
        if self._thread is None:
            return
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError(f"the bot did not stop within {timeout}s")
        self._thread = None
        logging.getLogger("bot").removeHandler(self.errors)
