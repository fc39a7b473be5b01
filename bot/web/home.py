"""The Mini App's home (static/home.html): what a player sees when they open the bot's Mini App from its menu
button, /app or a Direct Link, over plain HTTP next to the board page's socket.

- GET `api/home`: the player's games in progress (whose turn, the opponent, the clock), the formats and
  levels they may start against the computer, what /stats and /history say of them, and the page's words in
  their language (bot/web/protocol.py home_message).
- POST `api/computer`: a new game against the computer, started by bot/service/starts.py, as the chat's menu
  starts it; the answer names the game, whose board the page then opens.
- POST `api/open`: what a Direct Link's startapp names (protocol.parse_start_param): a game is named back
  (its board checks who may see it), an invitation is accepted through starts.accept_invite.

Every request proves its person as the board's socket does (bot/web/sockets.py Signer: Telegram's initData,
here in the `Authorization: tma <initData>` header; the sandbox's signed cookie), checked at each request; a
POST must come from the page's own origin. A person sees their own games only: the list is built from their
own games set, and each game is checked to have them as a player. Names are sent as text, never HTML.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any

from aiohttp import web

from bot.i18n import N_, RIGHT_TO_LEFT, Texts
from bot.model.flow import Refused
from bot.model.game_format import CLOCKS, BadFormat, GameFormat
from bot.model.table import Person, Seeker, Table, new_id
from bot.service import quickmatch, starts
from bot.service.answers import TRY_AGAIN
from bot.storage import ChatBusy, StorageError
from bot.views.captions import clock_words, level_name, person_name, variant_name
from bot.views.stats_lines import history_line, tourney_line, variant_block
from bot.web.api import LOOK_WITHIN, limited_person, person, texts_of
from bot.web.api import error as _error
from bot.web.api import json_answer as _json
from bot.web.auth import InitData
from bot.web.protocol import (
    ProtocolError,
    game_entry,
    home_clock_json,
    home_message,
    parse_new_game,
    parse_open,
    parse_seek,
    parse_stop,
    seeking_json,
)
from bot.web.sockets import SIGNED_OUT, Sockets
from engine import Phase
from engine.ai.levels import LEVELS

log = logging.getLogger(__name__)

FORMATS = ("short", "long", "short.3", "long.3", "short.5c")  # what the home offers against the computer
MAX_GAMES = 200  # games of a player's set looked at (the set holds the last 30 days'; its order is no age)
HISTORY_SIZE = 10
QUICK_VARIANTS = ("short", "long")  # quick match from the home: these variants, lengths and clocks
QUICK_LENGTHS = (1, 3, 5, 7)

# The page's own words (its other words come with the games, the statistics and the history).
WORDS = {
    "title": N_("Nardy"),
    "yourGames": N_("Your games"),
    "noGames": N_("No games in progress."),
    "yourTurn": N_("Your turn"),
    "theirTurn": N_("Waiting for {name}"),
    "newGame": N_("Play the computer"),
    "format": N_("Game"),
    "level": N_("Level"),
    "start": N_("Start"),
    "stats": N_("Your statistics"),
    "history": N_("Your recent games"),
    "noHistory": N_("No finished games yet."),
    "quick": N_("Quick match"),
    "length": N_("Length"),
    "clock": N_("Clock"),
    "find": N_("🎲 Find an opponent"),
    "stop": N_("✖ Stop searching"),
    "looking": N_("Looking for an opponent: {variant}…"),
    "signedOut": SIGNED_OUT,
    "tryAgain": TRY_AGAIN,
}


class Home:
    """The home's API routes of one page server (see the module docstring)."""

    def __init__(self, sockets: Sockets) -> None:
        self.sockets = sockets
        self.services = sockets.services

    def add_routes(self, app: web.Application, base: str) -> None:
        app.router.add_get(base + "/api/home", self.home)
        app.router.add_post(base + "/api/computer", self.computer)
        app.router.add_post(base + "/api/open", self.open)
        app.router.add_post(base + "/api/seek", self.seek)
        app.router.add_get(base + "/api/seek", self.seeking)
        app.router.add_post(base + "/api/stop", self.stop)

    # ------------------------------------------------------------------ who

    def _who(self, request: web.Request) -> InitData:
        return person(self.sockets, request)

    async def _limited(self, request: web.Request) -> InitData:
        return await limited_person(self.sockets, request)

    async def _texts(self, init: InitData) -> Texts:
        return await texts_of(self.sockets, init)

    async def _body(self, request: web.Request) -> bytes:
        if request.headers.get("Origin", "").lower() != self.sockets.origin:
            raise web.HTTPForbidden(text="origin not allowed")
        if request.content_length is None or request.content_length > 4096:
            raise web.HTTPRequestEntityTooLarge(4096, request.content_length or 0)
        return await request.read()

    # ------------------------------------------------------------------ routes

    async def home(self, request: web.Request) -> web.StreamResponse:
        """The player's home (protocol.home_message)."""
        init = await self._limited(request)
        t = await self._texts(init)
        user = init.user.id
        storage = self.services.storage
        now = self.sockets.clock()
        try:
            async with asyncio.timeout(LOOK_WITHIN):
                ids = (await storage.games.games_of_user(user))[-MAX_GAMES:]
                tables = await asyncio.gather(*(storage.games.load(i) for i in ids))
                found = await storage.results.stats_of(user)
                history = await storage.results.history_of(user, HISTORY_SIZE)
                search = await storage.rooms.search_of(user)
        except (StorageError, TimeoutError) as err:
            log.warning("the home of user %s could not be read: %s", user, err)
            raise _error(t.gettext(TRY_AGAIN), 503) from None
        mine = [x for x in tables if x is not None and not x.over and x.side_of(user) is not None]
        mine.sort(key=lambda x: -(x.moved_at or 0.0))
        name = init.user.first_name
        stats_lines: list[str] = []  # /stats's lines per variant played, a blank line between
        for block in filter(None, (variant_block(t, v) for v in found.variants)):
            stats_lines += [""] * bool(stats_lines) + block
        tourneys = tourney_line(t, found)
        if tourneys:
            stats_lines += [""] * bool(stats_lines) + [plain(tourneys)]
        return _json(
            home_message(
                t.lang,
                name,
                {key: plain(t.gettext(word)) for key, word in WORDS.items()},
                [entry(t, x, user, now) for x in mine],
                [(f, variant_name(t, f)) for f in FORMATS],
                [(level, level_name(t, level)) for level in LEVELS],
                stats_lines,
                [history_line(t, e) for e in history],
                now,
                t.lang in RIGHT_TO_LEFT,
                quick_choices(t),
                None if search is None else self._seeking(t, search),
            )
        )

    async def computer(self, request: web.Request) -> web.StreamResponse:
        """A new game against the computer, started as the chat's menu starts it: `{"game": ID}`."""
        init = await self._limited(request)
        body = await self._body(request)
        t = await self._texts(init)
        try:
            wanted = parse_new_game(body)
        except ProtocolError as err:
            raise _error(str(err), 400) from None
        if wanted.format not in FORMATS or wanted.level not in LEVELS:
            raise _error(f"choose a format of {FORMATS} and a level of {LEVELS}", 400)
        me = Person(init.user.id, init.user.first_name, t.lang)
        return await _started(t, starts.against_computer(self.services, me, wanted.format, wanted.level))

    async def open(self, request: web.Request) -> web.StreamResponse:
        """What a Direct Link's startapp names: `{"game": ID}` (an invitation is accepted first)."""
        init = await self._limited(request)
        body = await self._body(request)
        t = await self._texts(init)
        try:
            start = parse_open(body)
        except ProtocolError as err:
            raise _error(str(err), 400) from None
        raw = json.loads(body)["start"]
        if raw != start.id and await self._is_game(raw):  # a bare id from before the prefixes: "g…", "i…"
            return _json({"game": raw})
        if start.kind == "game":
            return _json({"game": start.id})
        me = Person(init.user.id, init.user.first_name, t.lang)
        return await _started(t, _accepted(self.services, start.id, me))

    async def _is_game(self, game_id: str) -> bool:
        try:
            return await self.services.storage.games.load(game_id) is not None
        except StorageError:
            return False

    # ------------------------------------------------------------------ quick match

    def _seeking(self, t: Texts, seeker: Seeker) -> dict[str, Any]:
        since = seeker.since
        return seeking_json(
            seeker.token, variant_name(t, seeker.game), since, since + self.services.seek_timeout
        )

    async def seek(self, request: web.Request) -> web.StreamResponse:
        """Look for an opponent (bot/service/quickmatch.py, as the chat's 🎲 Find an opponent): `{"game": ID}`
        when paired at once, else `{"seeking": ...}` (the page then asks GET api/seek until it is over)."""
        init = await self._limited(request)
        body = await self._body(request)
        t = await self._texts(init)
        try:
            wanted = parse_seek(body)
            fmt = str(GameFormat.parse(quick_format(wanted.variant, wanted.length, wanted.clock)))
        except (ProtocolError, BadFormat) as err:
            raise _error(str(err), 400) from None
        me = Seeker(Person(init.user.id, init.user.first_name, t.lang), fmt, self.services.clock(), new_id())
        try:
            table = await quickmatch.find_opponent(self.services, me)
        except Refused as refusal:
            raise _error(t.gettext(refusal.msgid, **refusal.params), 409) from None
        except StorageError as err:
            log.warning("user %s: a quick match from the home failed: %s", init.user.id, err)
            raise _error(t.gettext(TRY_AGAIN), 503) from None
        if table is not None:
            return _json({"game": table.id})
        return _json({"seeking": self._seeking(t, me)})

    async def seeking(self, request: web.Request) -> web.StreamResponse:
        """The player's search going on (`seeking`, null when none) and, when it is over because they were
        paired, their quick match's game (`game`)."""
        init = self._who(request)
        t = await self._texts(init)
        user = init.user.id
        try:
            search = await self.services.storage.rooms.search_of(user)
            table = None if search is not None else await starts.active_game(self.services.storage, user)
        except StorageError as err:
            log.warning("user %s: their search could not be read: %s", user, err)
            raise _error(t.gettext(TRY_AGAIN), 503) from None
        game = table.id if table is not None and table.mode == quickmatch.MODE else None
        return _json({"seeking": None if search is None else self._seeking(t, search), "game": game})

    async def stop(self, request: web.Request) -> web.StreamResponse:
        """Stop searching (the search `token`), as the chat's ✖ Stop searching."""
        init = await self._limited(request)
        body = await self._body(request)
        t = await self._texts(init)
        try:
            token = parse_stop(body)
        except ProtocolError as err:
            raise _error(str(err), 400) from None
        try:
            await quickmatch.stop(self.services, init.user.id, token)
        except Refused as refusal:
            raise _error(t.gettext(refusal.msgid, **refusal.params), 409) from None
        except StorageError as err:
            log.warning("user %s: their search could not be stopped: %s", init.user.id, err)
            raise _error(t.gettext(TRY_AGAIN), 503) from None
        return _json({"stopped": True})


