"""python-telegram-bot's network layer on aiohttp.

PTB's default (httpx/httpcore) re-scans every pooled connection for every queued request; with a
few hundred presses in flight that bookkeeping took about a third of the bot's CPU (py-spy and
cProfile of bench/load.py). aiohttp's connector hands out connections in constant time.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from typing import IO

import aiohttp
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from bot.observe.metrics import current


class AiohttpRequest(BaseRequest):
    """A BaseRequest that sends Bot API calls through one aiohttp session."""

    __slots__ = ("_connect_timeout", "_media_write_timeout", "_pool_size", "_read_timeout", "_session")

    def __init__(
        self,
        connection_pool_size: int = 64,
        read_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        media_write_timeout: float | None = 20.0,
    ) -> None:
        self._pool_size = connection_pool_size
        self._read_timeout = read_timeout
        self._connect_timeout = connect_timeout
        self._media_write_timeout = media_write_timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self._pool_size, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(connector=connector)

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("AiohttpRequest is not initialized")
        files = request_data.multipart_data if request_data else None
        headers = {"User-Agent": self.USER_AGENT}
        data: bytes | dict[str, str] | None = None
        if request_data is not None:
            if files:
                boundary = secrets.token_hex(16)
                data = multipart_body(boundary, request_data.json_parameters, files)
                headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
            else:
                data = request_data.json_parameters
        read = self._read_timeout if isinstance(read_timeout, DefaultValue) else read_timeout
        connect = self._connect_timeout if isinstance(connect_timeout, DefaultValue) else connect_timeout
        timeout = aiohttp.ClientTimeout(
            sock_connect=connect, sock_read=read if not files else self._media_write_timeout
        )
        metrics = current()
        try:
            async with self._session.request(
                method, url, data=data, timeout=timeout, headers=headers
            ) as response:
                status, body = response.status, await response.read()
        except TimeoutError as err:
            if metrics is not None:
                metrics.telegram_call(bot_method(url), "timeout")
            raise TimedOut from err
        except aiohttp.ClientError as err:
            if metrics is not None:
                metrics.telegram_call(bot_method(url), "network")
            raise NetworkError(f"aiohttp {type(err).__name__}: {err}") from err
        if metrics is not None:
            result, retry_after = call_result(status, body)
            metrics.telegram_call(bot_method(url), result)
            if retry_after:
                metrics.retry_after.inc(retry_after)
        return status, body


def bot_method(url: str) -> str:
    """The Bot API method of a call's URL (".../bot<token>/editMessageMedia" -> "editMessageMedia")."""
    return url.rsplit("/", 1)[-1]


# 400s told apart (nardy_telegram_calls_total's result), by the start of Telegram's description
BAD_REQUESTS = (
    ("message is not modified", "400_not_modified"),
    ("message to edit not found", "400_not_found"),
    ("message to delete not found", "400_not_found"),
    ("query is too old", "400_query_too_old"),
    ("chat not found", "400_chat_not_found"),
)


def call_result(status: int, body: bytes) -> tuple[str, float]:
    """(nardy_telegram_calls_total's result, the seconds a 429 asked to wait) of an answer."""
    if status == 200:
        return "ok", 0.0
    if status >= 500:
        return "5xx", 0.0
    if status not in (400, 429):
        return str(status) if status == 403 else "other", 0.0
    try:
        answer = json.loads(body)
        description = str(answer.get("description", "")).lower()
        retry = float((answer.get("parameters") or {}).get("retry_after", 0))
    except (ValueError, AttributeError, TypeError):
        description, retry = "", 0.0
    if status == 429:
        return "429", retry
    for words, result in BAD_REQUESTS:
        if words in description:
            return result, 0.0
    return "400_other", 0.0


def _quoted(value: str) -> str:
    """A name or file name inside a Content-Disposition header's quotes (as browsers and httpx escape it)."""
    return value.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def multipart_body(
    boundary: str, fields: Mapping[str, str], files: Mapping[str, tuple[str, bytes | IO[bytes], str]]
) -> bytes:
    """A multipart/form-data body (RFC 7578) of text `fields` and `files`, built in one join.

    aiohttp's FormData builds a writer and a payload object per part and writes each part separately;
    for a board photo, its caption and its keyboard that took as long as the rest of the request."""
    dash = b"--" + boundary.encode("ascii")
    parts: list[bytes] = []
    for name, value in fields.items():
        parts += (dash, b'\r\nContent-Disposition: form-data; name="', _quoted(name).encode(), b'"\r\n\r\n')
        parts += (value.encode(), b"\r\n")
    for name, (filename, content, mimetype) in files.items():
        payload = content if isinstance(content, bytes) else content.read()
        disposition = f'form-data; name="{_quoted(name)}"; filename="{_quoted(filename)}"'
        head = f"\r\nContent-Disposition: {disposition}\r\nContent-Type: {mimetype}\r\n\r\n"
        parts += (dash, head.encode(), payload, b"\r\n")
    parts += (dash, b"--\r\n")
    return b"".join(parts)
