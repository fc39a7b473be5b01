"""What the game service needs, whatever the front: storage, the dice, the computer, users' settings and the
bot's clock, and the hooks by which a front learns that a game changed (the Telegram front draws its boards;
the web pages hear of every save through Redis on their own) or how a quick-match search went."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from bot.config import DEFAULT_CLAIM_AFTER, DEFAULT_SEEK_TIMEOUT
from bot.i18n import N_
from bot.model import waiting
from bot.model.flow import ComputerPlayer, DiceSource, Refused, Seeds
from bot.model.table import Person, Seeker, Table
from bot.service.settings import SettingsCache
from bot.storage import Storage
from bot.workers.computer import ComputerProcesses
from engine.fair_dice import SEED_BYTES

GONE = N_("This game is over or no longer exists.")


@dataclass(frozen=True, slots=True)
class SearchNews:
    """How a quick-match search went (bot/service/quickmatch.py), for the front that shows it to its player:
    "found" (the game `table` is on), "busy" (ended: they started another game), "timed_out" (nobody came in
    time), "stopped" (by /cancel or /forget)."""

    kind: Literal["found", "busy", "timed_out", "stopped"]
    seeker: Seeker
    table: Table | None = None


@dataclass
class Services:
    """The game service's dependencies (the Telegram front's Deps extends them with its own)."""

    storage: Storage
    dice: DiceSource
    computer: ComputerPlayer
    settings: SettingsCache  # users' /settings, cached in this process (bot/service/settings.py)
    claim_after: float = DEFAULT_CLAIM_AFTER  # seconds of idleness before the opponent may claim
    seek_timeout: float = DEFAULT_SEEK_TIMEOUT  # seconds a quick-match search waits (NARDY_SEEK_TIMEOUT)
    clock: Callable[[], float] = time.time  # the bot's clock (the engine never reads one)
    analysts: ComputerProcesses | None = None  # where analyses and hints are worked out (None: a thread)
    # (start, end) of each recent time Redis or the bot was away, in the bot's time: a running clock gets it
    # back (waiting.excuse). Kept by the clocks' sweeper (bot/telegram/handlers/clocks.py)
    outages: tuple[tuple[float, float], ...] = ()
    hints: dict[tuple[str, int], Any] = field(
        default_factory=dict
    )  # (game, version) -> its hint, newest last

    def stamped(self, table: Table) -> Table:
        """`table` with the time of this change (the idle-claim clock starts again; a live game's clock
        runs for the side whose decision it waits for now: waiting.tick)."""
        now = self.clock()
        return replace(waiting.tick(table, now), moved_at=now)

    def changed(self, table: Table, previous: Table | None = None) -> None:
        """A change of `table` was saved: the fronts show it (the Telegram front draws its boards)."""

    def retired(self, table: Table) -> None:
        """`table`'s boards were left for new ones (a rematch): the fronts take their buttons off."""

    def searched(self, news: SearchNews) -> None:
        """A quick-match search found its game or ended: the front of its player tells them (the Telegram
        front edits the search's waiting message)."""


async def load(s: Services, game_id: str) -> Table:
    """The stored game `game_id`; Refused if it is gone."""
    table = await s.storage.games.load(game_id)
    if table is None:
        raise Refused(GONE)
    return table


async def game_seeds(s: Services, white: Person, black: Person) -> Seeds:
    """For a game starting now: the players' own dice seeds (/seed; None for a side with none: the
    computer, or a player who chose random) and their parts of the dice's secret, each person's drawn
    before this game (its SHA-256 was theirs to see in /seed) and replaced by a fresh one in one step; the
    computer's part likewise, drawn before the game for its opponent (whose /seed showed its SHA-256 too)."""

    async def one(p: Person, opponent: Person) -> tuple[str | None, str | None]:
        fresh = secrets.token_hex(SEED_BYTES)
        if p.is_computer and opponent.reachable:
            return None, await s.storage.users.take_dice_secret(opponent.user_id, fresh, computer=True)
        if p.is_computer or not p.reachable:
            return None, None
        client = (await s.settings.get(p.user_id)).seed or None
        return client, await s.storage.users.take_dice_secret(p.user_id, fresh)

    (wc, wp), (bc, bp) = await one(white, black), await one(black, white)
    return (wc, bc), (wp, bp)
