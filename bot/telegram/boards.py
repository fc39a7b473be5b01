"""Boards that heal themselves: every board message comes to show its game's latest state, whatever fails.

- A change of a game is saved, then shown by a background job of that game (`Boards.show`): a handler never
  waits for a picture or for a chat's rate limit, and a burst of changes costs one edit of each board (the
  job always draws the newest table it was given).
- The save itself marks the game in Redis as possibly unshown (the `nardy:unshown` sorted set, scored by
  when it is due: storage's SHOW_LEASE after the save). Once every board shows the saved version, the mark
  is cleared; a board edit that failed (a 5xx, flood control, a timeout: "unknown", so drawn again) is tried
  again with backoff, and the mark stays until it worked.
- Any worker's healer (`Boards.run`) redraws marked games that are overdue (the worker that saved them
  died, say), and a starting bot redraws every marked game: a crash between a save and its edit heals
  without anyone pressing anything.
- A press with an old version on a game's current board message, while that board is not known to show
  the latest version, redraws it at once (bot/telegram/handlers/board.py): the same job, so ten such presses cost at
  most one edit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace

from telegram import Bot

from bot.model.table import Table, Target
from bot.observe.metrics import current
from bot.service.settings import SettingsCache
from bot.storage import Storage, StorageError
from bot.storage.games import SHOW_LEASE
from bot.telegram import display
from bot.telegram.display import Shown
from bot.telegram.keyboards import WebAppLinks
from bot.telegram.outbox import Gate, current_gate, passed

log = logging.getLogger(__name__)

RETRY_FIRST = 1.0  # seconds before a failed board is tried again; doubled each time...
RETRY_MAX = 120.0  # ...up to this
GIVE_UP_AFTER = 12  # failed tries in a row (about 15 minutes) before a worker leaves a board to the healers
GIVEN_UP_RETRY = 3600.0  # seconds before a healer tries such a board again (a press on it tries at once)
MIN_GAP = 1.0  # seconds between two tries of a failing board, however often it is asked for
HEAL_EVERY = 5.0  # seconds between two looks for overdue boards
HEAL_BATCH = 50
INLINE = 0  # the "message id" of an inline board in a job's notes (its message never changes)
MAX_DRAWING = 64  # games drawn at once by one worker (the others wait, their pictures not yet rendered)
MAX_HEALING = 200  # games a worker's healer keeps in hand at once (after an outage: the rest come later)
DRAW_LEASE = (
    20.0  # seconds a worker holds a game's drawing lease without renewing it (a dead worker's lapses)
)
LEASE_POLL = 2.0  # seconds between two tries for a lease another worker holds


class _Job:
    """The background showing of one game's boards."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.pending: Table | None = None  # the newest table offered and not yet drawn
        self.gate: Gate | None = None  # the answer of the press that offered it: drawn after that
        self.reload = False  # draw the stored table (it may be newer, or have other board messages)
        self.showing: Table | None = None  # the table being drawn now
        self.known: dict[str, tuple[int, Table]] = {}  # board key -> (its message id, the table it shows)
        self.holding = False  # whether this job holds the game's drawing lease
        self.sleeping = False  # waiting to try again (a failed board, another worker's lease)
        self.force = False  # draw every board, even those known to show the latest version
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def offer(self, table: Table | None, previous: Table | None, gate: Gate | None) -> None:
        """Draw `table` next (None: the stored one), unless it is being drawn or a newer one waits; not
        before `gate` (the answer of the press that changed it)."""
        if table is None:
            self.reload = True
            self.gate = gate
        elif not (self.showing is not None and table.version <= self.showing.version) and (
            self.pending is None or table.version > self.pending.version
        ):
            self.pending = table
            self.gate = gate
        if previous is not None:  # what the boards showed before this change, if they were up to date
            for target in previous.targets:
                message_id = INLINE if target.inline_id is not None else previous.messages.get(target.key)
                if message_id is not None and previous.shown.get(target.key) == previous.version:
                    self.known.setdefault(target.key, (message_id, previous))
        self.wake.set()

    def shows(self, table: Table, target: Target) -> Table | None:
        """The table `target`'s current message is known (to this job) to show, if any."""
        found = self.known.get(target.key)
        message = INLINE if target.inline_id is not None else table.messages.get(target.key)
        if found is None or found[0] != message:
            return None
        return found[1]

    def behind(self, table: Table, target: Target) -> bool:
        known = self.shows(table, target)
        return max(table.shown.get(target.key, -1), -1 if known is None else known.version) < table.version


