"""The inbound limits' rates: how many presses, commands and inline queries a user or a group chat may send
(values shared by the fronts: bot/telegram/handlers/gate.py and the board page's sockets enforce them with
token buckets in Redis, refilled by the limits' own clock)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Rate:
    """At most `burst` at once, then `per_second` on average."""

    burst: float
    per_second: float


@dataclass(frozen=True)
class Limits:
    """The inbound limits. A player presses a few buttons a turn and rarely more than two a second; a group
    gets about 20 messages a minute from the bot anyway, so more commands than that only queue up."""

    user_presses: Rate = Rate(15, 3.0)
    chat_presses: Rate = Rate(40, 8.0)
    user_commands: Rate = Rate(6, 0.25)
    chat_commands: Rate = Rate(8, 1 / 3)
    user_inline: Rate = Rate(20, 2.0)
    clock: Callable[[], float] = time.time  # by which the buckets refill (tests freeze or step it)
    look_within: float = 0.5  # seconds a look at the buckets may take; slower (Redis busy): the update passes
