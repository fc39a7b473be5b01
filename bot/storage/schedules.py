"""Schedules: the games whose boards are due to be drawn (unshown boards) and the turn reminders due.

Each save of a game (bot/storage/games.py) marks it unshown and sets or clears its reminder, in the save's
own step; this store lists what is due and lets exactly one worker claim each.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import redis.asyncio as aioredis

from bot.model.table import Table
from bot.storage import scripts
from bot.storage.client import redis_errors
from bot.storage.games import SHOW_LEASE
from bot.storage.keys import (
    ACTIVE_TTL,
    CLOCKS_KEY,
    OUTAGES_KEY,
    REMIND_KEY,
    UNSHOWN_KEY,
    game_key,
    reminded_key,
)


class ScheduleStore:
    """Unshown boards to (re)draw and turn reminders to send: what is due, claimed by one worker each."""

    def __init__(self, client: aioredis.Redis, clock: Callable[[], float] = time.time) -> None:
        self._r = client
        self._clock = clock  # unix time: the due times
        self._claim_unshown_script = scripts.register(client, "claim_unshown")
        self._claim_reminder_script = scripts.register(client, "claim_reminder")
        self._claim_clock_script = scripts.register(client, "claim_clock")
        self._note_outage_script = scripts.register(client, "note_outage")

    def now(self) -> float:
        """The clock the due times of unshown boards are read with (unix seconds)."""
        return self._clock()

    # ------------------------------------------------------------------ unshown boards

    async def unshown(self, due_by: float | None = None, limit: int = 100) -> list[str]:
        """Ids of games whose boards may be behind: those due by `due_by` (None: all)."""
        top: float | str = "+inf" if due_by is None else due_by
        async with redis_errors("unshown boards"):
            found = await self._r.zrangebyscore(UNSHOWN_KEY, "-inf", top, start=0, num=limit)
        return [str(g) for g in found]

    async def claim_unshown(self, game_id: str, lease: float = SHOW_LEASE, force: bool = False) -> bool:
        """Take the redrawing of a marked game for `lease` seconds (if it is due, or `force`)."""
        async with redis_errors(f"claim unshown {game_id}"):
            claimed = await self._claim_unshown_script(
                keys=[UNSHOWN_KEY], args=[game_id, round(self._clock(), 3), lease, "1" if force else "0"]
            )
        return bool(claimed)

    async def postpone_unshown(self, game_id: str, seconds: float) -> None:
        """A marked game's boards could not be shown: due again in `seconds` (if it is still marked)."""
        async with redis_errors(f"postpone unshown {game_id}"):
            await self._r.zadd(UNSHOWN_KEY, {game_id: round(self._clock() + seconds, 3)}, xx=True)

    async def forget_unshown(self, game_id: str) -> None:
        """Stop trying to show a game's boards (it expired, or they cannot be shown at all)."""
        async with redis_errors(f"forget unshown {game_id}"):
            await self._r.zrem(UNSHOWN_KEY, game_id)

    # ------------------------------------------------------------------ turn reminders

    async def due_reminders(self, limit: int = 100) -> list[str]:
        """Ids of games whose turn reminder is due now."""
        async with redis_errors("due reminders"):
            found = await self._r.zrangebyscore(REMIND_KEY, "-inf", self._clock(), start=0, num=limit)
        return [str(g) for g in found]

    async def claim_reminder(self, game_id: str, table: Table | None, per_game: int) -> int:
        """Take a due reminder of the game (`table`: as just loaded; None: it is gone), atomically: 0 if not
        taken (not due, another worker took it, or the game changed), -1 if it left without a reminder (the
        game is gone, waits for nobody, or its player on turn had `per_game` in this game of the series), else
        which reminder of that player in this game it is."""
        side = None if table is None else table.waiting_for
        version, number = ("-1", "0") if table is None else (str(table.version), str(table.number))
        async with redis_errors(f"claim reminder {game_id}"):
            claimed = await self._claim_reminder_script(
                keys=[REMIND_KEY, game_key(game_id), reminded_key(game_id)],
                args=[
                    game_id,
                    round(self._clock(), 3),
                    version,
                    number,
                    0 if side is None else per_game,
                    ACTIVE_TTL,
                    "wb"[side] if side is not None else "-",
                ],
            )
        return int(claimed)

    async def drop_reminder(self, game_id: str) -> None:
        """Give up a game's turn reminder (its record cannot be read)."""
        async with redis_errors(f"drop reminder {game_id}"):
            await self._r.zrem(REMIND_KEY, game_id)

    # ------------------------------------------------------------------ live games' clocks

    async def due_clocks(self, now: float, limit: int = 100) -> list[str]:
        """The clock entries due by `now` (the bot's clock): "<id>" (a flag falls), "<id>/warn" (a warning)."""
        async with redis_errors("due clocks"):
            found = await self._r.zrangebyscore(CLOCKS_KEY, "-inf", now, start=0, num=limit)
        return [str(member) for member in found]

    async def outages(
        self, now: float, keep: float, away_since: float | None = None
    ) -> tuple[tuple[float, float], ...]:
        """The outages of the last `keep` seconds, (start, end), this worker's from `away_since` to `now` noted
        first (lua/note_outage.lua)."""
        start = "" if away_since is None else repr(away_since)
        async with redis_errors("outages"):
            found = await self._note_outage_script(keys=[OUTAGES_KEY], args=[repr(now), keep, start])
        pairs = (str(member).split(":") for member in found)
        return tuple((float(a), float(b)) for a, b in pairs)

    async def claim_clock(self, entry: str, now: float, lease: float) -> bool:
        """Take a due clock entry (one worker of many): with a `lease` it is due again then, should this
        worker fail before the game is saved; with 0 it leaves (a warning is given once)."""
        async with redis_errors(f"claim clock {entry}"):
            claimed = await self._claim_clock_script(keys=[CLOCKS_KEY], args=[entry, repr(now), lease])
        return bool(claimed)
