"""The fake Bot API: an HTTP server (aiohttp) on 127.0.0.1 that keeps chats, messages, photos and updates.

It speaks the subset of https://core.telegram.org/bots/api the bot uses, with JSON bodies, form bodies
and multipart uploads (sendPhoto, editMessageMedia). Faults can be injected per method and chat:
429 flood control, 403 blocked by the user, 400 "message is not modified" and the rest.

Webhooks: every setWebhook URL is kept (the fake plays Telegram and a load balancer in front of several
workers); while any is set, updates are POSTed to them, spread at random, by `max_connections` sender
threads, and `duplicate_rate` of them are delivered twice (to any worker), as Telegram may. A refused or
failed delivery is retried on another URL. deleteWebhook with `url=` forgets one URL, without it all.
"""

from __future__ import annotations

import asyncio
import copy
import http.client
import itertools
import json
import math
import queue
import random
import re
import socket
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

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


INLINE_ANSWER_WITHIN = 10.0  # seconds Telegram waits for an answer to an inline query

# Methods Telegram does not count against a chat's message limits.
_UNLIMITED = {"answerCallbackQuery", "getMe", "getUpdates", "setMyCommands", "setMyDescription"}


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


@dataclass
class CallbackAnswer:
    query_id: str
    text: str | None
    show_alert: bool


@dataclass
class _State:
    chats: dict[int, Chat] = field(default_factory=dict)
    messages: dict[tuple[int, int], StoredMessage] = field(default_factory=dict)
    updates: list[dict[str, Any]] = field(default_factory=list)
    answers: dict[str, CallbackAnswer] = field(default_factory=dict)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    commands: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
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


_BOUNDARY = re.compile(r'boundary=(?:"([^"]+)"|([^;\s]+))', re.IGNORECASE)
_PARAM = re.compile(r';\s*(name|filename)="((?:[^"\\]|\\.)*)"', re.IGNORECASE)


FILENAME = ":filename"  # files[name + FILENAME]: the name an upload came with


def _parse_multipart(content_type: str, body: bytes) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Form fields (str) and uploaded files (bytes) of a multipart/form-data body (RFC 7578).

    A plain split on the boundary: the email package's parser cost the load benchmark more CPU than
    the bot it measures. A body that does not parse raises ApiError 400, as Telegram answers.
    """
    found = _BOUNDARY.search(content_type)
    if found is None:
        raise ApiError(400, "Bad Request: multipart body without a boundary")
    delimiter = b"--" + (found.group(1) or found.group(2)).encode("latin-1")
    chunks = body.split(delimiter)
    if len(chunks) < 3 or not chunks[-1].startswith(b"--"):
        raise ApiError(400, "Bad Request: multipart body without its closing boundary")
    fields: dict[str, Any] = {}
    files: dict[str, bytes] = {}
    for chunk in chunks[1:-1]:
        head, separator, payload = chunk.partition(b"\r\n\r\n")
        if not separator or not head.startswith(b"\r\n") or not payload.endswith(b"\r\n"):
            raise ApiError(400, "Bad Request: a multipart part without its headers")
        payload = payload[:-2]
        disposition = next(
            (
                line
                for line in head.decode("utf-8").split("\r\n")
                if line.lower().startswith("content-disposition:")
            ),
            None,
        )
        params = {k.lower(): v.replace('\\"', '"') for k, v in _PARAM.findall(disposition or "")}
        if "name" not in params:
            raise ApiError(400, "Bad Request: a multipart part without a name")
        if "filename" in params:
            files[params["name"]] = payload
            files[params["name"] + FILENAME] = params["filename"].encode("utf-8")
        else:
            fields[params["name"]] = payload.decode("utf-8")
    return fields, files


def _decode_field(value: Any) -> Any:
    """Form values that carry JSON (reply_markup, media, numbers) decoded; plain text kept."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def _new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop where the bot has it (less of the machine for the fake, more for the bot it measures)."""
    try:
        import uvloop
    except ImportError:  # not on Windows
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


