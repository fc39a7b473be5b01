"""A finished game given back to its players: its record as a file (📄 Record, /export) and its animated
replay (🎞 Replay). The formats are engine/records/'s, the animation render/replay.py's (drawn in a render
worker process). The analysis and hints are bot/telegram/handlers/analysis.py's.

Where the files go: to the chat of the board pressed (a group, a private chat), or for a board in an
inline message (a chat the bot may not be in) to the presser's private chat with the bot. A double tap, or
a second press by anyone in the same chat within a minute, sends nothing twice. A replay once sent is sent
again by its file_id (kept in Redis), not drawn again."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from telegram import CallbackQuery, Message, Update
from telegram.ext import ContextTypes

from bot.i18n import Texts
from bot.model import flow
from bot.model.flow import Refused
from bot.model.table import Table
from bot.service.context import load as load_game
from bot.service.records import KINDS, default_kind, export, may_see, named_game, record_file
from bot.telegram import display
from bot.telegram.callbacks import Callback
from bot.telegram.handlers.common import N_, Deps, button, command, deps, user_texts
from bot.views.board_view import replay_texts
from bot.views.captions import names, points, variant_name, win_kind
from bot.workers.computer import think
from bot.workers.pictures import ReplayRequest
from engine import Game

log = logging.getLogger(__name__)
T = TypeVar("T")

ON_ITS_WAY = N_("It is on its way.")
SENT_MOMENTS_AGO = N_(
    "I sent this file here moments ago: look above. Ask again in a minute for another copy."
)
SENT_PRIVATELY = N_("Sent to your private chat with me (if nothing came, open @{bot} and press Start).")
NO_FINISHED_GAME = N_(
    "No finished game to export here. /export GAME/N for another game (its board's last line names it); "
    "add mat, txt or json for the format."
)
SEND_AGAIN_AFTER = 60.0  # seconds: the same file is sent to one chat at most once in this time
POST_WAIT = 300.0  # seconds a send may wait in its chat's queue (a group's pace, a 429's pause)


def about(t: Texts, table: Table, game: Game, number: int) -> str:
    """One line naming a finished game: variant, number, players, result."""
    who = names(t, table)
    line = t.gettext(
        "{variant}, game {number}: ⚪ {white} vs ⚫ {black}",
        variant=variant_name(t, game.game),
        number=number,
        white=who[0],
        black=who[1],
    )
    if game.result is not None:
        line += "\n" + t.gettext(
            "{name} wins: {kind}, {points}.",
            name=who[game.result.winner],
            kind=win_kind(t, game.result.kind),
            points=points(t, game.result.points),
        )
    return line


def destination(query: CallbackQuery) -> int:
    """Where a press's file goes: the board's chat, or the presser's private chat for an inline board."""
    if query.message is not None:
        return query.message.chat.id
    return query.from_user.id


