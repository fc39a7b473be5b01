"""Who is on the page: Telegram's signed `initData` of a Mini App, checked on every connection and press.

Telegram signs the query string it hands the page (Telegram.WebApp.initData): every field but `hash`, sorted
by name and written `name=value` one per line, is the data-check-string; its HMAC-SHA256 under the key
HMAC-SHA256("WebAppData", bot token) is `hash`, in hex. The check here recomputes it and compares in constant
time, refuses a repeated field, a missing or malformed user, and an `auth_date` older than the configured age
(or more than a minute in the future). Pure: the time is passed in.

`sign` makes such a string (the tests' forger and honest client, and the sandbox's own sign-in use it).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

MAX_INIT_DATA = 4096  # bytes: Telegram's initData is about 1 KB
FUTURE_SKEW = 60.0  # seconds an auth_date may lie ahead of the bot's clock


class BadInitData(ValueError):
    """initData that does not prove who the page's user is (what was wrong is said; nothing is logged)."""


@dataclass(frozen=True)
class WebUser:
    """The Telegram user a checked initData names."""

    id: int
    first_name: str
    last_name: str = ""
    username: str = ""
    language_code: str = ""


@dataclass(frozen=True)
class InitData:
    user: WebUser
    auth_date: int
    start_param: str | None = None  # what a Direct Link's ?startapp= carried (the game id)
    chat_type: str | None = None
    chat_instance: str | None = None


def _secret(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def _check_string(fields: dict[str, str]) -> bytes:
    return "\n".join(f"{k}={fields[k]}" for k in sorted(fields) if k != "hash").encode()


def sign(fields: dict[str, str], bot_token: str) -> str:
    """The initData query string Telegram would give for `fields` (with its `hash`)."""
    digest = hmac.new(_secret(bot_token), _check_string(fields), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})


def check(raw: str, bot_token: str, now: float, max_age: float) -> InitData:
    """The checked initData of `raw`; BadInitData says why not."""
    if not raw:
        raise BadInitData("no initData: open the game from Telegram")
    if len(raw.encode()) > MAX_INIT_DATA:
        raise BadInitData(f"initData is longer than {MAX_INIT_DATA} bytes")
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise BadInitData("initData is not a query string") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise BadInitData("initData repeats a field")
    given = fields.get("hash", "")
    expected = hmac.new(_secret(bot_token), _check_string(fields), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise BadInitData("initData's hash does not match: it was not signed for this bot")
    try:
        auth_date = int(fields["auth_date"])
    except (KeyError, ValueError):
        raise BadInitData("initData has no auth_date") from None
    if auth_date < now - max_age:
        raise BadInitData(f"initData is older than {max_age:g} s: open the game again")
    if auth_date > now + FUTURE_SKEW:
        raise BadInitData("initData's auth_date is in the future")
    try:
        user = json.loads(fields["user"])
        web_user = WebUser(
            id=int(user["id"]),
            first_name=str(user.get("first_name", "")),
            last_name=str(user.get("last_name", "")),
            username=str(user.get("username", "")),
            language_code=str(user.get("language_code", "")),
        )
    except (KeyError, ValueError, TypeError):
        raise BadInitData("initData names no user") from None
    if web_user.id <= 0:
        raise BadInitData("initData names no user")
    return InitData(
        web_user,
        auth_date,
        fields.get("start_param"),
        fields.get("chat_type"),
        fields.get("chat_instance"),
    )
