"""Telegram's outgoing limits as the bot keeps them: about 30 messages a second overall, 20 a minute per group.

Like python-telegram-bot's AIORateLimiter (leaky buckets from `aiolimiter`), with one difference that matters
to a public bot: a flood-control answer (429 "retry after N") for one chat pauses that chat only. PTB's
limiter pauses every request of the bot for N seconds, so one busy group would stop every other chat.
A 429 for a request without a chat (or for the whole bot) still pauses everything, as Telegram asks.
Callback query answers carry no chat: they wait for no chat's limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from aiolimiter import AsyncLimiter
from telegram._utils.types import JSONDict
from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

log = logging.getLogger(__name__)

OVERALL_PER_SECOND = 30.0
GROUP_PER_MINUTE = 20.0
MAX_RETRIES = 3
_IDLE_LIMITERS = 512  # past this many group limiters, the idle ones are dropped


class ChatRateLimiter(BaseRateLimiter[int]):
    """Leaky buckets: `overall_per_second` for every request to a chat, `group_per_minute` per group
    (0 switches a limit off, as the tests do). A 429 is retried up to `max_retries` times, after
    pausing only the chat it was for."""

    def __init__(
        self,
        overall_per_second: float = OVERALL_PER_SECOND,
        group_per_minute: float = GROUP_PER_MINUTE,
        max_retries: int = MAX_RETRIES,
        unlimited: tuple[int, ...] = (),
    ) -> None:
        self._overall = AsyncLimiter(overall_per_second, 1) if overall_per_second else None
        self._group_per_minute = group_per_minute
        self._groups: dict[int | str, AsyncLimiter] = {}
        self._max_retries = max_retries
        self._paused_until: dict[int | str, float] = {}  # chat -> monotonic time its 429 pause ends
        self._all_paused_until = 0.0
        self._unlimited = set(unlimited)  # chats without the group limit (the media chat: no one reads it)
        self._pruned_at = 0.0
        self._prune_above = _IDLE_LIMITERS

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    def _group(self, chat: int | str) -> AsyncLimiter:
        now = time.monotonic()
        if len(self._groups) > self._prune_above and now >= self._pruned_at + 1.0:  # at most once a second
            self._pruned_at = now
            for key, limiter in list(self._groups.items()):
                if key != chat and limiter.has_capacity(limiter.max_rate):
                    del self._groups[key]
            self._prune_above = max(_IDLE_LIMITERS, 2 * len(self._groups))  # busy limiters: scan less often
            for paused, until in list(self._paused_until.items()):
                if until <= now:
                    del self._paused_until[paused]
        found = self._groups.get(chat)
        if found is None:
            found = self._groups[chat] = AsyncLimiter(self._group_per_minute, 60)
        return found

    async def _wait_pause(self, chat: int | str | None) -> None:
        while True:
            until = self._all_paused_until
            if chat is not None:
                until = max(until, self._paused_until.get(chat, 0.0))
            left = until - time.monotonic()
            if left <= 0:
                if chat is not None and chat in self._paused_until:
                    del self._paused_until[chat]
                return
            await asyncio.sleep(left)

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | JSONDict | list[JSONDict]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | JSONDict | list[JSONDict]:
        chat: int | str | None = data.get("chat_id")
        with contextlib.suppress(TypeError, ValueError):
            chat = int(chat)  # type: ignore[arg-type]
        group = chat is not None and (isinstance(chat, str) or chat < 0) and chat not in self._unlimited
        retries = rate_limit_args if rate_limit_args is not None else self._max_retries
        for attempt in range(retries + 1):
            await self._wait_pause(chat)
            try:
                if group and self._group_per_minute:
                    assert chat is not None
                    async with self._group(chat):
                        return await self._send(chat, callback, args, kwargs)
                return await self._send(chat, callback, args, kwargs)
            except RetryAfter as err:
                seconds = err._retry_after.total_seconds() + 0.1
                if chat is None:
                    self._all_paused_until = max(self._all_paused_until, time.monotonic() + seconds)
                else:
                    self._paused_until[chat] = max(
                        self._paused_until.get(chat, 0.0), time.monotonic() + seconds
                    )
                if attempt == retries:
                    log.warning("%s to chat %s: flood control after %d retries", endpoint, chat, retries)
                    raise
                log.info("%s to chat %s: flood control, retrying in %.1f s", endpoint, chat, seconds)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _send(
        self,
        chat: int | str | None,
        callback: Callable[..., Coroutine[Any, Any, bool | JSONDict | list[JSONDict]]],
        args: Any,
        kwargs: dict[str, Any],
    ) -> bool | JSONDict | list[JSONDict]:
        if chat is not None and self._overall is not None:
            async with self._overall:
                return await callback(*args, **kwargs)
        return await callback(*args, **kwargs)
