"""What the page server's HTTP routes share (bot/web/home.py, bot/web/reviews.py): the person of a request,
proven at each request as the board's socket proves it (bot/web/sockets.py Signer: Telegram's initData in
the `Authorization: tma <initData>` header, the sandbox's signed cookie), their press limits and language,
and the JSON answers and errors (`{"error": text}`, which the pages show)."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from aiohttp import web

from bot.i18n import Texts, language_of, texts
from bot.service.answers import SLOW_PRESSES
from bot.storage import StorageError
from bot.web.auth import BadInitData, InitData
from bot.web.sockets import SIGNED_OUT, Sockets

log = logging.getLogger(__name__)

AUTH_SCHEME = "tma "
LOOK_WITHIN = 2.0  # seconds the routes' reads may take


def person(sockets: Sockets, request: web.Request) -> InitData:
    """The request's person (401, in the browser's language, for initData that proves no one)."""
    header = request.headers.get("Authorization", "")
    raw = header[len(AUTH_SCHEME) :] if header.startswith(AUTH_SCHEME) else ""
    try:
        return sockets.signer.check(request, raw, sockets.clock())
    except BadInitData as err:
        log.info("a page request to %s refused: %s", request.path, err)
        lang = language_of(request.headers.get("Accept-Language", "")[:2])
        raise error(texts(lang).gettext(SIGNED_OUT), 401) from None


async def limited_person(sockets: Sockets, request: web.Request) -> InitData:
    """The person of a request that costs: within their press limits (429 otherwise)."""
    init = person(sockets, request)
    if not await sockets.within_limits(init.user.id):
        t = await texts_of(sockets, init)
        raise error(t.gettext(SLOW_PRESSES), 429)
    return init


async def texts_of(sockets: Sockets, init: InitData) -> Texts:
    """The person's words: their /settings language, else their Telegram's (Redis away: Telegram's)."""
    try:
        async with asyncio.timeout(LOOK_WITHIN):
            chosen = await sockets.services.settings.get(init.user.id)
    except (StorageError, TimeoutError):
        return texts(language_of(init.user.language_code))
    return texts(chosen.language(init.user.language_code))


def json_answer(data: dict[str, Any]) -> web.Response:
    """`data` as JSON (UTF-8, compact), never cached."""
    return web.json_response(data, dumps=dumps, headers={"Cache-Control": "no-store"})


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


ERRORS: dict[int, type[web.HTTPException]] = {
    400: web.HTTPBadRequest,
    401: web.HTTPUnauthorized,
    403: web.HTTPForbidden,
    404: web.HTTPNotFound,
    409: web.HTTPConflict,
    429: web.HTTPTooManyRequests,
    503: web.HTTPServiceUnavailable,
}


def error(text: str, status: int) -> web.HTTPException:
    """An answer of `status` whose JSON says `text` (the page shows it)."""
    return ERRORS[status](text=dumps({"error": text}), content_type="application/json")
