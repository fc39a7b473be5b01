"""The fake Bot API's HTTP front: an aiohttp server on a free port of 127.0.0.1 in a thread of its own,
requests parsed (JSON, form and multipart bodies) and dispatched to the `_api_<method>` of the fake, and what
a test makes go wrong there: injected faults (429, 403, 400 ...), held and stalled calls, a hang (Telegram
behind a network partition) and Telegram's flood limits."""

from __future__ import annotations

import asyncio
import json
import math
import socket
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aiohttp import web

from testkit.fake_telegram.buttons import web_app_misplaced
from testkit.fake_telegram.core import FakeCore
from testkit.fake_telegram.multipart import decode_field, parse_multipart
from testkit.fake_telegram.state import UNLIMITED, ApiError, Fault, Hold, Stall, TelegramLimits


def _new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop where the bot has it (less of the machine for the fake, more for the bot it measures)."""
    try:
        import uvloop
    except ImportError:  # not on Windows
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


class HttpFront(FakeCore):
    """Serving the Bot API, and the failures a test injects into it."""

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
                fields, files = parse_multipart(content_type, body)
            except ApiError as err:
                return err.code, {"ok": False, "error_code": err.code, "description": err.description}
            params = {k: decode_field(v) for k, v in fields.items()}
        elif content_type.startswith("application/json"):
            params = json.loads(body or b"{}")
        else:
            params = {k: decode_field(v) for k, v in urllib.parse.parse_qsl(body.decode())}
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
        if limits is None or chat_id is None or method in UNLIMITED:
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
        chat = self._state.chats.get(int(chat_id)) if chat_id is not None else None
        if chat is not None and chat.blocked and method != "answerCallbackQuery":
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        if web_app_misplaced(method, params, chat is not None and chat.type == "private"):
            raise ApiError(400, "Bad Request: BUTTON_TYPE_INVALID")  # Telegram's rule (buttons.py)

    def inject(self, fault: Fault) -> None:
        with self._lock:
            self._state.faults.append(fault)

    def faults_left(self) -> int:
        with self._lock:
            return sum(f.times for f in self._state.faults)

    def enforce_limits(self, limits: TelegramLimits | None = None) -> None:
        """Refuse with 429 what Telegram refuses: more than 20 messages a minute in a group, 30 a second
        overall (leaky buckets, as Telegram's documentation describes the limits). Off by default: the
        tests of game rules play groups far faster than 20 moves a minute."""
        with self._lock:
            self._limits = limits or TelegramLimits()

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

    def wait_held(self, hold: Hold, count: int = 1, timeout: float = 30.0) -> None:
        self.wait_for(lambda: hold.waiting >= count, timeout, f"{count} held {hold.method} call(s)")

    def hang(self) -> None:
        """From now on every request (polls included) waits unanswered until stop(): connections open and
        nothing answers, as when Telegram is cut off by a network partition."""
        self.hanging = True

    def stall(self, stall: Stall) -> None:
        """The next `stall.times` calls of a method wait `stall.seconds`, then fail unapplied."""
        with self._lock:
            self._state.stalls.append(stall)
