"""What every part of the fake Bot API shares: its state under one lock, the ids it hands out, waiting on a
condition, an update queued for the bot (polled or sent to the webhooks), a bot's message stored and found
again to edit, and the JSON shapes of chats and messages. The parts (http_front.py, delivery.py,
messages.py, media.py, inline.py, user_side.py, inspection.py) build on it; server.py puts them together."""

from __future__ import annotations

import asyncio
import itertools
import queue
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aiohttp import web

from testkit.fake_telegram.state import (
    BOT_ID,
    BOT_TOKEN,
    BOT_USERNAME,
    ApiError,
    Chat,
    State,
    StoredMessage,
    TelegramLimits,
)


class FakeCore:
    """The fake's state and the helpers every part of it uses."""

    def __init__(self, token: str = BOT_TOKEN) -> None:
        self.token = token
        self._lock = threading.Condition()
        self._state = State()
        self._update_ids = itertools.count(1)
        self._message_ids = itertools.count(1000)
        self._file_ids = itertools.count(1)
        self._query_ids = itertools.count(1)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._serving = False
        self._port = 0
        self._pollers: ThreadPoolExecutor | None = None
        self._thread: threading.Thread | None = None
        self.duplicate_rate = 0.0
        self.max_connections = 8
        self._rng = random.Random(0)
        self._outbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._senders: list[threading.Thread] = []
        self._undelivered = 0  # updates put into the outbox and not yet delivered (or given back)
        self._limits: TelegramLimits | None = None
        self._allowed: set[str] | None = None  # the kinds of updates the bot asked for (None: the default)
        self.filtered = 0  # updates not delivered because the bot did not ask for their kind
        # Called after a simulated user's press is answered (SimUser.press_data with wait): the bots
        # registered here finish drawing boards and sending messages first, as a person waits to see them.
        self.settlers: list[Callable[[], None]] = []
        self.hanging = False  # hang(): every request waits unanswered, Telegram behind a network partition

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 30.0, what: str = "a condition") -> Any:
        """Block until predicate() (evaluated under the lock) is truthy; return its value."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                value = predicate()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
                self._lock.wait(left)

    def push_update(self, kind: str, payload: dict[str, Any]) -> int:
        """Queue an update for getUpdates, or send it to the webhooks (maybe twice) if any is set; an
        update of a kind the bot did not ask for (allowed_updates) is not delivered, as Telegram does."""
        with self._lock:
            update_id = next(self._update_ids)
            if self._allowed is not None and kind not in self._allowed:
                self.filtered += 1
                return update_id
            self._queue_update({"update_id": update_id, kind: payload}, webhook=bool(self._state.webhooks))
            return update_id

    def _queue_update(self, update: dict[str, Any], webhook: bool) -> None:
        with self._lock:
            if webhook:
                copies = 2 if self.duplicate_rate and self._rng.random() < self.duplicate_rate else 1
                self._undelivered += copies
                for _ in range(copies):
                    self._outbox.put(update)
            else:
                self._state.updates.append(update)
                self._state.updates.sort(key=lambda u: int(u["update_id"]))
            self._lock.notify_all()

    def _store_bot_message(self, chat_id: int, **kw: Any) -> StoredMessage:
        chat = self._state.chats.get(chat_id)
        if chat is None:
            raise ApiError(400, "Bad Request: chat not found")
        msg = StoredMessage(chat_id=chat_id, message_id=next(self._message_ids), from_bot=True, **kw)
        self._state.messages[(chat_id, msg.message_id)] = msg
        return msg

    def _editable(self, params: dict[str, Any]) -> StoredMessage:
        if params.get("inline_message_id"):
            found = self._state.inline.get(str(params["inline_message_id"]))
            if found is None or found.deleted:
                raise ApiError(400, "Bad Request: MESSAGE_ID_INVALID")
            return found
        key = (int(params["chat_id"]), int(params["message_id"]))
        msg = self._state.messages.get(key)
        if msg is None or msg.deleted:
            raise ApiError(400, "Bad Request: message to edit not found")
        if not msg.from_bot:
            raise ApiError(400, "Bad Request: message can't be edited")
        return msg

    def _edited(self, msg: StoredMessage) -> Any:
        """An edit's result: the message, or True for an inline message (Telegram's answer)."""
        return True if msg.inline_id is not None else self._message_json(msg)

    def _chat_json(self, chat: Chat) -> dict[str, Any]:
        out: dict[str, Any] = {"id": chat.id, "type": chat.type}
        if chat.title:
            out["title"] = chat.title
        return out

    def _message_json(self, msg: StoredMessage) -> dict[str, Any]:
        chat = self._state.chats[msg.chat_id]
        out: dict[str, Any] = {
            "message_id": msg.message_id,
            "date": int(time.time()),
            "chat": self._chat_json(chat),
        }
        if msg.from_bot:
            out["from"] = {"id": BOT_ID, "is_bot": True, "first_name": "Nardy", "username": BOT_USERNAME}
        elif msg.sender is not None:
            out["from"] = msg.sender
        if msg.text is not None:
            out["text"] = msg.text
        if msg.photo is not None:
            out["photo"] = [
                {"file_id": msg.photo_id, "file_unique_id": msg.photo_id, "width": 800, "height": 600}
            ]
        if msg.document is not None:
            out["document"] = {
                "file_id": msg.file_id,
                "file_unique_id": msg.file_id,
                "file_name": msg.file_name,
            }
        if msg.animation is not None:
            size = {"width": 488, "height": 469, "duration": 1}
            out["animation"] = {"file_id": msg.file_id, "file_unique_id": msg.file_id, **size}
        if msg.caption is not None:
            out["caption"] = msg.caption
        if msg.reply_markup:
            out["reply_markup"] = msg.reply_markup
        return out
