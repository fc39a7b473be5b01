"""Live pages: every open board page hears of every change of its game at once, whoever made it (a press on
this page or another, the chat's buttons, another worker, the clocks' sweeper).

Every save publishes the game's new version on its Redis channel (bot/storage/live.py). Each worker holds
one subscription connection, subscribed to the games its pages show: a version newer than some page of the
game shows is loaded once and each page is sent its state (one state per side and language, whatever the
number of watchers). A change made by a press on this worker is shown to its pages at once, from the table
in hand, without waiting for Redis to echo it. A lost connection is made again (backing off), and then
every game is loaded afresh: saves published meanwhile were not heard.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from bot.model.table import Table
from bot.observe.metrics import current
from bot.storage import Storage, StorageError
from bot.storage.live import LiveFeed
from bot.web.states import reviewed, state_of
from engine import Side

log = logging.getLogger(__name__)

LISTEN = ""  # a channel nobody publishes on (nardy:live:): the connection listens before any page opens
READ_EVERY = 1.0  # seconds one wait for the feed lasts (a health check goes out on a quiet connection)
SUBSCRIBED_WITHIN = 1.0  # seconds a page's join waits for Redis to confirm its game's subscription
RETRY_FIRST = 0.2  # seconds before a lost feed is made again; doubled each time...
RETRY_MAX = 5.0  # ...up to this


class Page(Protocol):
    """One open board page, as the feed sees it."""

    game: str
    you: Side | None
    lang: str
    shown: int  # the version of the last state sent (-1: none yet)
    ready: bool  # whether it may be sent states (its person is known)

    async def send(self, text: str) -> None:
        """Send a message's JSON; a closed socket drops it."""


def state_text(table: Table, you: Side | None, lang: str, note: str = "") -> str:
    return json.dumps(state_of(table, you, lang, note), ensure_ascii=False, separators=(",", ":"))


