"""Quick match in Telegram: 🎲 Find an opponent (`/newgame` → variant → 🎲, in a private chat), ✖ Stop searching,
and the sweeper every worker runs. Thin entrypoints over the service (bot/service/quickmatch.py: the pairing,
stopping and the timeout live there); this module shows a search on its waiting message, and `told` turns the
service's news of a search (Services.searched) into that message's new text.

A player who blocked the bot or deleted the chat: the edit of their waiting message fails with 403 and their
search ends; paired meanwhile, their board fails with 403 and the opponent may claim the win at once
(bot/telegram/handlers/claims.py, player_unreachable).
"""

from __future__ import annotations

import logging
import math

from telegram import CallbackQuery, InlineKeyboardMarkup, Update
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import ContextTypes

from bot.i18n import Texts, texts
from bot.model.table import Seeker, Table, new_id
from bot.service import quickmatch as service
from bot.service.context import SearchNews
from bot.service.quickmatch import MODE, SEARCH_OVER
from bot.storage import StorageError
from bot.telegram import button_homes, display
from bot.telegram.callbacks import BadCallback, Callback
from bot.telegram.handlers.common import (
    N_,
    Deps,
    active_game,
    button,
    deps,
    has_buttons,
    menu_owner,
    message_of,
    person,
    remember_home,
)
from bot.telegram.keyboards import seek_markup, seek_over_markup
from bot.telegram.sweeping import Sweeping
from bot.views.captions import variant_name

log = logging.getLogger(__name__)

SWEEP_EVERY = 5.0  # seconds between two sweeps (less with a short timeout: a tenth of it)
SWEEP_BATCH = 100  # searches one sweep ends per variant (a full batch: the next sweep comes at once)

WAITING = N_(
    "🎲 {variant}: looking for an opponent… You will get a message here as soon as someone is found "
    "(at most {minutes} min)."
)
FOUND = N_("🎲 Opponent found: {name}. {variant}: the game is on, your board is below.")
STOPPED = N_("You stopped searching. Send /newgame to play.")
TIMED_OUT = N_(
    "Nobody turned up for {variant} this time. Play the computer instead (pick a level), or look again?"
)
ENDED_BUSY = N_("The search for an opponent stopped: you started another game.")


# ---------------------------------------------------------------------- Telegram's side


async def edit_or_send(
    d: Deps, chat_id: int, message_id: int | None, text: str, markup: InlineKeyboardMarkup | None = None
) -> bool:
    """Edit a message of the private chat (a new one if it is gone: its buttons are the user's menu's, see
    bot/telegram/button_homes.py); False if the chat takes no messages (403: the user blocked the bot; or the chat is
    gone). Other failures are logged (True: not unreachable)."""
    bot = d.boards.bot
    try:
        if message_id is not None:
            try:
                await bot.edit_message_text(
                    chat_id=chat_id, message_id=message_id, text=text, reply_markup=markup
                )
                return True
            except BadRequest as err:
                if display.is_not_modified(err):
                    return True
                if not display.is_gone(err):
                    raise
        sent = await bot.send_message(chat_id=chat_id, text=text, reply_markup=markup)
        if has_buttons(markup):
            await remember_home(d.storage, f"{chat_id}:{sent.message_id}", button_homes.menu(chat_id))
        return True
    except Forbidden as err:
        log.info("chat %s does not accept messages (%s)", chat_id, err.message)
        return False
    except BadRequest as err:
        if "chat not found" in err.message.lower():
            log.info("chat %s is gone (%s)", chat_id, err.message)
            return False
        log.warning("could not tell chat %s about its quick match: %s", chat_id, err.message)
        return True
    except TelegramError as err:
        log.warning("could not tell chat %s about its quick match: %r", chat_id, err)
        return True


def tell(d: Deps, seeker: Seeker, text: str, markup: InlineKeyboardMarkup | None = None) -> None:
    """Say how a search went, on its waiting message (in the background)."""
    uid = seeker.person.user_id
    d.outbox.post(uid, lambda: edit_or_send(d, uid, seeker.message_id, text, markup), "a quick-match message")


def tell_found(d: Deps, seeker: Seeker, table: Table) -> None:
    """The search of `seeker` found an opponent: the game `table` is on."""
    side = table.side_of(seeker.person.user_id)
    if side is None:
        return
    t = texts(seeker.person.lang)
    name = table.players[side.other].name
    tell(d, seeker, t.gettext(FOUND, name=name, variant=variant_name(t, table.game.game)))