def quick_format(variant: str, length: int, clock: str) -> str:
    """The game format a quick match from the home looks for (bot/model/game_format.py's text)."""
    if variant not in QUICK_VARIANTS or length not in QUICK_LENGTHS or clock not in ("", *CLOCKS):
        raise BadFormat(f"a quick match of {variant!r}, length {length}, clock {clock!r} is not offered")
    return str(GameFormat(variant, length, False, False, clock or None))


def quick_choices(t: Texts) -> dict[str, list[tuple[str, str]]]:
    """What the home's quick match offers, in words."""
    return {
        "variants": [(v, variant_name(t, v)) for v in QUICK_VARIANTS],
        "lengths": [("1", t.gettext(ONE_GAME))]
        + [(str(n), t.gettext("Match to {n}", n=n)) for n in QUICK_LENGTHS[1:]],
        "clocks": [("", plain(t.gettext("⏱ Clock: none")))] + [(c, clock_words(t, c)) for c in CLOCKS],
    }


ONE_GAME = N_("One game")
SYMBOL = re.compile(r"^[^\w(]+\s+")  # a chat button's leading symbol (🎲, ✖, ⏱): the page draws none


def plain(text: str) -> str:
    """A chat button's words without their leading symbol (emoji need a font that phones have and some
    desktops lack)."""
    return SYMBOL.sub("", text, count=1)


