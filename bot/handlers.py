"""Telegram handlers: they translate updates into flow calls and tables into messages. No game rules here."""

from __future__ import annotations

import functools
import logging
import time
import unicodedata
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, replace
from typing import Any

from telegram import CallbackQuery, MaybeInaccessibleMessage, Update, User
from telegram.constants import ChatType
from telegram.error import BadRequest, NetworkError, TimedOut
from telegram.ext import ContextTypes

from bot import callbacks, display, flow
from bot.callbacks import BadCallback, Callback
from bot.captions import level_name, variant_name
from bot.config import DEFAULT_CLAIM_AFTER
from bot.flow import ComputerPlayer, DiceSource, Refused
from bot.i18n import Texts, texts
from bot.keyboards import (
    LEVELS,
    claim_markup,
    forget_markup,
    invite_markup,
    level_menu,
    lobby_markup,
    opponent_menu,
    resign_markup,
    variant_menu,
)
from bot.storage import Storage, StorageUnavailable, VersionConflict
from bot.table import Invite, Lobby, Person, Table, new_id

log = logging.getLogger(__name__)


def N_(message: str) -> str:
    """Marks a message id for extraction into the catalog; translated later with Texts.gettext."""
    return message


TRY_AGAIN = N_("The game storage is not available right now. Please try again in a minute.")
WENT_WRONG = N_("Something went wrong. Please try again.")
RULES_TEXT = N_(
    "Short nardy (backgammon): 15 checkers each, moving in opposite directions. A single checker can be "
    "hit and goes to the bar; it must enter before anything else moves. A point with two or more of the "
    "opponent's checkers is closed. Bring all checkers home, then bear them off.\n\n"
    "Long nardy: all 15 checkers start on the head and both players move the same way round. There is no "
    "hitting: one checker of the opponent closes a point. Only one checker leaves the head per turn "
    "(except 6-6, 4-4 or 3-3 on the first turn). You may not build six points in a row unless an opponent's "
    "checker is already ahead of them.\n\n"
    "Both games: use both dice if you can (doubles count four times); if only one can be played, play the "
    "larger if possible. Scores: oin 1 point; mars 2 (the loser bore off nothing); in short nardy koks 3 "
    "(the loser also has a checker on the bar or in the winner's home)."
)


@dataclass
class Deps:
    """What the handlers need, kept in application.bot_data["nardy"]."""

    storage: Storage
    dice: DiceSource
    computer: ComputerPlayer
    claim_after: float = DEFAULT_CLAIM_AFTER  # seconds of idleness before the opponent may claim
    clock: Callable[[], float] = time.time  # the bot's clock (the engine never reads one)

    def stamped(self, table: Table) -> Table:
        """`table` with the time of this change (the idle-claim clock starts again)."""
        return replace(table, moved_at=self.clock())


def deps(context: ContextTypes.DEFAULT_TYPE) -> Deps:
    found = context.bot_data["nardy"]
    assert isinstance(found, Deps)
    return found


NAME_LIMIT = 32  # a caption repeats names up to six times; Telegram caps captions at 1024 characters
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn"}
_KEEP = {"\u200d"}  # the zero-width joiner holds emoji sequences together


def display_name(raw: str, fallback: str) -> str:
    """A name fit for captions: no control or bidi characters, whitespace collapsed, at most NAME_LIMIT long."""
    visible = "".join(ch for ch in raw if ch in _KEEP or unicodedata.category(ch) not in _INVISIBLE)
    name = " ".join(visible.split()) or fallback
    return name if len(name) <= NAME_LIMIT else name[: NAME_LIMIT - 1].rstrip() + "…"


def person(user: User) -> Person:
    return Person(
        user.id,
        display_name(user.first_name or user.username or "", str(user.id)),
        texts(user.language_code).lang,
    )


def user_texts(update: Update) -> Texts:
    user = update.effective_user
    return texts(user.language_code if user else None)


