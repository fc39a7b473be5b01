"""The standings page's one request (POST <base>/tourney/standings, JSON {"initData", "id"}): the page reads
a tournament's standings through the storage every few seconds (tourney_view.POLL_EVERY) rather than by a
feed on its save: a tournament changes a few times a minute at most, one small GET per page is cheap, and the
board's socket and live feed (sockets.py, live.py) stay as they are."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable

from aiohttp import web

from bot.i18n import language_of
from bot.service.context import Services
from bot.storage import StorageError
from bot.web.auth import BadInitData
from bot.web.sockets import Signer
from bot.web.tourney_view import may_watch, standings_view
from bot.web.tourney_words import tourney_words
from bot.web.words import direction

MAX_BODY = 8192  # bytes: initData (about 1 KB) and an id
TOURNEY_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")


async def standings(
    services: Services,
    signer: Signer,
    request: web.Request,
    within_limits: Callable[[int], Awaitable[bool]],
) -> web.Response:
    """The view of the tournament the request names, if its initData may watch it (401 / 404 / 400 else; 429
    past the person's press limits: each request takes a token from the bucket the page's presses use, which
    a page asking every POLL_EVERY seconds never empties, and a flood does)."""
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(MAX_BODY, request.content_length)
    try:
        body = json.loads(await request.content.read(MAX_BODY + 1))
        init_raw, tourney_id = str(body["initData"]), str(body["id"])
    except (ValueError, KeyError, TypeError):
        raise web.HTTPBadRequest(text="a JSON object with initData and id") from None
    now = services.clock()
    try:
        init = signer.check(request, init_raw, now)
    except BadInitData as err:
        raise web.HTTPUnauthorized(text=str(err)) from None
    if not await within_limits(init.user.id):
        raise web.HTTPTooManyRequests(text="too many requests: try again in a few seconds")
    if not TOURNEY_ID.fullmatch(tourney_id):
        raise web.HTTPNotFound(text="no such tournament")
    try:
        t = await services.storage.tournaments.load(tourney_id)
    except StorageError:
        raise web.HTTPServiceUnavailable(text="storage away: try again") from None
    if t is None or not may_watch(t, init):
        raise web.HTTPNotFound(text="no such tournament")
    try:
        lang = (await services.settings.get(init.user.id)).language(init.user.language_code)
    except StorageError:
        lang = language_of(init.user.language_code)
    view = standings_view(t, now)
    view.update(you=t.name_of(init.user.id) if t.entrant(init.user.id) else None)
    view.update(dir=direction(lang), words=tourney_words(lang), lang=lang)
    return web.json_response(view, headers={"Cache-Control": "no-store"})
