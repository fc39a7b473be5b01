"""Running the Application until SIGTERM (or SIGINT), then stopping it within a deadline whatever Telegram
and Redis do.

python-telegram-bot's `run_polling` waits for every step of its stop: with Telegram unreachable the
polling task sleeps out its back-off (up to 30 s) and the last `getUpdates` that confirms the updates
taken waits out its read timeout; with Redis frozen the updates in flight wait on it. Docker kills a bot
that has not stopped 10 s after SIGTERM. Here each step of the stop has its share of STOP_WITHIN and is
cut short past it (logged):
- the updater: the poll (or the webhook server) ends; the confirming `getUpdates` gets what is left of
  STOP_UPDATER (an update it could not confirm is delivered again at the next start, where its version
  check refuses a press made twice);
- the updates in flight: each ends by its own deadline (bot/telegram/handlers/common.py);
- post_stop (bot/telegram/app.py's on_stop): boards being drawn and queued messages (a board not drawn stays marked
  in Redis and is drawn at the next start);
- shutdown and post_shutdown (the storage is closed).
Nothing saved is lost: every change is one atomic script that Redis has either applied or not."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable
from typing import Any

from telegram.ext import Application, Updater

log = logging.getLogger(__name__)

STOP_WITHIN = 4.0  # seconds from the signal to a stopped Application (the process ends soon after)
STOP_UPDATER = 0.5  # the updater's share (a poll in flight ends at once; a back-off sleep is cut)
STOP_UPDATES = 2.5  # the updates in flight may run until then (each has ANSWER_WITHIN of its own)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
UPDATE_TASKS = "Application:"  # the names python-telegram-bot gives the tasks of updates being handled

Start = Callable[[Updater], Awaitable[Any]]


async def _within(what: str, work: Awaitable[Any], until: float) -> None:
    """Await `work` until the loop's time `until`; past it, cancel it and say so."""
    left = max(0.01, until - asyncio.get_running_loop().time())
    try:
        await asyncio.wait_for(work, left)
    except TimeoutError:
        log.warning("stopping: %s did not end in time; cut short", what)
    except Exception:
        log.exception("stopping: %s failed", what)


async def serve(app: Application, start: Start, stop_within: float = STOP_WITHIN) -> None:
    """Initialize `app`, start its updater (`start(updater)`: polling or a webhook) and the Application,
    run until SIGTERM or SIGINT, then stop within `stop_within` seconds. Errors of the start (an invalid
    token, Telegram unreachable) propagate after the Application is shut down."""
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, stopping.set)
    updater = app.updater
    assert updater is not None
    try:
        starting = asyncio.ensure_future(_start(app, updater, start))
        signalled = asyncio.ensure_future(stopping.wait())
        await asyncio.wait({starting, signalled}, return_when=asyncio.FIRST_COMPLETED)
        if starting.done():
            starting.result()  # a failed start raises here
            await signalled
        else:  # a signal during the start: it is abandoned
            starting.cancel()
            await asyncio.gather(starting, return_exceptions=True)
        log.info("stop signal received: stopping within %g s", stop_within)
    finally:
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)
        await _stop(app, updater, loop.time(), stop_within)


async def _start(app: Application, updater: Updater, start: Start) -> None:
    await app.initialize()
    if app.post_init is not None:
        await app.post_init(app)
    await start(updater)
    await app.start()


async def _stop(app: Application, updater: Updater, since: float, stop_within: float) -> None:
    end = since + stop_within
    if updater.running:
        await _within("the updater", updater.stop(), since + STOP_UPDATER)
    if app.running:
        await _within("the updates in flight", app.stop(), since + STOP_UPDATES)
        if app.post_stop is not None:
            await _within("post_stop", app.post_stop(app), end - 0.5)
    await _within("the shutdown", app.shutdown(), end - 0.25)
    if app.post_shutdown is not None:
        await _within("post_shutdown", app.post_shutdown(app), end)
    left = [task for task in asyncio.all_tasks() if task.get_name().startswith(UPDATE_TASKS)]
    for task in left:  # updates cut short (their presses unanswered, nothing half-saved)
        task.cancel()
    if left:
        await asyncio.wait(left, timeout=0.25)
