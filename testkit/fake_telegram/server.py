"""The fake Bot API: an HTTP server (aiohttp) on 127.0.0.1 that keeps chats, messages, photos and updates.

It speaks the subset of https://core.telegram.org/bots/api the bot uses, with JSON bodies, form bodies
and multipart uploads (sendPhoto, editMessageMedia). Faults can be injected per method and chat:
429 flood control, 403 blocked by the user, 400 "message is not modified" and the rest.

Webhooks: every setWebhook URL is kept (the fake plays Telegram and a load balancer in front of several
workers); while any is set, updates are POSTed to them, spread at random, by `max_connections` sender
threads, and `duplicate_rate` of them are delivered twice (to any worker), as Telegram may. A refused or
failed delivery is retried on another URL. deleteWebhook with `url=` forgets one URL, without it all.

`FakeTelegram` is put together here from its parts, each a module of this package over the shared core
(core.py): the HTTP front and the failures a test injects (http_front.py), getUpdates and the webhooks
(delivery.py), the methods on messages (messages.py) and on files (media.py), inline mode (inline.py), what
the users do (user_side.py) and what a test reads and waits for (inspection.py). The values it keeps and
hands out live in state.py and are importable from here too, as the tests import them.
"""

from __future__ import annotations

from testkit.fake_telegram.delivery import UpdateDelivery
from testkit.fake_telegram.http_front import HttpFront
from testkit.fake_telegram.inline import INLINE_ANSWER_WITHIN, InlineMode
from testkit.fake_telegram.inspection import Inspection
from testkit.fake_telegram.media import MediaMethods
from testkit.fake_telegram.messages import MessageMethods
from testkit.fake_telegram.state import (
    BOT_ID,
    BOT_TOKEN,
    BOT_USERNAME,
    ApiError,
    CallbackAnswer,
    Chat,
    Fault,
    Hold,
    LeakyBucket,
    Stall,
    StoredMessage,
    TelegramLimits,
)
from testkit.fake_telegram.user_side import UserSide

__all__ = [
    "BOT_ID",
    "BOT_TOKEN",
    "BOT_USERNAME",
    "INLINE_ANSWER_WITHIN",
    "ApiError",
    "CallbackAnswer",
    "Chat",
    "FakeTelegram",
    "Fault",
    "Hold",
    "LeakyBucket",
    "Stall",
    "StoredMessage",
    "TelegramLimits",
]


class FakeTelegram(HttpFront, UpdateDelivery, MessageMethods, MediaMethods, InlineMode, UserSide, Inspection):
    """The fake Bot API server. Start with `start()`, point the bot at `api_url`, stop with `stop()`."""
