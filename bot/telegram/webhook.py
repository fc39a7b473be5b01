"""The webhook's deliveries, checked before python-telegram-bot sees them: a body that is no update gets 400.

python-telegram-bot's webhook server (tornado, started by `Updater.start_webhook`) answers a delivery with the
right secret but malformed JSON with 500, and one whose JSON is a list, or an object that is no update, with
an ERROR-level line and its traceback: a stranger who learned the URL and the secret could fill the logs.
`start_webhook` starts that same server, then routes its one path to `CheckedDelivery`: the secret and the
content type are checked as before (403), a body that is not a JSON object with an integer `update_id` that
makes an Update gets 400, and such bodies are logged as one WARNING a minute at most (with the count left
unsaid since the last one). A genuine update goes on as before, to the Application's update queue."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

import tornado.web
from telegram import Update
from telegram.ext import ExtBot, Updater
from telegram.ext._utils.webhookhandler import TelegramHandler

log = logging.getLogger(__name__)

WARN_EVERY = 60.0  # seconds: at most one warning about bad deliveries in this long


@dataclass
class Throttle:
    """At most one warning per `every` seconds of `clock`; the ones held back are counted into the next."""

    every: float = WARN_EVERY
    clock: Callable[[], float] = time.monotonic
    last: float | None = None  # when the last warning was said
    held: int = 0  # warnings held back since then

    def warn(self, message: str, *args: object) -> None:
        now = self.clock()
        if self.last is not None and now - self.last < self.every:
            self.held += 1
            return
        held, self.held, self.last = self.held, 0, now
        suffix = f" ({held} more such deliveries in the last {self.every:g} s)" if held else ""
        log.warning(message + suffix, *args)


class BadDelivery(ValueError):
    """A webhook delivery whose body is no Telegram update."""


def update_of(body: bytes, bot: Any) -> Update:
    """The update a delivery's body carries; BadDelivery (saying what was wrong) if it carries none."""
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, ValueError) as err:
        raise BadDelivery(f"the body is not JSON ({err})") from None
    if not isinstance(data, dict):
        raise BadDelivery(f"the body is a JSON {type(data).__name__}, not an object")
    if not isinstance(data.get("update_id"), int) or isinstance(data.get("update_id"), bool):
        raise BadDelivery("the body has no integer update_id")
    try:
        update = Update.de_json(data, bot)
    except Exception as err:  # whatever python-telegram-bot finds wrong in an object it cannot read
        raise BadDelivery(f"the object is no update ({type(err).__name__}: {err})") from None
    if update is None:
        raise BadDelivery("the object is no update")
    return update


class CheckedDelivery(TelegramHandler):
    """PTB's webhook handler, with the body checked before it is read as an update (400 if it is none)."""

    def initialize(  # type: ignore[override]
        self, bot: Any, update_queue: Any, secret_token: str, warnings: Throttle
    ) -> None:
        super().initialize(bot, update_queue, secret_token)
        self.warnings = warnings

    async def post(self) -> None:
        """A delivery: 403 without the secret, 400 with a body that is no update, else queued (200)."""
        self._validate_post()  # the secret and the content type: 403
        try:
            update = update_of(self.request.body, self.bot)
        except BadDelivery as err:
            self.warnings.warn(
                "webhook: a delivery from %s refused with 400: %s", self.request.remote_ip, err
            )
            raise tornado.web.HTTPError(HTTPStatus.BAD_REQUEST, reason="No update") from None
        self.set_status(HTTPStatus.OK)
        if isinstance(self.bot, ExtBot):
            self.bot.insert_callback_data(update)
        await self.update_queue.put(update)


async def start_webhook(
    updater: Updater, warnings: Throttle | None = None, **kw: Any
) -> asyncio.Queue[object]:
    """`updater.start_webhook(**kw)`, its path served by CheckedDelivery (the same secret, bot and queue);
    returns the update queue, as it does."""
    queue = await updater.start_webhook(**kw)
    guard(updater, warnings or Throttle())
    return queue


def guard(updater: Updater, warnings: Throttle) -> None:
    """Route the running webhook server's path to CheckedDelivery. The server is python-telegram-bot's
    (its tornado Application, reached through the updater's private `_httpd`: tests/bot/test_webhook.py
    fails if a new version moves it)."""
    server = getattr(updater, "_httpd", None)
    app = getattr(getattr(server, "_http_server", None), "request_callback", None)
    if not isinstance(app, tornado.web.Application):
        raise RuntimeError(f"the webhook server of {updater!r} is not a tornado Application: cannot guard it")
    rules = [r for r in app.wildcard_router.rules if r.target is TelegramHandler]
    if len(rules) != 1:
        raise RuntimeError(f"the webhook server has {len(rules)} delivery routes, not one: cannot guard it")
    rules[0].target_kwargs = {**rules[0].target_kwargs, "warnings": warnings}
    rules[0].target = CheckedDelivery
