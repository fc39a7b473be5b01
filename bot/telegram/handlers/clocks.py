"""Live games' clocks, applied whether or not anyone presses: a flag that falls ends the game, once; a player
with 20 s left is warned once, privately.

Every save of a live game sets or clears its entries in the `nardy:clocks` sorted set in the same atomic step
(bot/storage/games.py): "<id>" scored by when the running clock's flag falls, "<id>/warn" by when its player
is warned (bot/model/clock.py WARN_AT before the flag). Every worker looks for due entries a few times a second
(`Clocks.start`) and takes each with one Lua script (bot/storage/schedules.py `claim_clock`), so exactly one
worker acts on it, with several workers and across restarts:

- a flag: taken with a lease (due again a few seconds later should this worker die); the game, loaded, is
  lost on time if its clock says the flag fell (waiting.time_out), saved with a compare-and-set on its version
  (a press that landed first wins, and its save moved the entry); that save removes the entry;
- a warning: taken once; its player gets one line in their private chat (never in a group: no group's
  budget of 20 messages a minute is spent), with the time left. A player the bot cannot reach is skipped.

A press after the flag fell is lost on time the same way before it counts (bot/service/games.py apply_flag).

Nobody loses on time because nobody could press: a worker whose sweeps could not reach Redis (Redis away, a
failover) notes, when they can again, the time they could not, from its last sweep that did (`outages`, kept a
day in Redis); every sweep reads every worker's outages into `Deps.outages`, and a running clock gets the time
it ran in one back (waiting.excuse) before its flag is judged, here and at the next press, whose save keeps
it."""

from __future__ import annotations

import logging

from bot.i18n import texts
from bot.model import waiting
from bot.model.clock import clock_text
from bot.model.table import Table
from bot.service import games
from bot.storage import StorageError
from bot.storage.keys import WARN_SUFFIX
from bot.telegram.handlers.common import N_, Deps
from bot.telegram.sweeping import Sweeping
from bot.views.captions import variant_name

log = logging.getLogger(__name__)

LOOK_EVERY = 0.5  # seconds between two looks for due clock entries
FLAG_LEASE = 5.0  # seconds before a flag taken by a worker that failed is due again
BATCH = 100
OUTAGE_KEEP = 86400.0  # seconds an outage is remembered (a clock runs for one decision, never that long)

TIME_SHORT = N_("⏱ {left} left to move in {variant} against {name}.")


class Clocks(Sweeping):
    """Applies due flags and warnings (one of these runs in every worker)."""

    name = "clocks"
    batch = BATCH

    def __init__(self, d: Deps, every: float = LOOK_EVERY) -> None:
        super().__init__(every)
        self.d = d
        self.flags = 0  # flags this worker applied (tests)
        self.warnings = 0  # warnings this worker sent (tests)
        self._reached: float | None = None  # when a sweep last reached Redis (the bot's clock)
        self._away_since: float | None = None  # the last sweep that reached Redis before it went away

    async def sweep(self) -> int:
        """Act on the entries due now; returns how many this worker took."""
        d = self.d
        now = d.clock()
        try:
            d.outages = await d.storage.schedules.outages(now, OUTAGE_KEEP, self._away_since)
        except StorageError:
            if self._away_since is None:
                self._away_since = self._reached
            raise
        self._reached, self._away_since = now, None
        taken = 0
        for entry in await d.storage.schedules.due_clocks(now, BATCH):
            warning = entry.endswith(WARN_SUFFIX)
            if not await d.storage.schedules.claim_clock(entry, now, 0 if warning else FLAG_LEASE):
                continue
            taken += 1
            game_id = entry.removesuffix(WARN_SUFFIX)
            table = await d.storage.games.load(game_id)
            if table is None or table.over:
                continue
            table = waiting.excuse(
                table, d.outages, now
            )  # a flag not due after all: taken again after its lease
            if warning:
                self._warn(table, now)
            else:
                await self._flag(table, now)
        return taken

    async def _flag(self, table: Table, now: float) -> None:
        if await games.end_on_time(self.d, table, now):  # else: a press came first, or the clock moved on
            self.flags += 1
            log.info("game %s: %s's time ran out", table.id, table.players[table.game.deciding].name)

    def _warn(self, table: Table, now: float) -> None:
        clock = table.clock
        if clock is None or clock.running is None:
            return
        player, opponent = table.players[clock.running], table.players[clock.running.other]
        if not player.reachable:
            return
        due = clock.deadline()
        left = 0.0 if due is None else max(0.0, due - now)
        t = texts(player.lang)
        self.d.say(
            player.user_id,
            t.gettext(
                TIME_SHORT,
                left=clock_text(left),
                variant=variant_name(t, table.game.game),
                name=opponent.name,
            ),
        )
        self.warnings += 1