class Boards:
    """Shows games' boards in the background and heals the ones left behind (see the module docstring)."""

    def __init__(
        self,
        bot: Bot,
        storage: Storage,
        heal_every: float = HEAL_EVERY,
        retry_first: float = RETRY_FIRST,
        media_chat: int | None = None,
    ) -> None:
        self.bot = bot
        self.storage = storage
        self.media_chat = media_chat  # where inline boards' pictures are uploaded (NARDY_MEDIA_CHAT_ID)
        self.heal_every = heal_every
        self.retry_first = retry_first
        self._jobs: dict[str, _Job] = {}
        self._healer: asyncio.Task[None] | None = None
        self._stopping = False
        self._drawing = asyncio.Semaphore(MAX_DRAWING)  # pictures in memory at once, waiting to be sent
        self.token = secrets.token_hex(8)  # this worker's name on drawing leases
        self.draws = 0  # boards drawn (edits and sends tried), for tests and benchmarks
        # called with a table and each of its boards whose chat took no message (403, or gone): the app sets it
        # to bot/telegram/handlers/claims.py's player_unreachable (the opponent is told and may claim)
        self.unreachable: Callable[[Table, Target], Awaitable[None]] | None = None
        # players' /settings (bot/service/settings.py): a private board is drawn in its player's language and colours
        # as they are when it is drawn (the app sets it; None: as the table has them, light)
        self.settings: SettingsCache | None = None
        # where a board's 📲 button opens its game's page (bot/web/); None: no such button (NARDY_WEBAPP_URL unset)
        self.links: WebAppLinks | None = None

    # ------------------------------------------------------------------ asking for a board

    def show(self, table: Table, previous: Table | None = None) -> None:
        """Bring every board of `table` up to date, in the background (inside a press: after its answer).
        `previous`: the table before this change (if the boards showed it, a caption-only edit may do)."""
        self._kick(table.id, table, previous, current_gate())

    def redraw(self, game_id: str, force: bool = False) -> None:
        """Draw a game's boards from its stored state (a marked game found by the healer); `force`: even
        the boards known to show it (a press says a board differs from what Redis believes)."""
        self._kick(game_id, None, None, current_gate())
        if force and game_id in self._jobs:
            self._jobs[game_id].force = True

    def restyle(self, game_id: str, key: str) -> None:
        """Board `key` of a game should look different (its player chose another language or colours): draw
        it again, from scratch (the caller has unmarked it in Redis: storage.games.unmark_shown)."""
        job = self._jobs.get(game_id)
        if job is not None:
            job.known.pop(key, None)
        self.redraw(game_id)

    def busy(self, game_id: str) -> bool:
        """Whether this worker is drawing (or about to draw, or retrying) the game's boards now."""
        return game_id in self._jobs

    def _kick(self, game_id: str, table: Table | None, previous: Table | None, gate: Gate | None) -> None:
        if self._stopping:
            return
        job = self._jobs.get(game_id)
        if job is None:
            job = self._jobs[game_id] = _Job(game_id)
            job.offer(table, previous, gate)
            job.task = asyncio.get_running_loop().create_task(self._run_job(job), name=f"boards-{game_id}")
        else:
            job.offer(table, previous, gate)

    async def _run_job(self, job: _Job) -> None:
        failures = 0
        try:
            while True:
                job.wake.clear()
                boards = await self.storage.games.hold_draw(job.game_id, self.token, DRAW_LEASE)
                if isinstance(boards, float):
                    # Another worker draws this game now: its last check sees our change too. If it died
                    # (a restart), its lease lapses: try again then (or sooner), and draw what is behind.
                    await self._sleep(job, min(LEASE_POLL, max(boards, 0.05)))
                    job.reload = True  # the holder may have drawn newer changes meanwhile
                    continue
                job.holding = True
                while job.gate is not None and not job.gate.done():  # the press that changed it is answered
                    await passed(job.gate)
                job.gate = None
                table, job.pending = job.pending, None
                if table is None or job.reload:
                    job.reload = False
                    stored = await self.storage.games.load(job.game_id)
                    if stored is None:  # expired or deleted: nothing to show
                        await self.storage.schedules.forget_unshown(job.game_id)
                        return
                    if table is None or stored.version >= table.version:
                        table = stored
                # what the boards show now, as the lease's previous holder left it
                table = replace(table, messages=boards[0], shown=boards[1])
                job.showing = table
                force, job.force = job.force, False
                async with self._drawing, self._renewing(job):
                    try:
                        complete, stored_version = await self._draw(job, table, force)
                    finally:
                        job.showing = None
                job.holding = stored_version > table.version  # the lease is let go when nothing is newer
                if stored_version < 0:
                    return
                if job.pending is not None or job.reload:
                    continue  # a newer change came meanwhile: draw that
                if stored_version > table.version:
                    job.reload = True  # another worker saved a newer one while we drew
                    continue
                if complete:
                    return
                failures += 1
                if failures >= GIVE_UP_AFTER:
                    log.error(
                        "game %s: boards still not shown after %d tries; the healers try again in %.0f s",
                        job.game_id,
                        failures,
                        GIVEN_UP_RETRY,
                    )
                    await self.storage.schedules.postpone_unshown(job.game_id, GIVEN_UP_RETRY)
                    return
                delay = min(RETRY_MAX, self.retry_first * 2 ** (failures - 1))
                await self.storage.schedules.postpone_unshown(job.game_id, delay + SHOW_LEASE)
                await self._sleep(job, delay)
                job.reload = True  # the stored game may have changed, or have other board messages
        except StorageError as err:
            log.warning(
                "game %s: storage unavailable while showing its boards (%s); healed later", job.game_id, err
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game %s: showing its boards failed", job.game_id)
        finally:
            if self._jobs.get(job.game_id) is job:
                del self._jobs[job.game_id]
            if job.holding:  # let another worker (or the healer) draw it without waiting for the lease
                with contextlib.suppress(StorageError):
                    await self.storage.games.release_draw(job.game_id, self.token)

    @contextlib.asynccontextmanager
    async def _renewing(self, job: _Job) -> AsyncIterator[None]:
        """Keep the drawing lease while a draw takes long (a group's send limit, flood control, a slow
        upload): renewed every third of its time, so it lapses only if this worker stops."""

        async def renew() -> None:
            while True:
                await asyncio.sleep(DRAW_LEASE / 3)
                try:
                    held = await self.storage.games.hold_draw(job.game_id, self.token, DRAW_LEASE)
                except StorageError:
                    continue
                if isinstance(held, float):
                    log.error("game %s: the drawing lease was lost while drawing", job.game_id)
                    return

        task = asyncio.get_running_loop().create_task(renew(), name=f"boards-lease-{job.game_id}")
        try:
            yield
        finally:
            task.cancel()
            await asyncio.wait({task})

    async def _sleep(self, job: _Job, delay: float) -> None:
        """Wait `delay`, or less if asked again (a press on the board), but at least MIN_GAP."""
        job.sleeping = True
        try:
            await asyncio.sleep(min(delay, MIN_GAP))
            if delay > MIN_GAP and not job.wake.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(job.wake.wait(), delay - MIN_GAP)
        finally:
            job.sleeping = False

    async def _draw(self, job: _Job, table: Table, force: bool = False) -> tuple[bool, int]:
        """Show every board of `table` that may be behind: (whether all of them show it now, the game's
        stored version, after which the lease was let go if it is still `table.version`)."""
        targets = [t for t in table.targets if force or job.behind(table, t)]
        outcomes = await asyncio.gather(
            *(self._draw_one(job, table, target, force) for target in targets), return_exceptions=True
        )
        done: list[str] = []  # boards that show `table` now
        skipped: list[Target] = []
        failed = 0
        for target, outcome in zip(targets, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                log.error("game %s: board %s failed", table.id, target.key, exc_info=outcome)
                failed += 1
            elif outcome is Shown.SHOWN:
                done.append(target.key)
            elif outcome is Shown.FAILED:
                failed += 1
            else:  # SKIPPED (the chat takes no messages): nothing to retry, but not shown either, so that
                skipped.append(target)  # a press there after an unblock redraws it
        complete = failed == 0
        metrics = current()
        if complete and metrics is not None:
            pressed = metrics.pressed.get(table.id)
            if pressed is not None and pressed[0] <= table.version:  # the press's change is on every board
                del metrics.pressed[table.id]
                metrics.press_board.observe(asyncio.get_running_loop().time() - pressed[1])
        stored = await self.storage.games.shown(table.id, table.version, tuple(done), complete, self.token)
        hook = self.unreachable
        for target in skipped:
            if hook is None:
                break
            try:
                await hook(table, target)
            except StorageError as err:
                log.warning("game %s: board %s unreachable, not recorded: %s", table.id, target.key, err)
            except Exception:
                log.exception("game %s: board %s unreachable, not recorded", table.id, target.key)
        return complete, stored

    async def _with_ratings(self, table: Table) -> Table:
        """`table` with its players' rating changes, when its game ended a rated match (recorded by the
        save that ended it: bot/storage/results.py); as it is otherwise, or when they cannot be read. A match ended
        by a player's /forget was rated too: the line shows the other player's change only (the forgotten
        player's rating is deleted)."""
        if not table.over or table.rated is not None or any(p.is_computer for p in table.players):
            return table
        if not any(p.reachable for p in table.players):
            return table
        if table.match.is_match and not table.match.over:
            return table
        try:
            outcome = await self.storage.results.recorded(f"{table.id}/{table.number}")
        except StorageError as err:
            log.info("game %s: ratings unavailable (%s)", table.id, err)
            return table
        if outcome is None or not outcome.rated:
            return table
        pairs = tuple(
            None if r is None or not player.reachable else (r.before, r.after)
            for r, player in zip(outcome.ratings, table.players, strict=True)
        )
        return replace(table, rated=(pairs[0], pairs[1]))

    async def _personal(self, table: Table, target: Target) -> Target:
        """`target` in its player's language and colours, if it is a player's private board."""
        viewer = target.viewer
        if self.settings is None or viewer is None or target.inline_id is not None:
            return target
        player = table.players[viewer]
        if not player.reachable or target.chat_id != player.user_id:
            return target
        try:
            chosen = await self.settings.get(player.user_id)
        except StorageError as err:  # drawn as the table has it (the language the game started with)
            log.info("game %s: settings of %s unavailable (%s)", table.id, player.user_id, err)
            return target
        return replace(target, lang=chosen.language(target.lang), theme=chosen.theme)

    async def _draw_one(self, job: _Job, table: Table, target: Target, force: bool) -> Shown:
        self.draws += 1
        target = await self._personal(table, target)
        table = await self._with_ratings(table)
        previous = None if force else job.shows(table, target)  # forced: the message's picture is unknown
        outcome = await display.show_board(
            self.bot, self.storage, table, target, previous, media_chat=self.media_chat, links=self.links
        )
        if outcome is Shown.SHOWN:
            if target.inline_id is not None:
                job.known[target.key] = (INLINE, table)
                return outcome
            stored = await self.storage.games.load(table.id) if target.key not in table.messages else table
            message_id = (stored or table).messages.get(target.key)
            if message_id is not None:
                job.known[target.key] = (message_id, table)
        return outcome

    # ------------------------------------------------------------------ healing

    async def heal(self, everything: bool = False) -> int:
        """Redraw the marked games that are due (`everything`: all marked games, as at a start).
        Returns how many this worker took."""
        taken = 0
        due_by = None if everything else self.storage.schedules.now()
        room = MAX_HEALING - len(self._jobs)
        if room <= 0:
            return 0
        for game_id in await self.storage.schedules.unshown(
            due_by, min(room, HEAL_BATCH if not everything else room)
        ):
            if game_id in self._jobs:
                continue
            if await self.storage.schedules.claim_unshown(game_id, force=everything):
                taken += 1
                self.redraw(game_id)
        if taken:
            log.info("redrawing the boards of %d game(s) that may be behind", taken)
        return taken

    def start(self) -> None:
        """Start the healer: first every marked board, then the overdue ones every `heal_every` seconds."""
        self._stopping = False
        if self._healer is None:
            self._healer = asyncio.get_running_loop().create_task(self._heal_forever(), name="boards-healer")

    async def _heal_forever(self) -> None:
        everything = True
        while not self._stopping:
            try:
                await self.heal(everything)
                everything = False
            except StorageError as err:
                log.warning("board healer: storage unavailable (%s)", err)
            except Exception:
                log.exception("board healer failed; trying again")
            await asyncio.sleep(self.heal_every)

    async def idle(self, timeout: float = 30.0) -> None:
        """Wait until no board is being drawn: every job is done, or waiting to try again (tests)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while any(not job.sleeping or job.wake.is_set() for job in self._jobs.values()):
            if loop.time() > deadline:
                raise TimeoutError(f"boards still being drawn: {sorted(self._jobs)}")
            await asyncio.sleep(0.01)

    async def stop(self, timeout: float = 5.0) -> None:
        """Stop the healer; give the jobs `timeout` seconds to finish, then cancel them (their games stay
        marked in Redis, so the next start redraws them)."""
        self._stopping = True
        if self._healer is not None:
            self._healer.cancel()  # (redis-py may swallow a cancel; the loop also ends on _stopping)
            await asyncio.wait({self._healer}, timeout=timeout)
            self._healer = None
        tasks = [job.task for job in self._jobs.values() if job.task is not None]
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=timeout)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=timeout)