@button
async def on_export(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """📄 Record: the finished game's record as a file."""
    d = deps(context)
    table, game, number, data, filename = await export(d, t, f"{cb.game}/{cb.number}", query.from_user.id)
    chat = destination(query)
    if not await d.storage.limits.once(f"export:{table.id}:{number}:{chat}", SEND_AGAIN_AFTER):
        return t.gettext(ON_ITS_WAY)
    send_file(d, chat, data, filename, about(t, table, game, number))
    return t.gettext(SENT_PRIVATELY, bot=context.bot.username) if query.message is None else None


def send_file(d: Deps, chat: int, data: bytes, filename: str, caption: str) -> None:
    bot = d.boards.bot
    d.outbox.post(chat, lambda: display.send_document(bot, chat, data, filename, caption), "a record")


@command
async def export_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/export [GAME[/N]] [mat|txt|json]: a finished game's record (by default this chat's last game)."""
    t = user_texts(update)
    chat, message = update.effective_chat, update.effective_message
    assert chat is not None and message is not None
    d = deps(context)
    args = [a.lower() if a.lower() in KINDS else a for a in (context.args or [])][:2]
    kind = next((a for a in args if a in KINDS), None)
    wanted = next((a for a in args if a not in KINDS), None)
    table, number = await _game_asked(d, chat.id, message, wanted)
    game = flow.finished_game(table, number)
    if table.chat_id != chat.id:  # not the group's own game: for its players only
        assert update.effective_user is not None
        may_see(table, update.effective_user.id)
    kind = kind or default_kind(game)
    if not await d.storage.limits.once(f"export:{table.id}:{number}:{chat.id}:{kind}", SEND_AGAIN_AFTER):
        raise Refused(SENT_MOMENTS_AGO)  # no second file comes: say so
    data, filename = record_file(t, table, game, number, kind)
    send_file(d, chat.id, data, filename, about(t, table, game, number))


async def _game_asked(d: Deps, chat_id: int, message: Message, wanted: str | None) -> tuple[Table, int]:
    if wanted is not None:
        return await named_game(d.storage, wanted)
    table = await d.storage.games.game_of_chat(chat_id)
    if table is None:
        raise Refused(NO_FINISHED_GAME)
    if not table.over and table.proof is not None and table.number > 1:
        return table, table.number - 1  # the series goes on: its game before
    if not table.over:
        raise Refused(NO_FINISHED_GAME)
    return table, table.number


@button
async def on_replay(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """🎞 Replay: the finished game as an animation (drawn once, then sent again by its file_id)."""
    d = deps(context)
    table = await load_game(d, cb.game)
    game = flow.finished_game(table, cb.number)
    may_see(table, query.from_user.id)
    chat = destination(query)
    if not await d.storage.limits.once(f"replay:{table.id}:{cb.number}:{chat}", SEND_AGAIN_AFTER):
        return t.gettext(ON_ITS_WAY)
    d.spawn(send_replay(d, t, chat, table, game, cb.number), f"replay-{table.id}-{cb.number}")
    return t.gettext(SENT_PRIVATELY, bot=context.bot.username) if query.message is None else None


async def send_replay(d: Deps, t: Texts, chat: int, table: Table, game: Game, number: int) -> None:
    """Send the replay: by the file_id of the same replay sent before (same game, same language), else
    drawn in a render worker and uploaded, its file_id kept for the next time."""
    drawn = names(t, table)  # the names on the frames: a player who left (/forget) is not drawn again
    name = f"replay:{table.id}:{number}:{t.lang}:{hashlib.sha256(repr(drawn).encode()).hexdigest()[:12]}"
    caption = "🎞 " + about(t, table, game, number)
    bot = d.boards.bot
    known = await d.storage.users.media_file(name)
    if known is not None:
        sent = await post_and_wait(d, chat, lambda: display.send_animation(bot, chat, known, caption))
        if sent is not None:
            return
        log.warning("the kept replay %s could not be sent again; drawing it anew", name)
    words = t.for_picture()
    request = ReplayRequest(game.to_json(), names(words, table), replay_texts(words, table, game), 0, "light")
    gif = await think(d.analysts, request)
    file_id = await post_and_wait(d, chat, lambda: display.send_animation(bot, chat, gif, caption))
    if file_id is not None:
        await d.storage.users.set_media_file(name, file_id)


async def post_and_wait(d: Deps, chat: int, send: Callable[[], Awaitable[T]]) -> T | None:
    """Send through the chat's outbox (its order, Telegram's limits) and wait for the result: None if the
    send raised (it is logged), if the chat's queue was full, or after POST_WAIT seconds."""
    done: asyncio.Future[T | None] = asyncio.get_running_loop().create_future()

    async def run() -> None:
        try:
            result = await send()
        except BaseException:
            if not done.done():
                done.set_result(None)
            raise
        if not done.done():
            done.set_result(result)

    if not d.outbox.post(chat, run, "a file"):
        return None
    try:
        return await asyncio.wait_for(asyncio.shield(done), POST_WAIT)
    except TimeoutError:
        log.warning("chat %s: a file's send did not finish in %.0f s", chat, POST_WAIT)
        return None
