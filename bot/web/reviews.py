"""A finished game's review on the page server (static/review.html's requests; the service is
bot/service/reviews.py; the answers are docs/webapp.md's "Review"):

- GET `api/review?game=GAME/N`: the review (its frames, plays, result, downloads, dice proof, and the analysis
  once worked out), for a person who may see it: a player, or for a group's game a member of the group
  (`member_of`, the Telegram front's getChatMember; None: players only).
- GET `api/review/analysis?game=GAME/N`: `{"analysis": ...}`, worked out once in the analysis workers and kept
  in Redis (503 while the workers are busy or Redis is away: the page offers to try again).
- GET `api/record?game=GAME/N&kind=mat|txt|json&u=USER&until=UNIX&sig=HEX`: a record's file, by a link the
  review signed for its person (no header: a plain download works), good for LINK_LIFE seconds; the HMAC's
  key is derived from the Signer's secret (the bot's token), so no other server can sign one.

Every request proves its person at each request (bot/web/api.py); a game that is not kept, not over, or not
theirs to see gets the same 404, so that no answer tells which games exist. Names go out as JSON text."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import re
from typing import Any
from urllib.parse import urlencode

from aiohttp import web

from bot.i18n import RIGHT_TO_LEFT, Texts, texts
from bot.model.flow import Refused, finished_game
from bot.service.answers import COMPUTER_BUSY, TRY_AGAIN
from bot.service.records import GAME_NAME, KINDS, UNKNOWN_GAME, named_game, record_file
from bot.service.reviews import Analyses, MemberOf, Seen, download_names, frames, review_json, seen_game
from bot.storage import StorageError
from bot.web.api import error, json_answer, limited_person, texts_of
from bot.web.protocol import view_json
from bot.web.review_words import review_words
from bot.web.sockets import Sockets
from bot.workers.computer import ComputerBusy

log = logging.getLogger(__name__)

LINK_LIFE = 15 * 60  # seconds a signed download link is good for
LINK_KEY = b"nardy: record download links"  # the HMAC key is HMAC(the Signer's secret, this)
CONTENT_TYPES = {"mat": "text/plain", "txt": "text/plain", "json": "application/json"}
UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


class Reviews:
    """The review's routes of one page server (see the module docstring)."""

    def __init__(self, sockets: Sockets, member_of: MemberOf | None = None) -> None:
        self.sockets = sockets
        self.services = sockets.services
        self.member_of = member_of
        self.analyses = Analyses(sockets.services)
        # the game whose analysis each person has asked for and waits for in this process: one at a time,
        # so that nobody with many finished games fills the analysis workers that hints and others share
        self.asking: dict[int, tuple[str, int]] = {}

    def add_routes(self, app: web.Application, base: str) -> None:
        app.router.add_get(base + "/api/review", self.review)
        app.router.add_get(base + "/api/review/analysis", self.analysis)
        app.router.add_get(base + "/api/record", self.record)

    async def _seen(self, request: web.Request) -> tuple[Texts, int, Seen]:
        """The person's words, their id and the game the query names, if they may see it (400 for a name
        that is no game's, 404 alike for a game not kept, not over or not theirs, 503 with Redis away)."""
        init = await limited_person(self.sockets, request)
        t = await texts_of(self.sockets, init)
        name = request.query.get("game", "")
        if GAME_NAME.fullmatch(name) is None:
            raise error(f"game {name[:40]!r} is not a game's name (GAME or GAME/N)", 400)
        try:
            return t, init.user.id, await seen_game(self.services.storage, name, init.user.id, self.member_of)
        except Refused:
            raise error(t.gettext(UNKNOWN_GAME, game=name), 404) from None
        except StorageError as err:
            log.warning("the review of %s could not be read: %s", name, err)
            raise error(t.gettext(TRY_AGAIN), 503) from None

    async def review(self, request: web.Request) -> web.StreamResponse:
        """The review of the named game (docs/webapp.md)."""
        t, user, seen = await self._seen(request)
        try:
            analysis = await self.analyses.kept(seen)
        except StorageError as err:
            log.warning("the analysis of %s could not be read: %s", seen.name, err)
            analysis = None
        until = int(self.sockets.clock()) + LINK_LIFE

        def built() -> dict[str, Any]:
            return {
                "lang": t.lang,
                "dir": "rtl" if t.lang in RIGHT_TO_LEFT else "ltr",
                "words": review_words(t.lang),
                **review_json(t, seen, analysis),
                "frames": [view_json(v) for v in frames(t, seen)],
                "downloads": [
                    {"kind": kind, "name": name, "url": self.link(seen.name, kind, user, until)}
                    for kind, name in download_names(t, seen)
                ],
            }

        # a long game's replay and its legal plays take tens of milliseconds: in a thread, so that the other
        # pages' and chats' updates on this event loop are not held up behind one review
        body = await asyncio.to_thread(built)
        answer = json_answer(body)
        answer.enable_compression()  # gzip when the browser takes it: a 100-play game's frames shrink ~10x
        return answer

    async def analysis(self, request: web.Request) -> web.StreamResponse:
        """The named game's analysis: kept, or worked out now (once, however many ask)."""
        t, user, seen = await self._seen(request)
        key = (seen.table.id, seen.number)
        waiting = self.asking.get(user)
        try:
            if waiting is not None and waiting != key:  # another of theirs is under way: only what is kept
                found = await self.analyses.kept(seen)
                if found is None:
                    raise ComputerBusy(f"user {user} waits for the analysis of {waiting[0]}/{waiting[1]}")
                return json_answer({"analysis": found})
            self.asking[user] = key
            try:
                found = await self.analyses.get(seen)
            finally:
                if self.asking.get(user) == key:
                    del self.asking[user]
        except ComputerBusy as err:
            log.info("the analysis of %s is not worked out now: %s", seen.name, err)
            raise error(t.gettext(COMPUTER_BUSY), 503) from None
        except StorageError as err:
            log.warning("the analysis of %s could not be worked out: %s", seen.name, err)
            raise error(t.gettext(TRY_AGAIN), 503) from None
        return json_answer({"analysis": found})

    # ------------------------------------------------------------------ downloads

    def _signature(self, game: str, kind: str, user: int, until: int) -> str:
        key = hmac.new(self.sockets.signer.secret.encode(), LINK_KEY, hashlib.sha256).digest()
        return hmac.new(key, f"{game}\n{kind}\n{user}\n{until}".encode(), hashlib.sha256).hexdigest()

    def link(self, game: str, kind: str, user: int, until: int) -> str:
        """The signed address (relative to the page) of game `game`'s record as `kind` for `user`, good
        until the Unix time `until`."""
        query = {"game": game, "kind": kind, "u": user, "until": until}
        return "api/record?" + urlencode(query | {"sig": self._signature(game, kind, user, until)})

    async def record(self, request: web.Request) -> web.StreamResponse:
        """A record's file by a signed link: 403 for a signature that is wrong or out of date."""
        query = request.query
        game, kind = query.get("game", ""), query.get("kind", "")
        try:
            user, until = int(query.get("u", "")), int(query.get("until", ""))
        except ValueError:
            raise error("a download link names its user and its end (u, until)", 403) from None
        wanted = self._signature(game, kind, user, until)
        if not hmac.compare_digest(wanted, query.get("sig", "")) or until < self.sockets.clock():
            raise error("this download link is wrong or out of date: open the review again", 403)
        if kind not in KINDS or GAME_NAME.fullmatch(game) is None:
            raise error(f"no file {kind!r} of {game[:40]!r}", 400)
        t = await self._user_texts(user)
        try:
            table, number = await named_game(self.services.storage, game)
            data, filename = record_file(t, table, finished_game(table, number), number, kind)
        except Refused as refusal:
            raise error(t.gettext(refusal.msgid, **refusal.params), 404) from None
        except StorageError as err:
            log.warning("the record of %s could not be read: %s", game, err)
            raise error(t.gettext(TRY_AGAIN), 503) from None
        safe = UNSAFE.sub("_", filename)
        return web.Response(
            body=data,
            content_type=CONTENT_TYPES[kind],
            charset="utf-8",
            headers={
                "Content-Disposition": f'attachment; filename="{safe}"',
                "Cache-Control": "private, no-store",
            },
        )

    async def _user_texts(self, user: int) -> Texts:
        """The words of the link's person (the names in a record: "a former player"), in their language."""
        try:
            chosen = await self.services.settings.get(user)
        except StorageError:
            return texts("en")
        return texts(chosen.language(""))
