"""Messages to chats sent in the background, in order per chat, so that no handler waits on a chat's limit.

Telegram allows a bot about 20 messages a minute in a group (and 30 a second overall). A handler that
awaited its send would hold one of the Application's update slots while the rate limiter made it wait for
that group: 300 commands in one group then kept every other chat waiting. Handlers post their sends here
and return at once; each chat's sends run one after another in a task of that chat, where the rate
limiter's waits harm no one else. A chat's queue is bounded: past `max_queued` sends, more are dropped
with a warning (inbound limits keep a chat far below that; a game's board is never queued here: it is
drawn by bot/telegram/boards.py, which keeps only the latest state).

Inside a button press, sends (and board shows) are queued at once but start only once the press is answered
(`answering`), so the player's spinner stops before anything waits for a limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Iterator

log = logging.getLogger(__name__)

MAX_QUEUED = 20  # sends waiting per chat

Send = Callable[[], Awaitable[object]]

Gate = asyncio.Future[None]

_answered: contextvars.ContextVar[Gate | None] = contextvars.ContextVar("nardy_answered", default=None)


def current_gate() -> Gate | None:
    """Inside a button press being handled: a future done once the press is answered; else None."""
    return _answered.get()


@contextlib.contextmanager
def answering() -> Iterator[Gate]:
    """While a press is handled, sends and board shows are queued at once (so the bot knows about them)
    but start only once the returned future is done: the caller marks it done after answering."""
    gate: Gate = asyncio.get_running_loop().create_future()
    token = _answered.set(gate)
    try:
        yield gate
    finally:
        _answered.reset(token)
        if not gate.done():
            gate.set_result(None)


async def passed(gate: Gate | None) -> None:
    """Wait until `gate` (a press's answer) is done."""
    if gate is not None and not gate.done():
        await asyncio.shield(gate)


class Outbox:
    """Per-chat queues of sends, each drained by a task of its own."""

    def __init__(self, max_queued: int = MAX_QUEUED) -> None:
        self.max_queued = max_queued
        self._queues: dict[int | str, deque[tuple[str, Send, Gate | None]]] = {}
        self._tasks: dict[int | str, asyncio.Task[None]] = {}
        self.dropped = 0

    @property
    def queued(self) -> int:
        """Sends waiting in every chat's queue (nardy_outbox_queued)."""
        return sum(len(queue) for queue in self._queues.values())

    def post(self, chat_id: int | str, send: Send, what: str = "message") -> bool:
        """Queue `send` for `chat_id` (sent once the press is answered, inside a press); False if the
        chat's queue is full and it was dropped."""
        queue = self._queues.setdefault(chat_id, deque())
        if len(queue) >= self.max_queued:
            self.dropped += 1
            log.warning("chat %s has %d sends waiting; dropped: %s", chat_id, len(queue), what)
            return False
        queue.append((what, send, current_gate()))
        if chat_id not in self._tasks:
            self._tasks[chat_id] = asyncio.get_running_loop().create_task(
                self._drain(chat_id, queue), name=f"outbox-{chat_id}"
            )
        return True

    async def _drain(self, chat_id: int | str, queue: deque[tuple[str, Send, Gate | None]]) -> None:
        try:
            while queue:
                what, send, gate = queue[0]
                try:
                    await passed(gate)
                    await send()
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("chat %s: could not send %s", chat_id, what)
                queue.popleft()
        finally:
            self._tasks.pop(chat_id, None)
            if not queue:
                self._queues.pop(chat_id, None)

    @property
    def pending(self) -> int:
        return sum(len(q) for q in self._queues.values())

    async def drain(self) -> None:
        """Wait until every queued send was sent (or failed)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    async def close(self, timeout: float = 5.0) -> None:
        """Send what is queued (for up to `timeout` seconds), then cancel the rest."""
        try:
            await asyncio.wait_for(self.drain(), timeout)
        except TimeoutError:
            log.warning("outbox: %d sends were not sent before the stop", self.pending)
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)
