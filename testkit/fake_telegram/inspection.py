"""What a test reads from the fake Bot API, and waits for: the messages of a chat (copies), the calls the bot
made, its commands and descriptions, the answers to callback queries and their webhook deliveries, the
updates not yet fetched, the flood refusals; `settle` lets the registered bots finish what they started."""

from __future__ import annotations

import copy
from typing import Any

from testkit.fake_telegram.core import FakeCore
from testkit.fake_telegram.state import CallbackAnswer, StoredMessage


class Inspection(FakeCore):
    """Reading the fake's state, and waiting on it."""

    def settle(self) -> None:
        """Let every registered bot finish what it started (boards drawn, messages sent)."""
        for settle in list(self.settlers):
            settle()

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

    def menu_button(self, chat_id: int | None = None) -> dict[str, Any] | None:
        """The menu button set for `chat_id` (None: the default one), as the bot sent it; None if never set."""
        with self._lock:
            return self._state.menu_buttons.get(chat_id)

    def descriptions(self) -> dict[tuple[str, str], str]:
        with self._lock:
            return dict(self._state.descriptions)

    def pending_updates(self) -> int:
        with self._lock:
            return len(self._state.updates)

    def flood_refusals(self) -> int:
        with self._lock:
            return self._state.flood_refusals

    def answer(self, query_id: str) -> CallbackAnswer | None:
        with self._lock:
            return self._state.answers.get(query_id)

    def wait_answer(self, query_id: str, timeout: float = 30.0) -> CallbackAnswer:
        """Wait until the bot answers callback query `query_id`."""
        return self.wait_for(lambda: self._state.answers.get(query_id), timeout, f"answer to {query_id}")

    def answers_to(self, query_id: str) -> list[CallbackAnswer]:
        """Every answer the bot gave to `query_id` (a duplicate delivery is answered again, and refused)."""
        with self._lock:
            return list(self._state.answer_log.get(query_id, []))

    def deliveries(self, query_id: str) -> int:
        """How many times the callback query `query_id` was delivered to a webhook."""
        with self._lock:
            return self._state.deliveries[query_id]

    def wait_settled(self, query_id: str, timeout: float = 30.0) -> list[CallbackAnswer]:
        """Wait until every webhook delivery of `query_id` was answered; all the answers, first first."""

        def settled() -> list[CallbackAnswer] | None:
            n = self._state.deliveries[query_id]
            got = list(self._state.answer_log.get(query_id, []))
            return got if n and len(got) >= n else None

        found: list[CallbackAnswer] = self.wait_for(settled, timeout, f"every answer to {query_id}")
        return found