class FakeTelegram:
    """The fake Bot API server. Start with `start()`, point the bot at `api_url`, stop with `stop()`."""

    def __init__(self, token: str = BOT_TOKEN) -> None:
        self.token = token
        self._lock = threading.Condition()
        self._state = _State()
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

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Serve on a free port of 127.0.0.1 from a thread of its own (aiohttp's server: its C HTTP
        parser keeps the fake's CPU per request small, so a load benchmark measures the bot)."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(1024)
        self._port = sock.getsockname()[1]
        loop = _new_event_loop()
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.SockSite(runner, sock).start())
        self._loop, self._runner, self._serving = loop, runner, True
        self._pollers = ThreadPoolExecutor(32, thread_name_prefix="fake-telegram-poll")
        self._thread = threading.Thread(target=loop.run_forever, name="fake-telegram", daemon=True)
        self._thread.start()

    async def _handle(self, request: web.Request) -> web.Response:
        if self.hanging:
            await asyncio.sleep(3600)  # until stop() cancels it
        body = await request.read()
        content_type = request.headers.get("Content-Type", "")
        if request.path.endswith("/getUpdates"):  # a long poll blocks: it waits in a thread of its own
            status, answer = await asyncio.get_running_loop().run_in_executor(
                self._pollers, self._dispatch, request.path_qs, content_type, body
            )
        else:
            parsed = self._parse(request.path_qs, content_type, body)
            if len(parsed) == 3 and (self._state.holds or self._state.stalls):
                method, params, _ = parsed
                held = await self._wait_if_held(method, params)
                if held is not None:
                    status, answer = held
                    return web.Response(
                        body=json.dumps(answer).encode(), status=status, content_type="application/json"
                    )
            status, answer = self._dispatch(request.path_qs, content_type, body, parsed)
        return web.Response(body=json.dumps(answer).encode(), status=status, content_type="application/json")

    async def _wait_if_held(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        """A held request waits until released: answered then as usual (None), or refused unapplied. A stall
        waits its seconds and is refused unapplied (the bot timed out long before: Telegram was slow)."""
        chat_id = params.get("chat_id")
        with self._lock:
            stall = next(
                (
                    x
                    for x in self._state.stalls
                    if x.method == method and x.times > 0 and x.chat_id in (None, chat_id)
                ),
                None,
            )
            if stall is not None:
                stall.times -= 1
                self._state.calls.append((method, params))
            hold = next(
                (h for h in self._state.holds if h.method == method and h.chat_id in (None, chat_id)), None
            )
            if hold is not None:
                hold.waiting += 1
                self._lock.notify_all()
        if stall is not None:
            await asyncio.sleep(stall.seconds)
            return 502, {"ok": False, "error_code": 502, "description": "Bad Gateway"}
        if hold is None:
            return None
        await hold.released.wait()
        with self._lock:
            hold.waiting -= 1
            hold.let_through += 1
        if hold.apply:
            return None
        return 502, {"ok": False, "error_code": 502, "description": "Bad Gateway"}

    def hold(self, method: str, chat_id: int | None = None) -> Hold:
        """From now on, calls of `method` (to `chat_id`) wait until `release()` (Telegram being slow)."""
        assert self._loop is not None
        hold = Hold(method, chat_id, asyncio.Event())
        with self._lock:
            self._state.holds.append(hold)
        return hold

    def release(self, hold: Hold, apply: bool = True) -> None:
        """Let held calls through: answered and applied (`apply`), or refused unapplied."""
        assert self._loop is not None
        with self._lock:
            hold.apply = apply
            if hold in self._state.holds:
                self._state.holds.remove(hold)
        self._loop.call_soon_threadsafe(hold.released.set)

    def wait_held(self, hold: Hold, count: int = 1, timeout: float = 10.0) -> None:
        self.wait_for(lambda: hold.waiting >= count, timeout, f"{count} held {hold.method} call(s)")

    def hang(self) -> None:
        """From now on every request (polls included) waits unanswered until stop(): connections open and
        nothing answers, as when Telegram is cut off by a network partition."""
        self.hanging = True

    def stall(self, stall: Stall) -> None:
        """The next `stall.times` calls of a method wait `stall.seconds`, then fail unapplied."""
        with self._lock:
            self._state.stalls.append(stall)

    def enforce_limits(self, limits: TelegramLimits | None = None) -> None:
        """Refuse with 429 what Telegram refuses: more than 20 messages a minute in a group, 30 a second
        overall (leaky buckets, as Telegram's documentation describes the limits). Off by default: the
        tests of game rules play groups far faster than 20 moves a minute."""
        with self._lock:
            self._limits = limits or TelegramLimits()

    def stop(self) -> None:
        for _ in self._senders:
            self._outbox.put(None)
        for sender in self._senders:
            sender.join(10)
        self._senders = []
        if self._loop is not None and self._runner is not None:
            with self._lock:
                self._serving = False
                self._lock.notify_all()
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(30)
            self._loop.call_soon_threadsafe(self._loop.stop)
            if self._thread is not None:
                self._thread.join(10)
            self._loop.close()
            self._loop = self._runner = None
        if self._pollers is not None:
            self._pollers.shutdown(wait=True)
            self._pollers = None

    @property
    def api_url(self) -> str:
        """The root URL, as TELEGRAM_API_URL takes it (the bot appends /bot<token>)."""
        assert self._loop is not None, "the fake Telegram server is not started"
        return f"http://127.0.0.1:{self._port}"

    # ------------------------------------------------------------------ HTTP dispatch

    def _parse(
        self, path: str, content_type: str, body: bytes
    ) -> tuple[str, dict[str, Any], dict[str, bytes]] | tuple[int, dict[str, Any]]:
        """(method, params, files), or (status, error answer)."""
        prefix = f"/bot{self.token}/"
        if not path.startswith(prefix):
            return 404, {"ok": False, "error_code": 404, "description": "Not Found"}
        method = path[len(prefix) :].split("?")[0]
        params: dict[str, Any]
        files: dict[str, bytes] = {}
        if content_type.startswith("multipart/form-data"):
            try:
                fields, files = _parse_multipart(content_type, body)
            except ApiError as err:
                return err.code, {"ok": False, "error_code": err.code, "description": err.description}
            params = {k: _decode_field(v) for k, v in fields.items()}
        elif content_type.startswith("application/json"):
            params = json.loads(body or b"{}")
        else:
            params = {k: _decode_field(v) for k, v in urllib.parse.parse_qsl(body.decode())}
        return method, params, files

    def _dispatch(
        self,
        path: str,
        content_type: str,
        body: bytes,
        parsed: tuple[str, dict[str, Any], dict[str, bytes]] | tuple[int, dict[str, Any]] | None = None,
    ) -> tuple[int, dict[str, Any]]:
        if parsed is None:
            parsed = self._parse(path, content_type, body)
        if len(parsed) == 2:
            return parsed
        method, params, files = parsed
        handler = getattr(self, "_api_" + method, None)
        if handler is None:
            return 404, {"ok": False, "error_code": 404, "description": f"Not Found: method {method}"}
        try:
            if method != "getUpdates":
                with self._lock:
                    self._state.calls.append((method, params))
                    self._check_faults(method, params)
                    self._check_limits(method, params)
            result = handler(params, files)
        except ApiError as err:
            answer: dict[str, Any] = {"ok": False, "error_code": err.code, "description": err.description}
            if err.retry_after is not None:
                answer["parameters"] = {"retry_after": err.retry_after}
            return err.code, answer
        finally:
            with self._lock:
                self._lock.notify_all()
        return 200, {"ok": True, "result": result}

    def _check_limits(self, method: str, params: dict[str, Any]) -> None:
        """Telegram's flood control (when enforced): a 429 with the seconds to wait."""
        limits = self._limits
        chat_id = params.get("chat_id")
        if limits is None or chat_id is None or method in _UNLIMITED:
            return
        now = time.monotonic()
        waits = [limits.overall.take(now)]
        if int(chat_id) < 0:
            waits.append(limits.group(int(chat_id)).take(now))
        wait = max(waits)
        if wait > 0:
            self._state.flood_refusals += 1
            retry = max(1, math.ceil(wait))
            raise ApiError(429, f"Too Many Requests: retry after {retry}", retry_after=retry)

    def _check_faults(self, method: str, params: dict[str, Any]) -> None:
        chat_id = params.get("chat_id")
        for fault in self._state.faults:
            if fault.method == method and fault.times > 0 and fault.chat_id in (None, chat_id):
                fault.times -= 1
                raise ApiError(fault.code, fault.description, fault.retry_after)
        if chat_id is not None and method != "answerCallbackQuery":
            chat = self._state.chats.get(int(chat_id))
            if chat is not None and chat.blocked:
                raise ApiError(403, "Forbidden: bot was blocked by the user")

    # ------------------------------------------------------------------ Bot API methods

    def _api_getMe(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        return {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "Nardy",
            "username": BOT_USERNAME,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": True,
        }

    def _api_deleteWebhook(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        with self._lock:
            if params.get("url"):  # the fake's extension: a worker that leaves the load balancer
                self._state.webhooks.pop(str(params["url"]), None)
            else:
                self._state.webhooks.clear()
        return True

    def _remember_allowed(self, params: dict[str, Any]) -> None:
        """Telegram keeps the last allowed_updates a bot gave (getUpdates or setWebhook) and delivers only
        those kinds of updates from then on."""
        allowed = params.get("allowed_updates")
        if allowed is not None:
            with self._lock:
                self._allowed = set(allowed) or None

    def _api_setWebhook(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        self._remember_allowed(params)
        url = str(params.get("url") or "")
        if not url:
            return self._api_deleteWebhook({}, files)
        if not url.startswith("http://127.0.0.1:"):
            raise ApiError(400, f"Bad Request: the fake delivers to http://127.0.0.1 only, not {url!r}")
        with self._lock:
            self._state.webhooks[url] = str(params.get("secret_token") or "")
            while len(self._senders) < self.max_connections:
                sender = threading.Thread(target=self._send_loop, name="fake-webhook", daemon=True)
                self._senders.append(sender)
                sender.start()
        return True

    def _api_getWebhookInfo(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        with self._lock:
            url = next(iter(self._state.webhooks), "")
            return {"url": url, "has_custom_certificate": False, "pending_update_count": self._outbox.qsize()}

    def wait_delivered(self, timeout: float = 10.0) -> None:
        """Block until every update queued for the webhooks was delivered (duplicates included)."""
        self.wait_for(lambda: self._undelivered == 0, timeout, "the webhook deliveries")

    def webhooks(self) -> list[str]:
        with self._lock:
            return list(self._state.webhooks)

    def _send_loop(self) -> None:
        """One of the fake's outgoing connections: POST each update to a webhook, retry on failure."""
        connections: dict[str, http.client.HTTPConnection] = {}
        while True:
            update = self._outbox.get()
            if update is None:
                break
            with self._lock:
                targets = list(self._state.webhooks.items())
            if not targets:  # the webhooks were deleted: back to getUpdates
                self._queue_update(update, webhook=False)
                with self._lock:
                    self._undelivered -= 1
                continue
            url, secret = self._rng.choice(targets)
            if self._post_update(connections, url, secret, update):
                query = update.get("callback_query")
                if query is not None:
                    with self._lock:
                        self._state.deliveries[str(query["id"])] += 1
                with self._lock:
                    self._undelivered -= 1
                    self._lock.notify_all()
            else:
                time.sleep(0.05)  # as Telegram does, try again a little later (maybe another worker)
                self._outbox.put(update)
        for conn in connections.values():
            conn.close()

    def _post_update(
        self,
        connections: dict[str, http.client.HTTPConnection],
        url: str,
        secret: str,
        update: dict[str, Any],
    ) -> bool:
        parsed = urllib.parse.urlsplit(url)
        body = json.dumps(update).encode()
        headers = {"Content-Type": "application/json"}
        if secret:
            headers["X-Telegram-Bot-Api-Secret-Token"] = secret
        for _attempt in range(2):  # a kept-alive connection the worker closed: one fresh try
            conn = connections.get(url)
            if conn is None:
                conn = connections[url] = http.client.HTTPConnection(
                    str(parsed.hostname), parsed.port, timeout=10
                )
            try:
                conn.request("POST", parsed.path or "/", body, headers)
                response = conn.getresponse()
                response.read()
                return 200 <= response.status < 300
            except (OSError, http.client.HTTPException):
                conn.close()
                del connections[url]
        return False

    def _api_setMyCommands(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        """Kept per scope and language: "<scope type>/<language>" ("default/" for the defaults)."""
        lang = params.get("language_code") or ""
        scope = params.get("scope") or {"type": "default"}
        commands = list(params["commands"])
        for command in commands:
            if not re.fullmatch(r"[a-z0-9_]{1,32}", str(command.get("command", ""))):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", ""))) <= 256:
                raise ApiError(400, "Bad Request: command description is empty or too long")
        with self._lock:
            self._state.commands[lang] = (
                commands if scope["type"] == "default" else self._state.commands.get(lang, commands)
            )
            self._state.commands[f"{scope['type']}/{lang}"] = commands
        return True

    def _api_setMyDescription(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        text = str(params.get("description") or "")
        if len(text) > 512:
            raise ApiError(400, "Bad Request: description is too long")
        with self._lock:
            self._state.descriptions[("description", params.get("language_code") or "")] = text
        return True

    def _api_setMyShortDescription(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        text = str(params.get("short_description") or "")
        if len(text) > 120:
            raise ApiError(400, "Bad Request: short description is too long")
        with self._lock:
            self._state.descriptions[("short", params.get("language_code") or "")] = text
        return True

    def descriptions(self) -> dict[tuple[str, str], str]:
        with self._lock:
            return dict(self._state.descriptions)

    def flood_refusals(self) -> int:
        with self._lock:
            return self._state.flood_refusals

    def _api_getUpdates(self, params: dict[str, Any], files: dict[str, bytes]) -> list[dict[str, Any]]:
        self._remember_allowed(params)
        offset = int(params.get("offset") or 0)
        timeout = float(params.get("timeout") or 0)
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                self._state.updates = [u for u in self._state.updates if u["update_id"] >= offset]
                if self._state.updates or time.monotonic() >= deadline or not self._serving:
                    return list(self._state.updates[:100])
                self._lock.wait(max(0.0, deadline - time.monotonic()))

    def _store_bot_message(self, chat_id: int, **kw: Any) -> StoredMessage:
        chat = self._state.chats.get(chat_id)
        if chat is None:
            raise ApiError(400, "Bad Request: chat not found")
        msg = StoredMessage(chat_id=chat_id, message_id=next(self._message_ids), from_bot=True, **kw)
        self._state.messages[(chat_id, msg.message_id)] = msg
        return msg

    def _api_sendMessage(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        text = str(params["text"])
        if not text.strip() or len(text) > 4096:
            raise ApiError(400, "Bad Request: message text is empty or too long")
        with self._lock:
            reply = params.get("reply_parameters")
            reply_to = None
            if reply:
                target = self._state.messages.get((int(params["chat_id"]), int(reply["message_id"])))
                if target is None or target.deleted:
                    if not reply.get("allow_sending_without_reply"):
                        raise ApiError(400, "Bad Request: message to be replied not found")
                else:
                    reply_to = target.message_id
            msg = self._store_bot_message(
                int(params["chat_id"]), text=text, reply_markup=params.get("reply_markup") or None
            )
            msg.reply_to = reply_to
            return self._message_json(msg)

    def _photo_bytes(self, ref: Any, files: dict[str, bytes], inline: bool = False) -> tuple[bytes, str]:
        """The photo a call names: an upload (attach://name, or the field itself), or a file_id the fake gave
        out. An inline message's media can be a file_id or a URL only, never an upload (Telegram's rule)."""
        if isinstance(ref, str) and ref in self._state.files:
            return self._state.files[ref], ref
        if inline:
            raise ApiError(
                400,
                "Bad Request: can't use an uploaded file as inline message media: send a file_id or a URL",
            )
        if isinstance(ref, str) and ref.startswith("attach://"):
            name = ref[len("attach://") :]
            if name not in files:
                raise ApiError(400, f"Bad Request: file {name} not uploaded")
            data = files[name]
        elif isinstance(ref, str) and ref in files:
            data = files[ref]
        else:
            raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
        if not data.startswith((b"\x89PNG", b"\xff\xd8")):
            raise ApiError(400, "Bad Request: IMAGE_PROCESS_FAILED")
        photo_id = f"photo-{next(self._file_ids)}"
        with self._lock:
            self._state.files[photo_id] = data
        return data, photo_id

    def _api_sendPhoto(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        photo = params.get("photo")
        if photo is None and "photo" in files:
            photo = "photo"
        data, photo_id = self._photo_bytes(photo, files)
        return self._send_media(params, photo=data, photo_id=photo_id)

    def _send_media(self, params: dict[str, Any], **media: Any) -> dict[str, Any]:
        """A sent photo, document or animation (`media`: its StoredMessage fields) with its caption (at most
        1024 characters, as Telegram allows) and keyboard, stored in its chat."""
        caption = params.get("caption")
        if caption is not None and len(str(caption)) > 1024:
            raise ApiError(400, "Bad Request: message caption is too long")
        with self._lock:
            msg = self._store_bot_message(
                int(params["chat_id"]),
                caption=None if caption is None else str(caption),
                reply_markup=params.get("reply_markup") or None,
                **media,
            )
            return self._message_json(msg)

    def _file(self, field: str, params: dict[str, Any], files: dict[str, bytes]) -> tuple[bytes, str, str]:
        """The file a sendDocument or sendAnimation names: an upload (its bytes and file name) or a file_id
        the fake gave out; Telegram's 50 MB limit for uploads by bots."""
        ref = params.get(field)
        if isinstance(ref, str) and ref in self._state.files:
            return self._state.files[ref], ref, self._state.file_names.get(ref, "file")
        name = ref[len("attach://") :] if isinstance(ref, str) and ref.startswith("attach://") else field
        if name not in files:
            raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
        data = files[name]
        if not data:
            raise ApiError(400, "Bad Request: file must be non-empty")
        if len(data) > 50 * 1024 * 1024:
            raise ApiError(413, "Request Entity Too Large")
        file_id = f"{field}-{next(self._file_ids)}"
        with self._lock:
            self._state.files[file_id] = data
            self._state.file_names[file_id] = files.get(name + FILENAME, name.encode()).decode("utf-8")
        return data, file_id, self._state.file_names[file_id]

    def _api_sendDocument(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        data, file_id, name = self._file("document", params, files)
        return self._send_media(params, document=data, file_name=name, file_id=file_id)

    def _api_sendAnimation(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        data, file_id, _ = self._file("animation", params, files)
        if not data.startswith((b"GIF87a", b"GIF89a")) and data[4:8] != b"ftyp":
            raise ApiError(400, "Bad Request: wrong type of the web page content")  # not a GIF or an MP4
        return self._send_media(params, animation=data, file_id=file_id)

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

    def _api_editMessageText(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        with self._lock:
            msg = self._editable(params)
            if msg.text is None:
                raise ApiError(400, "Bad Request: there is no text in the message to edit")
            text, markup = str(params["text"]), params.get("reply_markup") or None
            if text == msg.text and markup == msg.reply_markup:
                raise ApiError(
                    400,
                    "Bad Request: message is not modified: specified new message content "
                    "and reply markup are exactly the same",
                )
            msg.text, msg.reply_markup = text, markup
            msg.edits += 1
            return self._edited(msg)

    def _api_editMessageCaption(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        with self._lock:
            msg = self._editable(params)
            caption, markup = params.get("caption"), params.get("reply_markup") or None
            if caption is not None and len(str(caption)) > 1024:
                raise ApiError(400, "Bad Request: message caption is too long")
            if caption == msg.caption and markup == msg.reply_markup:
                raise ApiError(
                    400,
                    "Bad Request: message is not modified: specified new message content "
                    "and reply markup are exactly the same",
                )
            msg.caption, msg.reply_markup = caption, markup
            msg.edits += 1
            return self._edited(msg)

    def _api_editMessageReplyMarkup(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        with self._lock:
            msg = self._editable(params)
            markup = params.get("reply_markup") or None
            if markup == msg.reply_markup:
                raise ApiError(
                    400,
                    "Bad Request: message is not modified: specified new message content "
                    "and reply markup are exactly the same",
                )
            msg.reply_markup = markup
            msg.edits += 1
            return self._edited(msg)

    def _api_editMessageMedia(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        media = params["media"]
        if not isinstance(media, dict) or media.get("type") != "photo":
            raise ApiError(400, "Bad Request: the fake edits photos only")
        data, photo_id = self._photo_bytes(
            media.get("media"), files, inline=bool(params.get("inline_message_id"))
        )
        caption = media.get("caption")
        if caption is not None and len(str(caption)) > 1024:
            raise ApiError(400, "Bad Request: message caption is too long")
        with self._lock:
            msg = self._editable(params)
            if msg.photo is None:
                raise ApiError(400, "Bad Request: there is no media in the message to edit")
            msg.photo, msg.photo_id = data, photo_id
            msg.caption = None if caption is None else str(caption)
            msg.reply_markup = params.get("reply_markup") or None
            msg.edits += 1
            return self._edited(msg)

    def _edited(self, msg: StoredMessage) -> Any:
        """An edit's result: the message, or True for an inline message (Telegram's answer)."""
        return True if msg.inline_id is not None else self._message_json(msg)

    def _api_answerInlineQuery(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        qid = str(params["inline_query_id"])
        results = params.get("results") or []
        with self._lock:
            asked = self._state.inline_queries.get(qid)
            if (
                asked is None
                or time.monotonic() - asked[0] > INLINE_ANSWER_WITHIN
                or qid in self._state.inline_answers
            ):
                raise ApiError(
                    400, "Bad Request: query is too old and response timeout expired or query ID is invalid"
                )
            if len(results) > 50:
                raise ApiError(400, "Bad Request: RESULTS_TOO_MUCH")
            ids = [str(r.get("id", "")) for r in results]
            if any(not 1 <= len(i.encode()) <= 64 for i in ids) or len(set(ids)) != len(ids):
                raise ApiError(400, "Bad Request: RESULT_ID_INVALID")
            for result in results:
                if result.get("type") == "photo" and "photo_file_id" in result:
                    if result["photo_file_id"] not in self._state.files:
                        raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
                elif result.get("type") == "article":
                    if not str((result.get("input_message_content") or {}).get("message_text", "")).strip():
                        raise ApiError(400, "Bad Request: MESSAGE_EMPTY")
                else:
                    raise ApiError(
                        400, f"Bad Request: the fake knows cached photos and articles, not {result}"
                    )
            self._state.inline_answers[qid] = dict(params)
            return True

    def _api_deleteMessage(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        with self._lock:
            msg = self._editable(params)
            msg.deleted = True
            return True

    def _api_answerCallbackQuery(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        qid = str(params["callback_query_id"])
        with self._lock:
            given = CallbackAnswer(qid, params.get("text"), bool(params.get("show_alert")))
            self._state.answer_log.setdefault(qid, []).append(given)
            if qid in self._state.answers:
                raise ApiError(
                    400, "Bad Request: query is too old and response timeout expired or query ID is invalid"
                )
            self._state.answers[qid] = CallbackAnswer(qid, params.get("text"), bool(params.get("show_alert")))
            return True

    # ------------------------------------------------------------------ JSON shapes

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

    # ------------------------------------------------------------------ the users' side

    def add_chat(self, chat_id: int, chat_type: str, title: str | None = None) -> None:
        with self._lock:
            self._state.chats.setdefault(chat_id, Chat(chat_id, chat_type, title))

    def set_blocked(self, chat_id: int, blocked: bool = True) -> None:
        """Make a private chat answer 403 "bot was blocked by the user" (or stop doing so)."""
        with self._lock:
            self._state.chats[chat_id].blocked = blocked

    def inject(self, fault: Fault) -> None:
        with self._lock:
            self._state.faults.append(fault)

    def faults_left(self) -> int:
        with self._lock:
            return sum(f.times for f in self._state.faults)

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

    def user_message(
        self, chat_id: int, user: dict[str, Any], text: str, reply_to: StoredMessage | None = None
    ) -> StoredMessage:
        """A user writes `text` in a chat (as a reply to `reply_to`, a message there, if given); a leading
        /command gets its bot_command entity."""
        with self._lock:
            chat = self._state.chats[chat_id]
            msg = StoredMessage(
                chat_id=chat_id,
                message_id=next(self._message_ids),
                from_bot=False,
                text=text,
                sender_id=user["id"],
                reply_to=None if reply_to is None else reply_to.message_id,
                sender=user,
            )
            self._state.messages[(chat_id, msg.message_id)] = msg
            payload: dict[str, Any] = {
                "message_id": msg.message_id,
                "date": int(time.time()),
                "from": user,
                "chat": self._chat_json(chat),
                "text": text,
            }
            if reply_to is not None:
                replied = self._message_json(self._state.messages[(chat_id, reply_to.message_id)])
                payload["reply_to_message"] = replied
            if text.startswith("/"):
                payload["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
        self.push_update("message", payload)
        return msg

    def edit_user_message(self, msg: StoredMessage, user: dict[str, Any], text: str) -> None:
        """A user edits their message (an "edited_message" update, if the bot asked for those)."""
        with self._lock:
            stored = self._state.messages[(msg.chat_id, msg.message_id)]
            stored.text = text
            stored.edits += 1
            payload: dict[str, Any] = {
                "message_id": msg.message_id,
                "date": int(time.time()),
                "edit_date": int(time.time()),
                "from": user,
                "chat": self._chat_json(self._state.chats[msg.chat_id]),
                "text": text,
            }
            if text.startswith("/"):
                payload["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
        self.push_update("edited_message", payload)

    def press(self, user: dict[str, Any], msg: StoredMessage, data: str) -> str:
        """A user presses a button with callback `data` under `msg`; returns the callback query id."""
        with self._lock:
            qid = f"q{next(self._query_ids)}"
            payload = {
                "id": qid,
                "from": user,
                "chat_instance": str(msg.chat_id),
                "data": data,
                "message": self._message_json(msg),
            }
        self.push_update("callback_query", payload)
        return qid

    # ------------------------------------------------------------------ inline mode

    def inline_query(self, user: dict[str, Any], query: str, chat_type: str = "private") -> str:
        """A user types `@bot <query>` in some chat; returns the inline query id."""
        with self._lock:
            qid = f"iq{next(self._query_ids)}"
            payload = {"id": qid, "from": user, "query": query, "offset": "", "chat_type": chat_type}
            self._state.inline_queries[qid] = (time.monotonic(), payload)
        self.push_update("inline_query", payload)
        return qid

    def wait_inline_answer(self, query_id: str, timeout: float = 10.0) -> dict[str, Any]:
        found: dict[str, Any] = self.wait_for(
            lambda: self._state.inline_answers.get(query_id),
            timeout,
            f"the answer to inline query {query_id}",
        )
        return found

    def choose_inline(
        self, user: dict[str, Any], query_id: str, result_id: str, chat_id: int, feedback: bool = True
    ) -> StoredMessage:
        """The user picks a result: it is posted in `chat_id` (any chat, the bot need not be in it) as an
        inline message; with inline feedback on, the bot gets a chosen_inline_result (with the message's
        inline_message_id when the result has an inline keyboard, as Telegram does)."""
        with self._lock:
            answer = self._state.inline_answers[query_id]
            result = next(r for r in answer["results"] if str(r["id"]) == result_id)
            self._state.chats.setdefault(chat_id, Chat(chat_id, "private" if chat_id > 0 else "group"))
            inline_id = f"inl{next(self._file_ids)}"
            msg = StoredMessage(
                chat_id=chat_id,
                message_id=next(self._message_ids),
                from_bot=False,
                sender_id=int(user["id"]),
                reply_markup=result.get("reply_markup") or None,
                inline_id=inline_id if result.get("reply_markup") else None,
            )
            if result["type"] == "photo":
                msg.photo = self._state.files[result["photo_file_id"]]
                msg.photo_id = result["photo_file_id"]
                msg.caption = result.get("caption")
            else:
                msg.text = str(result["input_message_content"]["message_text"])
            self._state.messages[(chat_id, msg.message_id)] = msg
            if msg.inline_id is not None:
                self._state.inline[msg.inline_id] = msg
            query = self._state.inline_queries[query_id][1]["query"]
        if feedback:
            chosen: dict[str, Any] = {"result_id": result_id, "from": user, "query": query}
            if msg.inline_id is not None:
                chosen["inline_message_id"] = msg.inline_id
            self.push_update("chosen_inline_result", chosen)
        return msg

    def press_inline(self, user: dict[str, Any], msg: StoredMessage, data: str) -> str:
        """A press on a button of an inline message: the callback query carries inline_message_id only."""
        assert msg.inline_id is not None, "not an inline message"
        with self._lock:
            qid = f"q{next(self._query_ids)}"
            payload = {"id": qid, "from": user, "chat_instance": f"ci{msg.chat_id}", "data": data,
                       "inline_message_id": msg.inline_id}  # fmt: skip
        self.push_update("callback_query", payload)
        return qid

    def delete_message(self, msg: StoredMessage) -> None:
        """A user (or an admin) deletes a message."""
        with self._lock:
            self._state.messages[(msg.chat_id, msg.message_id)].deleted = True

    # ------------------------------------------------------------------ inspection and waiting

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 10.0, what: str = "a condition") -> Any:
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

    def settle(self) -> None:
        """Let every registered bot finish what it started (boards drawn, messages sent)."""
        for settle in list(self.settlers):
            settle()

    def answers_to(self, query_id: str) -> list[CallbackAnswer]:
        """Every answer the bot gave to `query_id` (a duplicate delivery is answered again, and refused)."""
        with self._lock:
            return list(self._state.answer_log.get(query_id, []))

    def deliveries(self, query_id: str) -> int:
        """How many times the callback query `query_id` was delivered to a webhook."""
        with self._lock:
            return self._state.deliveries[query_id]

    def wait_settled(self, query_id: str, timeout: float = 10.0) -> list[CallbackAnswer]:
        """Wait until every webhook delivery of `query_id` was answered; all the answers, first first."""

        def settled() -> list[CallbackAnswer] | None:
            n = self._state.deliveries[query_id]
            got = list(self._state.answer_log.get(query_id, []))
            return got if n and len(got) >= n else None

        found: list[CallbackAnswer] = self.wait_for(settled, timeout, f"every answer to {query_id}")
        return found

    def answer(self, query_id: str) -> CallbackAnswer | None:
        with self._lock:
            return self._state.answers.get(query_id)

    def wait_answer(self, query_id: str, timeout: float = 10.0) -> CallbackAnswer:
        """Wait until the bot answers callback query `query_id`."""
        return self.wait_for(lambda: self._state.answers.get(query_id), timeout, f"answer to {query_id}")

    def messages(self, chat_id: int, include_deleted: bool = False) -> list[StoredMessage]:
        """Snapshots (copies) of a chat's messages, oldest first."""
        with self._lock:
            return [
                copy.copy(m)
                for (c, _), m in sorted(self._state.messages.items())
                if c == chat_id and (include_deleted or not m.deleted)
            ]

    def bot_messages(self, chat_id: int) -> list[StoredMessage]:
        return [m for m in self.messages(chat_id) if m.from_bot]

    def message(self, chat_id: int, message_id: int) -> StoredMessage:
        """A snapshot (copy) of one message as it is now."""
        with self._lock:
            return copy.copy(self._state.messages[(chat_id, message_id)])

    def message_now(self, chat_id: int, message_id: int) -> StoredMessage:
        """The message itself (no copy): only inside a `wait_for` predicate, which holds the lock."""
        return self._state.messages[(chat_id, message_id)]

    def calls(self, method: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        with self._lock:
            return [c for c in self._state.calls if method is None or c[0] == method]

    def commands(self) -> dict[str, list[dict[str, Any]]]:
        with self._lock:
            return dict(self._state.commands)

    def pending_updates(self) -> int:
        with self._lock:
            return len(self._state.updates)
