"""Tournaments in a group (bot/service/tournaments.py does the work): /tournament's menu, the card's Join,
Leave, Start and Cancel, the deep link that signs up from the bot's private chat, and the sweeper that moves
every tournament on (its start and end on time, its ended games, new pairings) and keeps its card current.

The group hears little: one card, edited in place at most once every CARD_EVERY seconds (a group may get 20
messages a minute), and one message at the end. The games go to the players' private chats, on the usual
boards (bot/telegram/boards.py)."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable

from telegram import CallbackQuery, Update
from telegram.constants import ChatType
from telegram.error import BadRequest, TelegramError
from telegram.ext import ContextTypes

from bot.i18n import Texts, texts
from bot.model.flow import Refused
from bot.model.tournament import Tournament
from bot.service import tournaments
from bot.storage import StorageError
from bot.telegram import button_homes, display, tourney_pictures
from bot.telegram.callbacks import BadCallback, Callback
from bot.telegram.handlers.common import (
    N_,
    Deps,
    button,
    command,
    deps,
    menu_owner,
    message_of,
    person,
    user_texts,
)
from bot.telegram.names import display_name
from bot.telegram.sweeping import Sweeping
from bot.telegram.tourney_cards import card_markup, card_text, chosen, menu_step, podium_text

log = logging.getLogger(__name__)

LOOK_EVERY = 0.5  # seconds between two looks for tournaments due
CARD_EVERY = 4.0  # seconds between two edits of a group's card (Telegram: 20 messages a minute per group)
TOURNEYS_KEY = "nardy.tourneys"  # application.bot_data: this worker's Tourneys (bot/telegram/app.py)
START_PREFIX = "t_"  # /start t_<tournament id>: the deep link that signs up
# A card's deep link is the prefix and a tournament id (new_id(): 10 characters). An invitation's token
# (new_id(12): 16 characters) may begin with "t_" too, so the link is told apart by its whole shape.
TOURNEY_LINK = re.compile(START_PREFIX + r"[A-Za-z0-9_-]{10}")


def is_tourney_link(payload: str) -> bool:
    """Whether /start's payload is a tournament card's deep link (else: an invitation's token)."""
    return TOURNEY_LINK.fullmatch(payload) is not None


GROUPS_ONLY = N_("Tournaments are for groups: add me to a group and send /tournament there.")
NO_LAST = N_("This group has no finished tournament in the last 30 days.")
SIGNED_UP = N_("You are signed up for the tournament in {group}. Your games will come here.")
LEFT = N_("You left the tournament.")
ADMINS_ONLY = N_("Only the group's administrators can create a tournament here.")
ONLY_ADMINS_NOW = N_("From now on only the group's administrators can create tournaments here.")
ANYONE_NOW = N_("From now on anyone in the group can create tournaments here.")
NOT_ADMIN = N_("Only an administrator of the group can change that.")
BACK = N_("You are back in the arena: you will be paired again.")


def bot_name(d: Deps) -> str:
    return d.boards.bot.username or "bot"


# ---------------------------------------------------------------------- the menu


@command
async def tournament_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/tournament in a group: the live tournament's card again, or the menu of a new one; /tournament last:
    the last finished one."""
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    d = deps(context)
    t = user_texts(update)
    if chat.type == ChatType.PRIVATE:
        d.say(chat.id, t.gettext(GROUPS_ONLY))
        return
    if context.args and context.args[0] in ("admins", "anyone"):
        if not await is_admin(context, chat.id, user.id):
            raise Refused(NOT_ADMIN)
        only = context.args[0] == "admins"
        await d.storage.tournaments.set_admins_only(chat.id, only)
        d.say(chat.id, t.gettext(ONLY_ADMINS_NOW if only else ANYONE_NOW))
        return
    if context.args and context.args[0] == "last":
        last = await d.storage.tournaments.last_of_chat(chat.id)
        if last is None:
            d.say(chat.id, t.gettext(NO_LAST))
            return
        lt = texts(last.lang)
        d.say(chat.id, card_text(lt, last, d.clock()))
        return
    live = await d.storage.tournaments.of_chat(chat.id)
    if live is not None:
        d.spawn(new_card(d, live), f"card of tournament {live.id}")
        return
    await may_create(context, d, chat.id, user.id)
    step = menu_step(t, user.id, "")
    assert step is not None
    d.say(chat.id, step[0], step[1], home=button_homes.menu(user.id))


@button
async def on_menu(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """A choice in /tournament's menu: the next question, or, all chosen, the tournament and its card."""
    menu_owner(cb, query)
    message = message_of(query)
    d = deps(context)
    step = menu_step(t, cb.user, cb.choice)
    if step is not None:
        d.edit_text(message.chat.id, message.message_id, *step)
        return None
    try:
        kind, fmt, minutes, start_in = chosen(cb.choice)
    except ValueError as err:
        raise BadCallback(str(err)) from None
    await may_create(context, d, message.chat.id, cb.user)
    title = display_name(getattr(message.chat, "title", None) or "", "") or None
    tour = await tournaments.create(
        d, message.chat.id, title, person(query.from_user), kind, fmt, minutes, start_in
    )
    await d.storage.users.set_home(f"{message.chat.id}:{message.message_id}", button_homes.tourney(tour.id))
    tour = await tournaments.change(d, tour.id, lambda x: x.with_card(message.message_id))
    cards(context)(tour)
    return None


# ---------------------------------------------------------------------- the card


def cards(context: ContextTypes.DEFAULT_TYPE) -> Callable[[Tournament], None]:
    """What shows a tournament's card in this worker (its Tourneys' show)."""
    found = context.bot_data[TOURNEYS_KEY]
    assert isinstance(found, Tourneys)
    return found.show


def show_card(d: Deps, tour: Tournament, pending: set[str]) -> None:
    """Have the group's card show the tournament as it stands when the edit goes out: at most one edit of a
    card waits in this worker's queue for its group (`pending`: the ids of those), and it reads the newest
    record when its turn comes, so 300 Join presses at once make a few edits, the last one right (the group
    may get 20 messages a minute)."""
    if tour.card is None:
        return
    if tour.id in pending:
        return
    pending.add(tour.id)
    bot, tourney_id = d.boards.bot, tour.id

    async def send() -> None:
        pending.discard(tourney_id)
        now = await d.storage.tournaments.load(tourney_id)
        if now is None or now.card is None:
            return
        lt = texts(now.lang)
        await display.edit_text(
            bot,
            now.chat_id,
            now.card,
            card_text(lt, now, d.clock()),
            card_markup(lt, now, bot_name(d), d.boards.links),
        )

    if not d.outbox.post(tour.chat_id, send, "a tournament's card"):
        pending.discard(tourney_id)


async def new_card(d: Deps, tour: Tournament) -> None:
    """A new card for `tour` at the bottom of the group (/tournament while one is on): the old one stops being
    edited and loses its buttons."""
    lt = texts(tour.lang)
    message_id = await display.say(
        d.boards.bot,
        tour.chat_id,
        card_text(lt, tour, d.clock()),
        card_markup(lt, tour, bot_name(d), d.boards.links),
    )
    if message_id is None:
        return
    await d.storage.users.set_home(f"{tour.chat_id}:{message_id}", button_homes.tourney(tour.id))
    old = tour.card
    tour = await tournaments.change(d, tour.id, lambda x: x.with_card(message_id))
    if old is not None and old != message_id:
        d.edit_markup(tour.chat_id, old, None)


@button
async def on_join(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Join (or, paused in an arena, come back)."""
    d = deps(context)
    me = person(query.from_user)
    tour = await tournaments.join(d, cb.token, me)
    cards(context)(tour)
    if tour.stage == "running":
        return t.gettext(BACK)
    d.say(me.user_id, t.gettext(SIGNED_UP, group=tour.title or "?"))
    return None


@button
async def on_leave(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    d = deps(context)
    cards(context)(await tournaments.leave(d, cb.token, query.from_user.id))
    return t.gettext(LEFT)


@button
async def on_start(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """The creator starts it now: the first games go to the players' private chats."""
    d = deps(context)
    tour = await tournaments.start(d, cb.token, query.from_user.id)
    cards(context)(tour)
    d.spawn(start_games(d, tour), f"the first games of tournament {tour.id}")  # after the answer: 100 games

    return None


async def start_games(d: Deps, tour: Tournament) -> None:
    started = await tournaments.start_games(d, tour)
    log.info("tournament %s started by its creator: %d games", tour.id, len(started))


@button
async def on_cancel(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """The creator, or an administrator of the group, cancels it."""
    d = deps(context)
    message = message_of(query)
    tour = await d.storage.tournaments.load(cb.token)
    admin = (
        tour is not None
        and tour.creator.user_id != query.from_user.id
        and await is_admin(context, message.chat.id, query.from_user.id)
    )
    cards(context)(await tournaments.cancel(d, cb.token, query.from_user.id, admin))
    return None


async def may_create(context: ContextTypes.DEFAULT_TYPE, d: Deps, chat_id: int, user_id: int) -> None:
    """Refused where the group lets only its administrators create a tournament and `user_id` is not one."""
    if await d.storage.tournaments.admins_only(chat_id) and not await is_admin(context, chat_id, user_id):
        raise Refused(ADMINS_ONLY)


async def is_admin(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> bool:
    """Whether `user_id` administers the group (getChatMember; an error: not as far as we know)."""
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError as err:
        log.info("chat %s: could not ask whether %s is an administrator: %s", chat_id, user_id, err)
        return False
    return member.status in ("administrator", "creator")


async def join_from_link(update: Update, context: ContextTypes.DEFAULT_TYPE, tourney_id: str) -> None:
    """/start t_<id> in the private chat: the deep link of a card signs its presser up."""
    assert update.effective_user is not None
    d = deps(context)
    t = user_texts(update)
    me = person(update.effective_user)
    try:
        tour = await tournaments.join(d, tourney_id, me)
    except Refused as refusal:
        d.say(me.user_id, t.gettext(refusal.msgid, **refusal.params))
        return
    cards(context)(tour)
    d.say(me.user_id, t.gettext(SIGNED_UP, group=tour.title or "?"))


# ---------------------------------------------------------------------- the sweeper


def announce(d: Deps, tour: Tournament) -> None:
    """The one last message in the group: the bracket or the podium as a picture, the places under it (the
    places alone if the picture cannot be drawn or sent)."""
    lt = texts(tour.lang)
    caption = podium_text(lt, tour)
    bot = d.boards.bot

    async def send() -> None:
        try:
            photo, tall = await asyncio.to_thread(tourney_pictures.picture, lt.for_picture(), tour)
        except Exception:  # a picture that cannot be drawn costs the picture, not the message
            log.exception("tournament %s: its picture could not be drawn", tour.id)
            photo, tall = None, False
        if photo is not None:
            try:
                if tall:  # a 64-player bracket: a document, so that Telegram does not shrink it
                    await bot.send_document(tour.chat_id, photo, caption=caption, filename="bracket.png")
                else:
                    await bot.send_photo(tour.chat_id, photo, caption=caption)
                return
            except BadRequest as err:  # the picture refused: the places alone
                log.warning("tournament %s: its picture was not sent: %s", tour.id, err)
            except TelegramError as err:  # it may have gone (a timeout), or nothing can go: no second message
                log.warning("tournament %s: its last message may not have been sent: %s", tour.id, err)
                return
        await display.say(bot, tour.chat_id, caption)

    d.outbox.post(tour.chat_id, send, "a tournament's last message")


class Tourneys(Sweeping):
    """Moves every tournament on when it is due (one runs in every worker; a compare-and-set decides)."""

    name = "tournaments"
    batch = 100

    def __init__(self, d: Deps, every: float = LOOK_EVERY) -> None:
        super().__init__(every)
        self.d = d
        self.cards: dict[str, str] = {}  # tournament id -> the card text this worker last sent
        self.pending: set[str] = set()  # tournament ids whose card has an edit queued in this worker

    async def sweep(self) -> int:
        d = self.d
        due = await d.storage.tournaments.due(d.clock(), self.batch)
        for tourney_id in due:
            try:
                await self.look(tourney_id)
            except StorageError:
                raise
            except Exception:  # one broken tournament does not stall the others (it is due again soon)
                log.exception("tournament %s: a look failed", tourney_id)
        return len(due)

    async def look(self, tourney_id: str) -> None:
        d = self.d
        before, after, _ = await tournaments.advance(d, tourney_id)
        if before is None or after is None:
            return
        ended = before.live and not after.live
        if ended or await d.storage.limits.once(f"tcard:{tourney_id}", CARD_EVERY):
            self.refresh(after)
        if ended:
            self.cards.pop(tourney_id, None)
            if after.stage == "over":
                announce(d, after)

    def refresh(self, tour: Tournament) -> None:
        """Edit the card if what it says changed since this worker last edited it."""
        if tour.card is None:
            return
        text = card_text(texts(tour.lang), tour, self.d.clock())
        if self.cards.get(tour.id) == text:
            return
        self.cards[tour.id] = text
        self.show(tour)

    def show(self, tour: Tournament) -> None:
        show_card(self.d, tour, self.pending)
