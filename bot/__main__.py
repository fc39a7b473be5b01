"""`python -m bot` / `nardy-bot`: read the environment, start Redis if needed, poll Telegram (or, with
WEBHOOK_URL set, serve Telegram's webhook deliveries: several such workers can share one Redis).

`nardy-bot --sandbox [--port N]`: no token, no Telegram: the board page on 127.0.0.1 (bot/web/sandbox.py)."""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
import os
import sys
import urllib.parse
from collections.abc import Sequence
from typing import Any

from telegram.error import InvalidToken, NetworkError
from telegram.ext import Application, Updater

from bot.app import with_board_page
from bot.config import Config, ConfigError, setup_logging
from bot.embedded_redis import EmbeddedRedis, EmbeddedRedisError
from bot.model.flow import engine_computer
from bot.observe.server import ObserveError
from bot.observing import observed
from bot.storage import Storage
from bot.telegram.app import (
    ALLOWED_UPDATES,
    build_application,
    close_requests,
    new_event_loop,
    services,
    settle_heap,
)
from bot.telegram.serve import serve
from bot.telegram.webhook import start_webhook
from bot.web import sandbox
from bot.web.server import WebServerError
from bot.workers.computer import ComputerProcesses
from bot.workers.pictures import RenderProcesses, use_render_processes
from bot.workers.worker_pool import WorkerPool

log = logging.getLogger("bot")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nardy-bot", description="The nardy Telegram bot.")
    parser.add_argument(
        "--sandbox",
        action="store_true",
        help="no Telegram: play in the browser on 127.0.0.1 (sign in by a name), the embedded Redis",
    )
    parser.add_argument(
        "--port", type=int, default=sandbox.DEFAULT_PORT, help="the sandbox's port (0: any free)"
    )
    args = parser.parse_args(argv)
    if args.sandbox:
        return sandbox_main(args.port)
    try:
        config = Config.from_env()
    except ConfigError as err:  # read and checked before anything starts: nothing to clean up
        print(f"nardy-bot: {err}", file=sys.stderr)
        return 1
    setup_logging(config)
    embedded: EmbeddedRedis | None = None
    redis_url = config.redis_url
    if redis_url is None:
        embedded = EmbeddedRedis(config.data_dir / "redis")
        try:
            embedded.start()
        except EmbeddedRedisError as err:  # DataDirLocked: another bot owns the data directory
            print(f"nardy-bot: {err}", file=sys.stderr)
            return 1
        redis_url = embedded.url
        log.info("REDIS_URL is not set: using an embedded redis-server with AOF in %s", embedded.data_dir)
    storage = Storage.from_url(redis_url, timeout=config.redis_timeout)
    processes = RenderProcesses(config.render_processes) if config.render_processes else None
    computers = ComputerProcesses(config.computer_processes) if config.computer_processes else None
    analysts = ComputerProcesses(config.analysis_processes) if config.analysis_processes else None
    webhook = config.webhook_url is not None
    app = build_application(
        config.token,
        storage,
        api_url=config.api_url,
        computer=engine_computer(processes=computers),
        drop_repeats=webhook,
        claim_after=config.claim_after,
        seek_timeout=config.seek_timeout,
        remind_after=config.remind_after,
        reminders_per_game=config.reminders_per_game,
        media_chat=config.media_chat_id,
        analysts=analysts,
    )
    if config.webapp is not None:  # the board page's server, started and stopped with the bot
        with_board_page(app, config.webapp)
    loop = new_event_loop()
    log.info("event loop: %s.%s", type(loop).__module__, type(loop).__name__)
    try:
        asyncio.set_event_loop(loop)
        if processes is not None:  # started in the loop that reads their pipes
            loop.run_until_complete(processes.start())
            use_render_processes(processes)
            log.info("board pictures are drawn by %d render processes", processes.workers)
        if computers is not None:  # likewise
            loop.run_until_complete(computers.start())
            log.info("the computer's moves are chosen by %d computer processes", computers.workers)
        if analysts is not None:  # likewise: analyses, hints and replays, apart from the games' own work
            loop.run_until_complete(analysts.start())
            log.info("analyses, hints and replays are worked out by %d processes", analysts.workers)
        settle_heap()
        if config.webhook_url is not None:  # one of several workers behind a load balancer
            log.info("webhook mode: listening on %s:%s", config.webhook_listen, config.webhook_port)
            start = functools.partial(
                start_webhook,  # PTB's server, its path checked: a body that is no update gets 400
                listen=config.webhook_listen,
                port=config.webhook_port,
                url_path=urllib.parse.urlsplit(config.webhook_url).path.lstrip("/"),
                webhook_url=config.webhook_url,
                secret_token=config.webhook_secret,
                allowed_updates=ALLOWED_UPDATES,
            )
        else:
            start = functools.partial(Updater.start_polling, allowed_updates=ALLOWED_UPDATES)
        # until SIGTERM, then stopped within bot/telegram/serve.py's deadline; post_shutdown closes the storage
        pools = [
            (n, p) for n, p in (("render", processes), ("computer", computers), ("analysis", analysts)) if p
        ]
        loop.run_until_complete(serve_observed(config, app, start, storage, pools))
    except (
        InvalidToken,
        NetworkError,
        WebServerError,
        ObserveError,
    ) as err:  # the log filter masks the token
        log.error("cannot start the bot: %s: %s", type(err).__name__, err)
        loop.run_until_complete(close_requests(app))
        return 1
    finally:
        if processes is not None:
            use_render_processes(None)
            loop.run_until_complete(processes.stop())
        if computers is not None:
            loop.run_until_complete(computers.stop())
        if analysts is not None:
            loop.run_until_complete(analysts.stop())
        loop.close()
        if embedded is not None:
            embedded.stop()
    return 0


async def serve_observed(
    config: Config, app: Application, start: Any, storage: Storage, pools: Sequence[tuple[str, WorkerPool]]
) -> None:
    """`serve(app, start)`, counted and served on NARDY_METRICS_PORT (bot/observing.py) when it is set."""
    async with observed(config.metrics, storage, services(app).outbox, pools):
        await serve(app, start)


def sandbox_main(port: int) -> int:
    """`--sandbox`: the page until SIGINT or SIGTERM (NARDY_COMPUTER_PROCESSES and LOG_LEVEL as the bot's)."""
    logging.basicConfig(
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        level=os.environ.get("LOG_LEVEL", "INFO").strip().upper() or "INFO",
    )
    raw = os.environ.get("NARDY_COMPUTER_PROCESSES", "").strip() or "1"
    if not (raw.isascii() and raw.isdigit()) or not 0 <= port < 65536:
        print("nardy-bot: NARDY_COMPUTER_PROCESSES must be a number and --port 0..65535", file=sys.stderr)
        return 1
    loop = new_event_loop()
    try:
        loop.run_until_complete(sandbox.run(port, int(raw)))
    except WebServerError as err:
        print(f"nardy-bot: {err}", file=sys.stderr)
        return 1
    finally:
        loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