def tell_busy(d: Deps, seeker: Seeker) -> None:
    """The search of `seeker` ended because they started another game."""
    tell(d, seeker, texts(seeker.person.lang).gettext(ENDED_BUSY))


def show_waiting(d: Deps, seeker: Seeker) -> None:
    """The waiting message with Stop searching, in the background. If the chat takes no messages (403) the
    search ends at once; if it ended while this was on its way (another worker paired them and said so first),
    the message is made to say how it ended, so it never shows Stop searching for a search that is over."""
    uid = seeker.person.user_id
    t = texts(seeker.person.lang)
    minutes = max(1, math.ceil(d.seek_timeout / 60))
    text = t.gettext(WAITING, variant=variant_name(t, seeker.game), minutes=minutes)

    async def send() -> None:
        reached = await edit_or_send(d, uid, seeker.message_id, text, seek_markup(t, uid, seeker.token))
        try:
            if not reached:
                if await d.storage.rooms.stop_seek(uid, seeker.token) is not None:
                    log.info("user %s cannot be reached: their search ended", uid)
                return
            current = await d.storage.rooms.search_of(uid)
            if current is not None and current.token == seeker.token:
                return
            table = await active_game(d.storage, uid)
            side = None if table is None or table.mode != MODE else table.side_of(uid)
            if table is not None and side is not None:
                found = t.gettext(
                    FOUND, name=table.players[side.other].name, variant=variant_name(t, seeker.game)
                )
                await edit_or_send(d, uid, seeker.message_id, found)
            else:
                await edit_or_send(d, uid, seeker.message_id, t.gettext(SEARCH_OVER))
        except StorageError as err:
            log.warning("user %s: could not check their search after the waiting message: %s", uid, err)

    d.outbox.post(uid, send, "a quick-match waiting message")


def told(d: Deps, news: SearchNews) -> None:
    """The service's news of a search (Services.searched): its waiting message says how it went."""
    seeker = news.seeker
    t = texts(seeker.person.lang)
    if news.kind == "found" and news.table is not None:
        tell_found(d, seeker, news.table)
    elif news.kind == "busy":
        tell_busy(d, seeker)
    elif news.kind == "stopped":
        tell(d, seeker, t.gettext(STOPPED))
    elif news.kind == "timed_out":
        tell(
            d,
            seeker,
            t.gettext(TIMED_OUT, variant=variant_name(t, seeker.game)),
            seek_over_markup(t, seeker.person.user_id, seeker.game),
        )


# ---------------------------------------------------------------------- the buttons


@button
async def on_find(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """🎲 Find an opponent (or Look again): paired at once with someone waiting, or waiting in the queue."""
    menu_owner(cb, query)
    message = message_of(query)
    if message.chat.id != query.from_user.id:
        raise BadCallback(f"a quick match pressed outside the private chat of {query.from_user.id}")
    d = deps(context)
    me = Seeker(person(query.from_user), cb.variant, d.clock(), new_id(), message.message_id)
    if await service.find_opponent(d, me) is None:  # paired: both are told (told) and the boards drawn
        show_waiting(d, me)
    return None


@button
async def on_stop(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """✖ Stop searching: this search ends (if it still runs)."""
    menu_owner(cb, query)
    message = message_of(query)
    d = deps(context)
    await service.stop(d, query.from_user.id, cb.token)
    d.edit_text(message.chat.id, message.message_id, t.gettext(STOPPED))
    return None


async def stop_search(d: Deps, user_id: int) -> bool:
    """/cancel, /forget: the user's search ends (its waiting message says so). True if there was one."""
    return await service.stop_any(d, user_id)


# ---------------------------------------------------------------------- the timeout


class Sweeper(Sweeping):
    """Ends the searches that waited `d.seek_timeout` seconds. Every worker runs one; the script hands each
    expired search to exactly one of them, which tells its player (the computer at a level, or look again)."""

    name = "quick-match-sweeper"
    batch = SWEEP_BATCH

    def __init__(self, d: Deps, every: float | None = None) -> None:
        super().__init__(every if every is not None else min(SWEEP_EVERY, max(0.05, d.seek_timeout / 10)))
        self.d = d
        self.ended = 0  # searches this worker ended (tests)

    async def sweep(self) -> int:
        """End the searches due now (their players are told: told); returns how many this worker took."""
        taken = await service.end_expired(self.d, SWEEP_BATCH)
        self.ended += taken
        return taken