class Live:
    """The pages of this worker by game, and the one subscription that feeds them (see the module)."""

    def __init__(self, storage: Storage, retry_first: float = RETRY_FIRST) -> None:
        self._storage = storage
        self._pages: dict[str, set[Page]] = {}
        self._feed: LiveFeed | None = None
        self._confirmed: dict[str, asyncio.Event] = {}
        self._heard: dict[str, int] = {}  # game -> the newest version heard (while it has pages)
        self._wanted: dict[str, int] = {}  # game -> the version its running refresh must reach
        self._tasks: set[asyncio.Task[None]] = set()
        self._reader: asyncio.Task[None] | None = None
        self._stopping = False
        self._retry_first = retry_first
        self.loads = 0  # tables loaded to show a change heard (tests, bench)
        self.connected = asyncio.Event()  # set while the feed listens
        # told (table, number) when a player's page is sent the end of game `number` (the server warms its
        # analysis: bot/service/reviews.py Analyses.warm)
        self.ended: Callable[[Table, int], None] | None = None

    # ------------------------------------------------------------------ pages

    def pages(self, game: str) -> int:
        return len(self._pages.get(game, ()))

    async def join(self, page: Page) -> None:
        """Add `page` (not ready yet) to its game's pages; once this returns, every later save of the game
        is heard (Redis confirmed the subscription, or the feed is down and subscribes when it is back)."""
        pages = self._pages.setdefault(page.game, set())
        pages.add(page)
        event = self._confirmed.get(page.game)
        if event is None:
            event = self._confirmed[page.game] = asyncio.Event()
            feed = self._feed
            if feed is not None:
                try:
                    await feed.subscribe(page.game)
                except StorageError as err:  # the reader meets it too, and subscribes again
                    log.info("live: subscribing to game %s failed: %s", page.game, err)
        if self._feed is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), SUBSCRIBED_WITHIN)

    def leave(self, page: Page) -> None:
        pages = self._pages.get(page.game)
        if pages is None:
            return
        pages.discard(page)
        if not pages:
            del self._pages[page.game]
            self._confirmed.pop(page.game, None)
            self._heard.pop(page.game, None)
            self._spawn(self._unsubscribe(page.game), f"live-leave-{page.game}")

    async def _unsubscribe(self, game: str) -> None:
        feed = self._feed
        if feed is not None and game not in self._pages:  # nobody joined it again meanwhile
            with contextlib.suppress(StorageError):
                await feed.unsubscribe(game)

    async def ready(self, page: Page, table: Table) -> None:
        """`page`'s person is known: send it `table` (loaded after it joined), and then anything newer heard
        meanwhile."""
        page.ready = True
        await self.show(table, only=page)
        heard = self._heard.get(page.game, -1)
        if heard > page.shown:
            self._want(page.game, heard)

    async def show(self, table: Table, only: Page | None = None) -> None:
        """Send `table` to each ready page of its game (or `only` that one) that shows an older version; a
        game that ended before a player's eyes (their page showed it going on) is told to `ended`."""
        states: dict[tuple[Side | None, str], str] = {}
        watched = False
        for page in list(self._pages.get(table.id, ())) if only is None else [only]:
            if not page.ready or page.shown >= table.version:
                continue
            key = (page.you, page.lang)
            text = states.get(key)
            if text is None:
                text = states[key] = state_text(table, page.you, page.lang)
            watched = watched or (page.you is not None and page.shown >= 0)
            page.shown = table.version  # before the send: a later table never goes out before it
            await page.send(text)
            pushed(table)
        if watched and self.ended is not None:
            name = reviewed(table)
            if name is not None:
                self.ended(table, int(name.rsplit("/", 1)[1]))

    # ------------------------------------------------------------------ what the feed hears

    def _heard_save(self, game: str, version: int) -> None:
        pages = self._pages.get(game)
        if not pages:
            return
        self._heard[game] = max(version, self._heard.get(game, -1))
        if any(page.ready and page.shown < version for page in pages):
            self._want(game, version)

    def _want(self, game: str, version: int) -> None:
        """Load `game` and show it, unless a load of it runs already (it then goes on to `version`)."""
        if game in self._wanted:
            self._wanted[game] = max(self._wanted[game], version)
            return
        self._wanted[game] = version
        self._spawn(self._refresh(game), f"live-refresh-{game}")

    async def _refresh(self, game: str) -> None:
        try:
            while True:
                wanted = self._wanted[game]
                pages = self._pages.get(game, set())
                if not any(page.ready and page.shown < wanted for page in pages):
                    return
                table = await self._storage.games.load(game)
                self.loads += 1
                if table is None:
                    return
                await self.show(table)
                if self._wanted[game] <= table.version:
                    return
        except StorageError as err:  # the next save, or the feed made again, shows it
            log.warning("live: game %s could not be loaded: %s", game, err)
        finally:
            del self._wanted[game]

    def _refresh_all(self) -> None:
        for game in list(self._pages):
            self._want(game, 2**62)  # whatever is stored now

    # ------------------------------------------------------------------ the feed

    def start(self) -> None:
        self._stopping = False
        if self._reader is None:
            self._reader = asyncio.get_running_loop().create_task(self._listen(), name="live-feed")

    async def stop(self, timeout: float = 1.0) -> None:
        self._stopping = True
        tasks = [t for t in (self._reader, *self._tasks) if t is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)
        self._reader = None

    async def _listen(self) -> None:
        delay = self._retry_first
        lost = False
        while not self._stopping:
            feed = self._storage.live.feed()
            try:
                await feed.subscribe(LISTEN, *self._pages)
                self._feed = feed
                self.connected.set()
                if lost:
                    log.info("live: the feed is back; loading the %d games shown", len(self._pages))
                if self._pages:  # a save before this subscription (or while it was lost) was not heard
                    self._refresh_all()
                lost, delay = False, self._retry_first
                while not self._stopping:
                    event = await feed.next(READ_EVERY)
                    if event is None:
                        continue
                    if event.kind == "subscribed":
                        confirmed = self._confirmed.get(event.game_id)
                        if confirmed is not None:
                            confirmed.set()
                    else:
                        self._heard_save(event.game_id, event.version)
            except StorageError as err:
                if not lost:
                    log.warning("live: the feed was lost (%s); making it again", err)
                lost = True
            finally:
                self._feed = None
                self.connected.clear()
                await feed.close()
            if not self._stopping:
                await asyncio.sleep(delay)
                delay = min(2 * delay, RETRY_MAX)

    def _spawn(self, work: Coroutine[Any, Any, None], name: str) -> None:
        if self._stopping:
            work.close()
            return
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_log_failure)


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("live: %s failed", task.get_name(), exc_info=task.exception())


def pushed(table: Table) -> None:
    """A state went to a page: nardy_web_push_seconds, from its save (the table's moved_at) to now."""
    metrics = current()
    if metrics is not None and table.moved_at is not None:
        late = time.time() - table.moved_at
        if 0 <= late < 3600:  # a test's own clock says nothing of the real wait
            metrics.pushes.observe(late)
