"""A clock for the bot that the test moves on (the bot's `clock=`: flags, sweepers, tournaments' times)."""

from __future__ import annotations

import threading


class FakeClock:
    """The bot's clock, moved on by the test; read from the bot's thread, moved from the test's."""

    def __init__(self, now: float) -> None:
        self.now = now
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds
