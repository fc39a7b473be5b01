"""The board page's WebSocket (/app/ws): who is there, and their presses, through the game service.

A socket from another origin than the page's is refused before it opens. Its first message must be the
page's hello, within HELLO_WITHIN: the person is proved by Telegram's signed initData (bot/web/auth.py; in
the sandbox, by its signed sign-in cookie), checked then and again at every press (its age), and the socket
is bound to that person and game for good, and answered with the page's words in that person's language
and the server's time (`welcome`). A player of the game plays; anyone else may watch a group's
game (`you: null`) and is refused any other one. A press goes through the same service function, with the
same checks, as the chat's button (bot/service/games.py): a refusal comes back as `refused` with the
translated reason, a press on an old board as `refused` and the board as it is now; every change reaches
every page of the game (bot/web/live.py). Presses and hellos count against the same per-user (and
per-group) token buckets as the chat's presses.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import WSCloseCode, WSMsgType, web

from bot.i18n import N_, language_of, texts
from bot.model.flow import Refused
from bot.model.table import Table
from bot.observe.metrics import current
from bot.service import games, hints
from bot.service.answers import (
    BOARD_CHANGED,
    COMPUTER_BUSY,
    SLOW_PRESSES,
    TRY_AGAIN,
    TRY_AGAIN_SOON,
    WENT_WRONG,
)
from bot.service.context import GONE, Services
from bot.service.hints import hint_text
from bot.service.rates import Limits
from bot.service.starts import GAME_ON
from bot.storage import ChatBusy, StorageError, StorageTimeout, VersionConflict
from bot.storage.keys import limit_key
from bot.storage.limits import Bucket
from bot.web import auth
from bot.web.auth import BadInitData, InitData
from bot.web.live import Live, state_text
from bot.web.protocol import (
    MAX_MESSAGE,
    Hello,
    Press,
    ProtocolError,
    error_message,
    parse_client_message,
    welcome_message,
)
from bot.web.protocol import refused_message as refused_json
from bot.web.words import direction, page_words
from bot.workers.computer import ComputerBusy
from engine import Side

log = logging.getLogger(__name__)

HELLO_WITHIN = 5.0  # seconds a new socket has to say hello
PRESS_WITHIN = 8.0  # seconds a press may take (the computer's reply included) before "try again soon"
LOOK_WITHIN = 0.5  # seconds the inbound limits may take before a press passes unchecked (as the chat's)
HEARTBEAT = 30.0  # seconds between pings: a socket whose page is gone closes
PAGES_PER_USER = 16  # open sockets of one person on this worker
HINT_LIMIT = 400  # characters of a hint in the page's message
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what bot/model/table.py new_id makes

SIGNED_OUT = N_("This page could not prove who you are. Open the game again from its board in Telegram.")
NOT_PLAYING = N_("You are not playing in this game.")


@dataclass(frozen=True)
class Signer:
    """How a page proves its person: initData signed with the bot's token (Telegram's HMAC), or in the
    sandbox the sign-in cookie `cookie`, signed the same way with the run's own secret."""

    secret: str = ""
    max_age: float = 86400.0
    cookie: str | None = None

    def check(self, request: web.Request, init_data: str, now: float) -> InitData:
        raw = request.cookies.get(self.cookie, "") if self.cookie is not None else init_data
        return auth.check(raw, self.secret, now, self.max_age)


class Session:
    """One socket: its person and game once the hello is checked, and the version of the last state sent."""

    def __init__(self, ws: web.WebSocketResponse, request: web.Request) -> None:
        self.ws = ws
        self.request = request
        self.game = ""
        self.you: Side | None = None
        self.lang = "en"
        self.shown = -1
        self.ready = False
        self.user_id = 0
        self.init_data = ""

    async def send(self, text: str) -> None:
        if self.ws.closed:
            return
        try:
            await self.ws.send_str(text)
        except (ConnectionError, RuntimeError) as err:  # the page went away meanwhile
            log.debug("page of game %s: a send failed: %s", self.game, err)

    async def send_json(self, message: dict[str, object]) -> None:
        await self.send(json.dumps(message, ensure_ascii=False, separators=(",", ":")))

    async def fail(self, text: str) -> None:
        """A fatal error: said, then the socket closes (the page does not connect again)."""
        await self.send_json(error_message(text, fatal=True))
        await self.ws.close(code=WSCloseCode.POLICY_VIOLATION)


class Sockets:
    """The /app/ws handler of one worker (see the module docstring)."""

    def __init__(
        self,
        services: Services,
        live: Live,
        signer: Signer,
        limits: Limits | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.services = services
        self.live = live
        self.signer = signer
        self.limits = limits
        self.clock = clock or services.clock
        self.origin = ""  # the page's origin ("https://host"): set by the server once it is known
        self.open: set[Session] = set()
        self.presses = 0  # presses handled (tests, bench)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        origin = request.headers.get("Origin", "").lower()
        if not self.origin or origin != self.origin:
            log.info("a board socket from origin %r refused (the page's is %r)", origin, self.origin)
            hello_refused("origin")
            raise web.HTTPForbidden(text="origin not allowed")
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_MESSAGE, timeout=0.5)
        await ws.prepare(request)
        session = Session(ws, request)
        self.open.add(session)
        metrics = current()
        if metrics is not None:
            metrics.sockets.inc()
        try:
            if await self._hello(session):
                await self._serve(session)
        finally:
            if metrics is not None:
                metrics.sockets.dec()
            self.open.discard(session)
            if session.game:
                self.live.leave(session)
        return ws

    async def close_all(self) -> None:
        """Close every socket (the bot stops): each page connects again by itself."""
        await asyncio.gather(
            *(s.ws.close(code=WSCloseCode.GOING_AWAY) for s in list(self.open)), return_exceptions=True
        )

    # ------------------------------------------------------------------ the hello

    async def _hello(self, session: Session) -> bool:
        try:
            msg = await session.ws.receive(timeout=HELLO_WITHIN)
        except TimeoutError:
            hello_refused("bad_message")
            await session.fail("no hello")
            return False
        if msg.type != WSMsgType.TEXT:
            return False
        try:
            hello = parse_client_message(msg.data)
        except ProtocolError as err:
            hello_refused("bad_message")
            await session.fail(str(err))
            return False
        if not isinstance(hello, Hello):
            hello_refused("bad_message")
            await session.fail("the first message must be a hello")
            return False
        try:
            init = self.signer.check(session.request, hello.init_data, self.clock())
        except BadInitData as err:
            log.info("a board page's hello for game %s refused: %s", hello.game[:64], err)
            hello_refused("auth")
            await session.fail(texts(None).gettext(SIGNED_OUT))
            return False
        session.user_id, session.init_data = init.user.id, hello.init_data
        session.lang = await self._language(init)
        t = texts(session.lang)
        if sum(1 for s in self.open if s.user_id == init.user.id) > PAGES_PER_USER:
            hello_refused("rate_limited")
            await session.fail(t.gettext(SLOW_PRESSES))
            return False
        if not await self._within_limits(session.user_id, None):
            hello_refused("rate_limited")
            await session.fail(t.gettext(SLOW_PRESSES))
            return False
        if not GAME_ID.fullmatch(hello.game):  # never a key of ours: not worth a Redis call
            hello_refused("gone")
            await session.fail(t.gettext(GONE))
            return False
        session.game = hello.game
        await self.live.join(session)  # from here on every save of the game is heard
        try:
            table = await self.services.storage.games.load(hello.game)
        except StorageError as err:
            log.warning("game %s could not be loaded for a page: %s", hello.game, err)
            hello_refused("storage_away")
            await session.fail(t.gettext(TRY_AGAIN))
            return False
        if table is None:
            hello_refused("gone")
            await session.fail(t.gettext(GONE))
            return False
        session.you = table.side_of(init.user.id)
        if session.you is None and table.mode != "group":
            log.info("user %s may not watch game %s (%s)", init.user.id, table.id, table.mode)
            hello_refused("not_a_player")
            await session.fail(t.gettext(NOT_PLAYING))
            return False
        await session.send_json(
            welcome_message(session.lang, direction(session.lang), page_words(session.lang), self.clock())
        )
        await self.live.ready(session, table)
        return True

    async def _language(self, init: InitData) -> str:
        try:
            async with asyncio.timeout(LOOK_WITHIN):
                chosen = await self.services.settings.get(init.user.id)
        except (StorageError, TimeoutError):
            return language_of(init.user.language_code)
        return chosen.language(init.user.language_code)

    async def within_limits(self, user_id: int) -> bool:
        """A request of the Mini App's home (bot/web/home.py) takes a token from the person's press bucket,
        as a page's press does."""
        return await self._within_limits(user_id, None)

    async def _within_limits(self, user_id: int, table: Table | None) -> bool:
        """Take a token from the person's (and a group game's) press buckets, shared with the chat's
        buttons; Redis away or slow: the press passes (its version still guards it)."""
        limits = self.limits
        if limits is None:
            return True
        rate = limits.user_presses
        buckets = [Bucket(limit_key(f"u{user_id}", "press"), rate.burst, rate.per_second)]
        if table is not None and table.mode == "group" and table.chat_id is not None:
            rate = limits.chat_presses
            buckets.append(Bucket(limit_key(f"c{table.chat_id}", "press"), rate.burst, rate.per_second))
        try:
            async with asyncio.timeout(limits.look_within):
                empty, _ = await self.services.storage.limits.take_tokens(tuple(buckets), limits.clock())
        except (StorageError, TimeoutError):
            return True
        if empty is not None:
            log.info("user %s: a page's press over the limit of %s; refused", user_id, empty.key)
        return empty is None

    # ------------------------------------------------------------------ presses

    async def _serve(self, session: Session) -> None:
        async for msg in session.ws:
            if msg.type != WSMsgType.TEXT:
                continue
            try:
                press = parse_client_message(msg.data)
            except ProtocolError as err:
                await session.send_json(error_message(str(err), fatal=False))
                continue
            if not isinstance(press, Press):
                await session.send_json(error_message("one hello per socket", fatal=False))
                continue
            try:
                self.signer.check(session.request, session.init_data, self.clock())
            except BadInitData as err:
                log.info("user %s: a press on game %s refused: %s", session.user_id, session.game, err)
                await session.fail(texts(session.lang).gettext(SIGNED_OUT))
                return
            self.presses += 1
            await self._press(session, press)

    async def _press(self, session: Session, press: Press) -> None:
        t = texts(session.lang)
        s = self.services
        try:
            async with asyncio.timeout(PRESS_WITHIN):
                if session.you is None:
                    raise Refused(NOT_PLAYING)
                table = await s.storage.games.load(session.game)
                if table is None:
                    raise Refused(GONE)
                if not await self._within_limits(session.user_id, table):
                    raise Refused(SLOW_PRESSES)
                table = await games.apply_flag(s, table)
                if press.version != table.version:
                    await self._stale(session, table)
                    return
                changed = await self._apply(session, table, press)
        except Refused as refusal:
            await session.send_json(refused_json(t.gettext(refusal.msgid, **refusal.params)))
            return
        except VersionConflict:  # another press (a page, a button, a worker) was saved first
            latest = await self._load_quietly(session.game)
            await self._stale(session, latest)
            return
        except ChatBusy:
            text = t.gettext(GAME_ON)
        except (StorageTimeout, TimeoutError) as err:
            log.warning(
                "a page's press on game %s: no answer in time: %s", session.game, err or "the deadline"
            )
            text = t.gettext(TRY_AGAIN_SOON)
        except StorageError:
            log.exception("a page's press on game %s: storage unavailable", session.game)
            text = t.gettext(TRY_AGAIN)
        except ComputerBusy as err:
            log.warning("a page's press refused: %s", err)
            text = t.gettext(COMPUTER_BUSY)
        except Exception:
            log.exception("a page's press %s on game %s failed", press, session.game)
            text = t.gettext(WENT_WRONG)
        else:
            if changed is not None:
                await self.live.show(changed)
            return
        await session.send_json(refused_json(text))

    async def _apply(self, session: Session, table: Table, press: Press) -> Table | None:
        """Do `press` through the game service: the table it saved (None: a hint, sent to this page only)."""
        s, user, version = self.services, session.user_id, press.version
        action = press.action
        if action == "move":
            assert press.src is not None and press.die is not None
            return await games.move(s, table, user, version, press.src, press.die)
        if action == "undo":
            return await games.undo(s, table, user, version)
        if action == "done":
            return await games.done(s, table, user, version)
        if action in games.CUBE_PRESSES:
            return await games.cube(s, table, user, version, action)
        if action == "resign":
            return await games.resign(s, table, user, table.number)
        if action == "rematch":
            return await games.rematch(s, table, user, version)
        found = await hints.hint(s, table, user, version)  # "hint": the only action left
        note = hint_text(texts(session.lang), found, HINT_LIMIT)
        session.shown = max(session.shown, table.version)
        await session.send(state_text(table, session.you, session.lang, note))
        return None

    async def _stale(self, session: Session, table: Table | None) -> None:
        """A press on an older board than the game's: said, and the board as it is now sent again."""
        await session.send_json(refused_json(texts(session.lang).gettext(BOARD_CHANGED)))
        if table is not None:
            session.shown = max(session.shown, table.version)
            await session.send(state_text(table, session.you, session.lang))

    async def _load_quietly(self, game: str) -> Table | None:
        try:
            return await self.services.storage.games.load(game)
        except StorageError:
            return None


def hello_refused(reason: str) -> None:
    """Count a refused hello (nardy_web_hellos_refused_total) by its reason."""
    metrics = current()
    if metrics is not None:
        metrics.hello_refused(reason)