# ---------------------------------------------------------------------- the two guards

Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]
CallbackBody = Callable[
    [Update, ContextTypes.DEFAULT_TYPE, CallbackQuery, Callback, Texts], Awaitable[str | None]
]


def command(fn: Handler) -> Handler:
    """A command handler: Refused -> the translated reason; Redis down -> "try again"; else on_error."""

    @functools.wraps(fn)
    async def wrapper(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        t = user_texts(update)
        chat = update.effective_chat
        try:
            await fn(update, context)
        except Refused as refusal:
            if chat:
                await display.say(context.bot, chat.id, t.gettext(refusal.msgid, **refusal.params))
        except StorageUnavailable:
            log.exception("storage unavailable in %s", fn.__name__)
            if chat:
                await display.say(context.bot, chat.id, t.gettext(TRY_AGAIN))

    return wrapper


def button(fn: CallbackBody) -> Handler:
    """A callback handler: decodes the data, and always answers the query (with an alert when refused)."""

    @functools.wraps(fn)
    async def wrapper(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        t = user_texts(update)
        alert: str | None = None
        try:
            alert = await fn(update, context, query, callbacks.decode(query.data), t)
        except BadCallback as err:
            log.info("bad callback data from user %s: %s", query.from_user.id, err)
            alert = t.gettext("This button is not valid.")
        except Refused as refusal:
            alert = t.gettext(refusal.msgid, **refusal.params)
        except VersionConflict:
            alert = t.gettext("Someone was quicker. Look at the board again.")
        except StorageUnavailable:
            log.exception("storage unavailable in %s", fn.__name__)
            alert = t.gettext(TRY_AGAIN)
        except Exception:
            alert = t.gettext(WENT_WRONG)
            raise  # on_error logs it with the update
        finally:
            await _answer(query, alert)

    return wrapper


async def _answer(query: CallbackQuery, alert: str | None) -> None:
    """Answer a press; a dropped connection is retried once (the press is done either way)."""
    for attempt in (1, 2):
        try:
            await query.answer(alert, show_alert=bool(alert))
            return
        except BadRequest as err:  # an old query, answered already
            log.warning("could not answer callback query %s: %s", query.id, err.message)
            return
        except NetworkError as err:
            if attempt == 2 or isinstance(err, TimedOut):
                log.warning("could not answer callback query %s: %s", query.id, err)
                return
        except Exception:  # anything else: the press is done either way
            log.warning("could not answer callback query %s", query.id, exc_info=True)
            return


# ---------------------------------------------------------------------- commands


@command
async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/start, and /start <token> from an invitation link."""
    t = user_texts(update)
    assert update.effective_chat is not None and update.effective_user is not None
    if context.args and update.effective_chat.type == ChatType.PRIVATE:
        await accept_invite(update, context, context.args[0])
        return
    await display.say(
        context.bot,
        update.effective_chat.id,
        t.gettext(
            "Hello! I am a nardy bot: short nardy (backgammon) and long nardy, with a friend "
            "or against the computer."
        )
        + "\n\n"
        + help_text(t),
    )


def help_text(t: Texts) -> str:
    return t.gettext(
        "/newgame: start a game (in a group: anyone can join; here: the computer or a friend)\n"
        "/resign: give up the current game\n"
        "/cancel: withdraw an open game or invitation\n"
        "/claim: claim the win when your opponent has not moved for a long time\n"
        "/forget: delete your data from the bot\n"
        "/rules: the rules of both games\n\n"
        "On your turn, press the buttons under the board: each one moves a checker (13→7; ⌂ bears off). "
        "↩ Undo takes a move back, ✅ Done ends the turn. Moves that are forced are played by themselves."
    )


@command
async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/help: how to play, in a few lines."""
    assert update.effective_chat is not None
    await display.say(context.bot, update.effective_chat.id, help_text(user_texts(update)))


@command
async def unknown_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A command the bot does not know (private chats only: groups are left in peace)."""
    assert update.effective_chat is not None
    await display.say(
        context.bot, update.effective_chat.id, user_texts(update).gettext("I don't know that command. /help lists what I can do.")
    )


@command
async def rules_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/rules: both games in brief."""
    t = user_texts(update)
    assert update.effective_chat is not None
    await display.say(
        context.bot,
        update.effective_chat.id,
        t.gettext(RULES_TEXT),
    )


async def _active_game(storage: Storage, chat_id: int) -> Table | None:
    table = await storage.game_of_chat(chat_id)
    return table if table is not None and not table.over else None


@command
async def newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/newgame: the variant menu (short or long)."""
    t = user_texts(update)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    d = deps(context)
    table = await _active_game(d.storage, chat.id)
    if table is not None:  # show the board again (in case it was lost), then say why no new game
        await display.repost(context.bot, d.storage, table, chat.id)
        await display.say(
            context.bot, chat.id, t.gettext("A game is already going on here. Finish it or /resign first.")
        )
        return
    await display.say(context.bot, chat.id, t.gettext("Which game?"), variant_menu(t, user.id))


@command
async def resign_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/resign: ask for confirmation."""
    t = user_texts(update)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    table = await _active_game(deps(context).storage, chat.id)
    if table is None:
        raise Refused("There is no game going on here.")
    if table.side_of(user.id) is None:
        raise Refused("You are not playing in this game.")
    await display.say(
        context.bot,
        chat.id,
        t.gettext("{name}, do you really want to resign this game?", name=user.first_name),
        resign_markup(t, table.id, table.number, user.id),
    )


@command
async def cancel_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/cancel: withdraw your open lobby (group) or invitation (private chat)."""
    t = user_texts(update)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    storage = deps(context).storage
    if chat.type == ChatType.PRIVATE:
        invite = await storage.cancel_invite(user.id)
        if invite is None:
            raise Refused("You have no open invitation.")
        if invite.message_id is not None:
            await display.edit_text(
                context.bot, chat.id, invite.message_id, t.gettext("The invitation was withdrawn.")
            )
        await display.say(context.bot, chat.id, t.gettext("The invitation was withdrawn."))
        return
    lobby = await storage.lobby(chat.id)
    if lobby is None:
        raise Refused("There is no open game to cancel.")
    if lobby.starter.user_id != user.id:
        raise Refused("Only {name} can cancel this game.", name=lobby.starter.name)
    if await storage.close_lobby(chat.id, lobby.id) and lobby.message_id is not None:
        await display.edit_text(
            context.bot,
            chat.id,
            lobby.message_id,
            texts(lobby.starter.lang).gettext("The game was cancelled."),
        )
    else:
        await display.say(context.bot, chat.id, t.gettext("The game was cancelled."))


# ---------------------------------------------------------------------- new game menus


def _message_of(query: CallbackQuery) -> MaybeInaccessibleMessage:
    """The message under the pressed button; a press without one (an inline message) is not ours."""
    if query.message is None:
        raise BadCallback(f"callback {query.data!r} came without its message")
    return query.message


def _menu_owner(cb: Callback, query: CallbackQuery) -> None:
    if cb.user != query.from_user.id:
        raise Refused("This menu belongs to someone else. Send /newgame to start your own game.")


@button
async def on_variant(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """The variant was picked: a group gets a lobby; a private chat picks the opponent."""
    _menu_owner(cb, query)
    message = _message_of(query)
    storage = deps(context).storage
    if message.chat.type == ChatType.PRIVATE:
        await display.edit_text(
            context.bot,
            message.chat.id,
            message.message_id,
            t.gettext("{variant}: who will you play?", variant=variant_name(t, cb.variant)),
            opponent_menu(t, cb.user, cb.variant),
        )
        return None
    if await _active_game(storage, message.chat.id) is not None:
        raise Refused("A game is already going on here. Finish it or /resign first.")
    lobby = Lobby(
        id=new_id(),
        chat_id=message.chat.id,
        game=cb.variant,
        starter=person(query.from_user),
        message_id=message.message_id,
    )
    await storage.open_lobby(lobby)
    await display.edit_text(
        context.bot,
        message.chat.id,
        message.message_id,
        t.gettext(
            "{name} wants to play {variant}. Who will play? Press Join.",
            name=lobby.starter.name,
            variant=variant_name(t, cb.variant),
        ),
        lobby_markup(t, lobby.id),
    )
    return None


@button
async def on_join(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Someone joined a group lobby: the game starts on a new board message."""
    message = _message_of(query)
    d = deps(context)
    lobby = await d.storage.lobby(message.chat.id)
    if lobby is None or lobby.id != cb.lobby:
        if await d.storage.load(cb.lobby) is not None:
            raise Refused("This game already has two players.")
        raise Refused("This game is no longer open.")
    if lobby.starter.user_id == query.from_user.id:
        raise Refused("Wait for someone else to join your game.")
    if await _active_game(d.storage, message.chat.id) is not None:
        raise Refused("A game is already going on here. Finish it or /resign first.")
    table = await flow.start_table(
        lobby.id,
        "group",
        lobby.game,
        lobby.starter,
        person(query.from_user),
        lobby.starter.lang,
        d.dice,
        d.computer,
        chat_id=message.chat.id,
    )
    table = d.stamped(table)
    if not await d.storage.start_from_lobby(lobby, table):
        raise Refused("This game already has two players.")
    lt = texts(lobby.starter.lang)
    await display.edit_text(
        context.bot,
        message.chat.id,
        message.message_id,
        lt.gettext(
            "{variant}: {white} vs {black}. The game is on!",
            variant=variant_name(lt, lobby.game),
            white=table.players[0].name,
            black=table.players[1].name,
        ),
    )
    await display.show(context.bot, d.storage, table)
    return None


@button
async def on_cancel_lobby(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """The starter cancels the lobby."""
    message = _message_of(query)
    storage = deps(context).storage
    lobby = await storage.lobby(message.chat.id)
    if lobby is None or lobby.id != cb.lobby:
        raise Refused("This game is no longer open.")
    if lobby.starter.user_id != query.from_user.id:
        raise Refused("Only {name} can cancel this game.", name=lobby.starter.name)
    if not await storage.close_lobby(message.chat.id, lobby.id):
        raise Refused("This game is no longer open.")
    await display.edit_text(
        context.bot,
        message.chat.id,
        message.message_id,
        texts(lobby.starter.lang).gettext("The game was cancelled."),
    )
    return None


@button
async def on_opponent(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Private chat: the computer (then a level) or a friend (an invitation link)."""
    _menu_owner(cb, query)
    message = _message_of(query)
    if cb.who == "c":
        await display.edit_text(
            context.bot,
            message.chat.id,
            message.message_id,
            t.gettext("{variant} against the computer. Which level?", variant=variant_name(t, cb.variant)),
            level_menu(t, cb.user, cb.variant),
        )
        return None
    storage = deps(context).storage
    if await _active_game(storage, message.chat.id) is not None:
        raise Refused("A game is already going on here. Finish it or /resign first.")
    invite = Invite(
        token=new_id(12), game=cb.variant, starter=person(query.from_user), message_id=message.message_id
    )
    await storage.put_invite(invite)
    link = f"https://t.me/{context.bot.username}?start={invite.token}"
    await display.edit_text(
        context.bot,
        message.chat.id,
        message.message_id,
        t.gettext(
            "{variant} with a friend. Send them this link; the game starts when they "
            "open it (the link works once, for 24 hours):\n{link}",
            variant=variant_name(t, cb.variant),
            link=link,
        ),
        invite_markup(t, link, invite.token),
    )
    return None


@button
async def on_cancel_invite(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """The starter withdraws the invitation."""
    message = _message_of(query)
    storage = deps(context).storage
    invite = await storage.peek_invite(cb.token)
    if invite is None or invite.starter.user_id != query.from_user.id:
        raise Refused("This invitation is no longer open.")
    await storage.cancel_invite(query.from_user.id)
    await display.edit_text(
        context.bot, message.chat.id, message.message_id, t.gettext("The invitation was withdrawn.")
    )
    return None


@button
async def on_level(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """A game against the computer at the chosen level starts."""
    _menu_owner(cb, query)
    if cb.level not in LEVELS:
        raise BadCallback(f"unknown level {cb.level!r}")
    message = _message_of(query)
    d = deps(context)
    if await _active_game(d.storage, message.chat.id) is not None:
        raise Refused("A game is already going on here. Finish it or /resign first.")
    me = person(query.from_user)
    computer = Person(0, "computer", me.lang, level=cb.level)
    table = await flow.start_table(
        flow.new_game_id(), "computer", cb.variant, me, computer, me.lang, d.dice, d.computer
    )
    table = d.stamped(table)
    await d.storage.create(table)
    await display.edit_text(
        context.bot,
        message.chat.id,
        message.message_id,
        t.gettext(
            "{variant} against the computer ({level}). Good luck!",
            variant=variant_name(t, cb.variant),
            level=level_name(t, cb.level),
        ),
    )
    await display.show(context.bot, d.storage, table)
    return None


async def accept_invite(update: Update, context: ContextTypes.DEFAULT_TYPE, token: str) -> None:
    """A friend opened t.me/<bot>?start=<token>: the game starts in both private chats."""
    t = user_texts(update)
    user = update.effective_user
    assert user is not None
    d = deps(context)
    invite = await d.storage.peek_invite(token)
    if invite is None:
        raise Refused("This invitation has expired or was already used.")
    if invite.starter.user_id == user.id:
        raise Refused("This is your own invitation. Send the link to a friend.")
    if await _active_game(d.storage, user.id) is not None:
        raise Refused("A game is already going on here. Finish it or /resign first.")
    if await _active_game(d.storage, invite.starter.user_id) is not None:
        raise Refused("{name} is already playing another game.", name=invite.starter.name)
    taken = await d.storage.take_invite(token)
    if taken is None:
        raise Refused("This invitation has expired or was already used.")
    table = await flow.start_table(
        flow.new_game_id(),
        "friend",
        taken.game,
        taken.starter,
        person(user),
        taken.starter.lang,
        d.dice,
        d.computer,
    )
    table = d.stamped(table)
    await d.storage.create(table)
    await display.show(context.bot, d.storage, table)
    st = texts(taken.starter.lang)
    if taken.message_id is not None:
        await display.edit_text(
            context.bot,
            taken.starter.user_id,
            taken.message_id,
            st.gettext("{name} accepted your invitation. The game is on!", name=user.first_name),
        )
    await display.say(
        context.bot,
        user.id,
        t.gettext(
            "You are playing {variant} with {name}.",
            variant=variant_name(t, taken.game),
            name=taken.starter.name,
        ),
    )


# ---------------------------------------------------------------------- the board


async def _table(storage: Storage, game_id: str) -> Table:
    table = await storage.load(game_id)
    if table is None:
        raise Refused("This game is over or no longer exists.")
    return table


async def _commit(context: ContextTypes.DEFAULT_TYPE, old: Table, new: Table) -> None:
    d = deps(context)
    new = d.stamped(new)
    await d.storage.save(new)
    await display.show(context.bot, d.storage, new, previous=old)


@button
async def on_move(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """A single move of the player on turn."""
    table = await _table(deps(context).storage, cb.game)
    await _offer_claim(context, table, query, t)
    await _commit(context, table, flow.press_move(table, query.from_user.id, cb.version, cb.src, cb.die))
    return None


@button
async def on_undo(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Take back the last single move of this turn."""
    table = await _table(deps(context).storage, cb.game)
    await _offer_claim(context, table, query, t)
    await _commit(context, table, flow.press_undo(table, query.from_user.id, cb.version))
    return None


@button
async def on_done(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """End the turn; the opponent's dice are rolled (and the computer plays)."""
    d = deps(context)
    table = await _table(d.storage, cb.game)
    await _offer_claim(context, table, query, t)
    new = await flow.press_done(table, query.from_user.id, cb.version, d.dice, d.computer)
    await _commit(context, table, new)
    return None


@button
async def on_resign_answer(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Yes: the game ends, scored by the engine. No: the question goes away."""
    message = _message_of(query)
    _menu_owner(cb, query)
    d = deps(context)
    table = await _table(d.storage, cb.game)
    if table.side_of(query.from_user.id) is None:
        raise Refused("You are not playing in this game.")
    if cb.action == "rn":
        await display.edit_text(context.bot, message.chat.id, message.message_id, t.gettext("Play on!"))
        return None
    new = flow.resign(table, query.from_user.id, cb.number)
    await _commit(context, table, new)
    await display.edit_text(
        context.bot,
        message.chat.id,
        message.message_id,
        t.gettext("{name} resigned.", name=query.from_user.first_name),
    )
    return None


@button
async def on_rematch(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """The next game of the series, on new board messages."""
    d = deps(context)
    table = await _table(d.storage, cb.game)
    for chat_id in table.chats:
        current = await d.storage.game_of_chat(chat_id)
        if current is None or current.id != table.id:
            raise Refused("A new game has already started.")
    new = d.stamped(await flow.rematch(table, query.from_user.id, cb.version, d.dice, d.computer))
    await d.storage.save(new)
    await display.retire(context.bot, table)
    await d.storage.forget_messages(table.id)
    await display.show(context.bot, d.storage, replace(new, messages={}))
    return None


@button
async def on_unknown(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Any other button (callbacks.decode accepted it, but nothing routes it): not valid."""
    raise BadCallback(f"unrouted callback {query.data!r}")


# ---------------------------------------------------------------------- abandoned games


CLAIM_OFFER = N_("{name} has not moved for a long time. You may claim the win: press the button below.")


async def _offer_claim(
    context: ContextTypes.DEFAULT_TYPE, table: Table, query: CallbackQuery, t: Texts
) -> None:
    """The opponent of an idle player pressed the board: offer the Claim win button (Refused: the alert)."""
    d = deps(context)
    side = table.side_of(query.from_user.id)
    idle = flow.idle_side(table, d.clock(), d.claim_after)
    if side is None or idle is None or idle is side or query.message is None:
        return
    text = t.gettext(CLAIM_OFFER, name=table.players[idle].name)
    markup = claim_markup(t, table.id, table.version, query.from_user.id)
    await display.say(context.bot, query.message.chat.id, text, markup)
    raise Refused(CLAIM_OFFER, name=table.players[idle].name)


@command
async def claim_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/claim: the opponent of an idle player gets the Claim win button (or the reason why not)."""
    t = user_texts(update)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    d = deps(context)
    table = await _active_game(d.storage, chat.id)
    if table is None:
        raise Refused("There is no game going on here.")
    idle = flow.check_claim(table, user.id, d.clock(), d.claim_after)
    await display.say(
        context.bot,
        chat.id,
        t.gettext(CLAIM_OFFER, name=table.players[idle].name),
        claim_markup(t, table.id, table.version, user.id),
    )


@button
async def on_claim(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Claim win: the idle player loses as if they resigned."""
    _menu_owner(cb, query)
    d = deps(context)
    table = await _table(d.storage, cb.game)
    new = flow.claim(table, query.from_user.id, cb.version, d.clock(), d.claim_after)
    await _commit(context, table, new)
    if query.message is not None:
        await display.edit_text(
            context.bot,
            query.message.chat.id,
            query.message.message_id,
            t.gettext("{name} claimed the win.", name=query.from_user.first_name),
        )
    return None


# ---------------------------------------------------------------------- deleting a user's data


@command
async def forget_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/forget: ask before deleting the user's data."""
    t = user_texts(update)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    await display.say(
        context.bot,
        chat.id,
        t.gettext(
            "{name}, this deletes your data from the bot: your games in progress are resigned and your "
            "name is removed from them, your finished games, invitations and open games are deleted. "
            "Delete your data?",
            name=user.first_name,
        ),
        forget_markup(t, user.id),
    )


async def _forget_game(context: ContextTypes.DEFAULT_TYPE, game_id: str, user_id: int) -> str | None:
    """Delete (finished) or resign and anonymise (in progress) one game of the user; what was done."""
    d = deps(context)
    for _ in range(5):  # a concurrent press may change the game between the load and the save
        table = await d.storage.load(game_id)
        if table is None or table.side_of(user_id) is None:
            return None
        if table.over:
            try:
                await d.storage.delete_game(table)
            except VersionConflict:
                continue
            return "deleted"
        new = d.stamped(flow.forget_player(table, user_id))
        try:
            await d.storage.save(new)
        except VersionConflict:
            continue
        side = table.side_of(user_id)
        assert side is not None
        for target in table.targets:  # the user's own board: keyboard off, id forgotten
            if target.chat_id == user_id and target.key in table.messages:
                await display.edit_markup(context.bot, target.chat_id, table.messages[target.key], None)
                await d.storage.drop_message(table.id, target.key)
        await display.show(context.bot, d.storage, new, previous=table)
        return "resigned"
    raise VersionConflict(f"game {game_id}: changed five times while deleting the data of {user_id}")


@button
async def on_forget(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Yes: resign and anonymise the games in progress, delete the rest; tell what was deleted."""
    _menu_owner(cb, query)
    message = query.message
    d = deps(context)
    uid = query.from_user.id
    if cb.action == "fn":
        if message is not None:
            await display.edit_text(
                context.bot, message.chat.id, message.message_id, t.gettext("Nothing was deleted.")
            )
        return None
    ids = set(await d.storage.games_of_user(uid))
    private = await d.storage.game_of_chat(uid)
    if private is not None:
        ids.add(private.id)
    done = {"deleted": 0, "resigned": 0}
    for game_id in sorted(ids):
        what = await _forget_game(context, game_id, uid)
        if what is not None:
            done[what] += 1
    invites = 0
    invite = await d.storage.cancel_invite(uid)
    if invite is not None:
        invites = 1
        if invite.message_id is not None:
            await display.edit_text(
                context.bot, uid, invite.message_id, t.gettext("The invitation was withdrawn.")
            )
    lobbies = 0
    for lobby in await d.storage.lobbies_of(uid):
        if await d.storage.close_lobby(lobby.chat_id, lobby.id):
            lobbies += 1
            if lobby.message_id is not None:
                await display.edit_text(
                    context.bot,
                    lobby.chat_id,
                    lobby.message_id,
                    texts(lobby.starter.lang).gettext("The game was cancelled."),
                )
    await d.storage.forget_user_keys(uid)
    report = t.gettext(
        "Your data was deleted.\nGames in progress resigned (your name removed): {resigned}\n"
        "Finished games deleted: {deleted}\nInvitations withdrawn: {invites}\n"
        "Open group games cancelled: {lobbies}",
        resigned=done["resigned"],
        deleted=done["deleted"],
        invites=invites,
        lobbies=lobbies,
    )
    if message is not None:
        await display.edit_text(context.bot, message.chat.id, message.message_id, report)
    return None


# ---------------------------------------------------------------------- errors


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log every error with the update; a user whose update failed gets a short line."""
    log.error("error while handling update %s", getattr(update, "update_id", "-"), exc_info=context.error)
    if isinstance(update, Update) and update.effective_chat is not None and update.callback_query is None:
        t = user_texts(update)
        line = TRY_AGAIN if isinstance(context.error, StorageUnavailable) else WENT_WRONG
        await display.say(context.bot, update.effective_chat.id, t.gettext(line))