def entry(t: Texts, table: Table, user: int, now: float) -> dict[str, Any]:
    """`table` as a game in progress on `user`'s home (protocol.game_entry)."""
    you = table.side_of(user)
    assert you is not None, f"user {user} is not a player of game {table.id}"
    game, match = table.game, table.match
    fmt = game.game
    if match.length > 1 or match.cube:
        fmt += f".{match.length}" + ("c" if match.cube else "") + ("j" if match.jacoby else "")
    if game.phase is Phase.OVER:
        turn = "over"
    else:
        turn = "you" if game.deciding is you else "them"
    score = table.score
    clock = table.clock
    return game_entry(
        table.id,
        variant_name(t, fmt),
        person_name(t, table.players[you.other]),
        turn,
        (score[you], score[you.other]),
        match.length,
        None if clock is None else home_clock_json(clock.left(now), clock.running, you),
    )


async def _accepted(s: Any, token: str, me: Person) -> Table:
    _, table = await starts.accept_invite(s, token, me)
    return table


async def _started(t: Texts, start: Any) -> web.StreamResponse:
    try:
        table = await start
    except Refused as refusal:
        raise _error(t.gettext(refusal.msgid, **refusal.params), 409) from None
    except ChatBusy:
        raise _error(t.gettext(starts.GAME_ON), 409) from None
    except StorageError as err:
        log.warning("a game could not start from the home: %s", err)
        raise _error(t.gettext(TRY_AGAIN), 503) from None
    return _json({"game": table.id})
