"""Quick match: a stranger to play (`/newgame` → variant → 🎲 Find an opponent, in a private chat).

The search lives in Redis (bot/storage/rooms.py): a sorted set per variant of the users looking, scored by when they
began, and each one's search record (Seeker: variant, waiting message, name, language, since, token). A press
pairs in two atomic steps, neither of which can lose anyone:
1. one script (RoomStore.seek, bot/storage/rooms.py) reads the queue, oldest first, dropping entries whose search ended and seekers
   who started another game meanwhile (they are told); the first live seeker is the partner, left in the
   queue; with nobody there the presser is queued in that same step, so of two people pressing at once the
   second always finds the first (a queue never holds two live seekers);
2. the game is created by the one save script (RoomStore.start_from_seek), which consumes the partner's search
   record: Gone when that search ended first (paired with someone else, stopped, timed out), and the presser
   looks again; ChatBusy when one of the two started another game (the presser is refused, or the partner's
   search ends and they are told, and the presser looks again).
Nobody leaves a queue except in the step that ends their search; a player is in one live game at most (the
chat pointers of the save script). The game is an ordinary game of two private chats (mode "match").

A sweeper in every worker ends the searches that waited NARDY_SEEK_TIMEOUT seconds: one script takes each
out, so exactly one worker tells its player (with an offer to play the computer, or to look again). The
queue's scores are join times, so a restart loses no wait and ends none early.

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
from bot.model import flow
from bot.model.flow import Refused
from bot.model.table import Seeker, Table, new_id
from bot.service.context import game_seeds
from bot.storage import ChatBusy, Gone, StorageError, VersionConflict
from bot.storage.keys import SEEK_GRACE
from bot.telegram import button_homes, display
from bot.telegram.callbacks import BadCallback, Callback
from bot.telegram.handlers.common import (
    GAME_ON,
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

MODE = "match"
MAX_TRIES = 50  # looks of one press: each failed one means another press was paired meanwhile
SWEEP_EVERY = 5.0  # seconds between two sweeps (less with a short timeout: a tenth of it)
SWEEP_BATCH = 100  # searches one sweep ends per variant (a full batch: the next sweep comes at once)

WAITING = N_(
    "🎲 {variant}: looking for an opponent… You will get a message here as soon as someone is found "
    "(at most {minutes} min)."
)
FOUND = N_("🎲 Opponent found: {name}. {variant}: the game is on, your board is below.")
STOPPED = N_("You stopped searching. Send /newgame to play.")
SEARCH_OVER = N_("This search is over. Send /newgame to play.")
ALREADY_PAIRED = N_("An opponent has already been found: your game is on.")
ALREADY_SEEKING = N_("You are already looking for an opponent. Wait for one, or press Stop searching.")
TOO_MANY = N_("Many players are looking right now. Press again, please.")
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


# ---------------------------------------------------------------------- pairing


async def find_opponent(d: Deps, me: Seeker) -> Table | None:
    """Pair `me` with the longest-waiting live seeker of the variant (the game is created: returned), or queue
    them (None). Refused when they have a live game or are looking already."""
    uid = me.person.user_id
    for _ in range(MAX_TRIES):
        outcome = await d.storage.rooms.seek(me, d.seek_timeout + SEEK_GRACE)
        for dropped in outcome.dropped:
            tell_busy(d, dropped)
        if outcome.kind == "busy":
            raise Refused(GAME_ON)
        if outcome.kind == "seeking":
            raise Refused(ALREADY_SEEKING)
        if outcome.kind == "queued":
            return None
        partner = outcome.other
        assert partner is not None
        table = await flow.start_table(
            flow.new_game_id(),
            MODE,
            me.game,
            partner.person,
            me.person,
            partner.person.lang,
            d.dice,
            d.computer,
            seeds=await game_seeds(d, partner.person, me.person),
        )
        table = d.stamped(table)
        try:
            await d.storage.rooms.start_from_seek(partner, table)
        except (Gone, VersionConflict):  # their search ended first (or, never seen, the id was taken)
            continue
        except ChatBusy:
            if await active_game(d.storage, uid) is not None:
                raise Refused(GAME_ON) from None  # the partner was not touched: they wait on
            if await active_game(d.storage, partner.person.user_id) is not None:
                ended = await d.storage.rooms.stop_seek(partner.person.user_id, partner.token)
                if ended is not None:
                    tell_busy(d, ended)
            continue
        tell_found(d, partner, table)
        return table
    raise Refused(TOO_MANY)


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
    table = await find_opponent(d, me)
    if table is None:
        show_waiting(d, me)
        return None
    tell_found(d, me, table)
    d.boards.show(table)
    return None


@button
async def on_stop(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """✖ Stop searching: this search ends (if it still runs)."""
    menu_owner(cb, query)
    message = message_of(query)
    d = deps(context)
    uid = query.from_user.id
    if await d.storage.rooms.stop_seek(uid, cb.token) is None:
        table = await active_game(d.storage, uid)
        if table is not None and table.mode == MODE:
            raise Refused(ALREADY_PAIRED)
        raise Refused(SEARCH_OVER)
    d.edit_text(message.chat.id, message.message_id, t.gettext(STOPPED))
    return None


async def stop_search(d: Deps, user_id: int) -> bool:
    """/cancel, /forget: the user's search ends (its waiting message says so). True if there was one."""
    ended = await d.storage.rooms.stop_seek(user_id)
    if ended is None:
        return False
    tell(d, ended, texts(ended.person.lang).gettext(STOPPED))
    return True


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
        """End the searches due now; returns how many this worker took."""
        d = self.d
        expired = await d.storage.rooms.expire_seekers(d.clock() - d.seek_timeout, SWEEP_BATCH)
        for seeker, game_id in expired:
            if game_id is not None:
                tell_busy(d, seeker)
                continue
            t = texts(seeker.person.lang)
            tell(
                d,
                seeker,
                t.gettext(TIMED_OUT, variant=variant_name(t, seeker.game)),
                seek_over_markup(t, seeker.person.user_id, seeker.game),
            )
        self.ended += len(expired)
        return len(expired)
