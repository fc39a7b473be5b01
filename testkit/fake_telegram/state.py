"""What the fake Bot API keeps and hands out: its bot's identity, the chats, the stored messages and the
callback answers, the faults, holds and stalls a test injects, and Telegram's flood limits (leaky buckets).
Plain values: the server's parts (testkit/fake_telegram/server.py) read and change them under its lock."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

BOT_TOKEN = "123456:TEST-token-for-the-fake-api"
BOT_ID = 123456
BOT_USERNAME = "nardy_test_bot"


class ApiError(Exception):
    """An error answer of the Bot API: HTTP status, description and optional retry_after."""

    def __init__(self, code: int, description: str, retry_after: int | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.retry_after = retry_after


@dataclass
class Fault:
    """An injected failure: the next `times` calls of `method` (to `chat_id`, if given) fail."""

    method: str
    code: int
    description: str
    times: int = 1
    chat_id: int | None = None
    retry_after: int | None = None


@dataclass
class Hold:
    """Calls of `method` (to `chat_id`) that wait until the test releases them."""

    method: str
    chat_id: int | None
    released: asyncio.Event
    apply: bool = True
    waiting: int = 0
    let_through: int = 0


@dataclass
class Stall:
    """The next `times` calls of `method` (to `chat_id`) wait `seconds`, then fail unapplied (a timeout)."""

    method: str
    seconds: float
    times: int = 1
    chat_id: int | None = None


class LeakyBucket:
    """`capacity` calls at once, drained at `per_second`: `take` says how long a refused call must wait."""

    def __init__(self, capacity: float, per_second: float) -> None:
        self.capacity = capacity
        self.per_second = per_second
        self.level = 0.0
        self.at = time.monotonic()

    def take(self, now: float) -> float:
        self.level = max(0.0, self.level - (now - self.at) * self.per_second)
        self.at = now
        if self.level + 1 > self.capacity + 1e-9:
            return (self.level + 1 - self.capacity) / self.per_second
        self.level += 1
        return 0.0


@dataclass
class TelegramLimits:
    """Telegram's limits on a bot's messages: 30 a second overall, 20 a minute in one group."""

    overall_per_second: float = 30.0
    group_per_minute: float = 20.0
    overall: LeakyBucket = field(init=False)
    groups: dict[int, LeakyBucket] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.overall = LeakyBucket(self.overall_per_second, self.overall_per_second)

    def group(self, chat_id: int) -> LeakyBucket:
        bucket = self.groups.get(chat_id)
        if bucket is None:
            bucket = self.groups[chat_id] = LeakyBucket(self.group_per_minute, self.group_per_minute / 60)
        return bucket


# Methods Telegram does not count against a chat's message limits.
UNLIMITED = {
    "answerCallbackQuery",
    "getMe",
    "getUpdates",
    "setMyCommands",
    "setMyDescription",
    "setChatMenuButton",
}


@dataclass
class StoredMessage:
    """A message as the fake keeps it (text or photo, caption, keyboard)."""

    chat_id: int
    message_id: int
    from_bot: bool
    text: str | None = None
    caption: str | None = None
    photo: bytes | None = None
    photo_id: str | None = None
    reply_markup: dict[str, Any] | None = None
    deleted: bool = False
    edits: int = 0
    sender_id: int | None = None
    reply_to: int | None = None
    inline_id: str | None = None  # an inline message (posted by a user via the bot): edited by this id
    document: bytes | None = None  # a sent file (sendDocument) ...
    file_name: str | None = None  # ... and its name
    animation: bytes | None = None  # a sent animation (sendAnimation: a GIF or an MP4)
    file_id: str | None = None  # the document's or animation's file_id
    sender: dict[str, Any] | None = None  # a user's message: the user as Telegram shows them ("from")

    @property
    def buttons(self) -> list[dict[str, Any]]:
        """Every inline button of the keyboard, row by row."""
        if not self.reply_markup:
            return []
        return [b for row in self.reply_markup.get("inline_keyboard", []) for b in row]

    @property
    def button_texts(self) -> list[str]:
        return [b["text"] for b in self.buttons]

    @property
    def body(self) -> str:
        """The text or the caption, whichever the message has."""
        return self.text if self.text is not None else (self.caption or "")


@dataclass
class Chat:
    id: int
    type: str
    title: str | None = None
    blocked: bool = False  # a private chat whose user blocked the bot
    admins: set[int] = field(default_factory=set)  # a group's administrators (getChatMember)
    gone: dict[int, str] = field(default_factory=dict)  # user id -> "left" or "kicked" (getChatMember)


@dataclass
class CallbackAnswer:
    query_id: str
    text: str | None
    show_alert: bool


@dataclass
class State:
    """Everything the fake keeps, guarded by its lock."""

    chats: dict[int, Chat] = field(default_factory=dict)
    messages: dict[tuple[int, int], StoredMessage] = field(default_factory=dict)
    updates: list[dict[str, Any]] = field(default_factory=list)
    answers: dict[str, CallbackAnswer] = field(default_factory=dict)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    commands: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    menu_buttons: dict[int | None, dict[str, Any]] = field(
        default_factory=dict
    )  # chat (None: default) -> button
    faults: list[Fault] = field(default_factory=list)
    webhooks: dict[str, str] = field(default_factory=dict)  # webhook URL -> its secret token ("" for none)
    deliveries: Counter[str] = field(default_factory=Counter)  # callback query id -> webhook deliveries
    answer_log: dict[str, list[CallbackAnswer]] = field(default_factory=dict)  # every answer, repeats too
    holds: list[Hold] = field(default_factory=list)
    stalls: list[Stall] = field(default_factory=list)
    flood_refusals: int = 0  # calls refused with 429 by the enforced limits
    files: dict[str, bytes] = field(default_factory=dict)  # file_id -> the photo's bytes
    file_names: dict[str, str] = field(default_factory=dict)  # file_id -> a document's file name
    inline: dict[str, StoredMessage] = field(default_factory=dict)  # inline_message_id -> the message
    inline_queries: dict[str, tuple[float, dict[str, Any]]] = field(
        default_factory=dict
    )  # id -> (asked, query)
    inline_answers: dict[str, dict[str, Any]] = field(default_factory=dict)  # query id -> the answer's params
    descriptions: dict[tuple[str, str], str] = field(default_factory=dict)  # (kind, language) -> text
