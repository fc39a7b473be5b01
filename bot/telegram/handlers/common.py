"""What every handler shares: the bot's dependencies, the two guards (commands and buttons), who is who."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any

from telegram import CallbackQuery, InlineKeyboardMarkup, MaybeInaccessibleMessage, Update, User
from telegram.error import BadRequest, NetworkError, TimedOut
from telegram.ext import ContextTypes

from bot.i18n import N_ as N_
from bot.i18n import Texts, language_of, texts
from bot.model.flow import Refused
from bot.model.table import Person, Table
from bot.observe import logs
from bot.observe import metrics as observed
from bot.observe.metrics import APPLIED, ENDINGS, RESULTS, VARIANTS, Metrics, bounded
from bot.service.answers import COMPUTER_BUSY as COMPUTER_BUSY
from bot.service.answers import QUICKER as QUICKER
from bot.service.answers import TRY_AGAIN as TRY_AGAIN
from bot.service.answers import TRY_AGAIN_SOON as TRY_AGAIN_SOON
from bot.service.answers import WENT_WRONG as WENT_WRONG
from bot.service.context import SearchNews, Services
from bot.service.rates import Limits
from bot.service.settings import Settings, choosing, current
from bot.service.starts import GAME_ON as GAME_ON
from bot.service.starts import active_game as active_game
from bot.storage import (
    ChatBusy,
    Gone,
    Storage,
    StorageError,
    StorageTimeout,
    StorageUnavailable,
    VersionConflict,
)
from bot.storage.keys import FINISHED_TTL
from bot.telegram import button_homes, callbacks, display
from bot.telegram.boards import Boards
from bot.telegram.callbacks import BadCallback, Callback
from bot.telegram.names import user_name
from bot.telegram.outbox import Outbox, answering
from bot.workers.computer import ComputerBusy

log = logging.getLogger(__name__)


# Seconds an update's handler may take, its waits on Redis above all, before the user is told to try again
# in a moment: with the inbound limits' own bounded look (bot/telegram/handlers/gate.py) every update is answered
# within about 3 s whatever Redis does (Telegram drops a press's answer after about 10 s).
ANSWER_WITHIN = 2.5


@dataclass(kw_only=True)
class Deps(Services):
    """What the handlers need, kept in application.bot_data["nardy"]: the game service's dependencies and the
    Telegram front's own (the boards drawn in chats, the per-chat outbox, the inbound limits)."""

    boards: Boards
    outbox: Outbox
    limits: Limits | None = None  # inbound limits (bot/telegram/handlers/gate.py); None: none (tests)
    media_chat: int | None = None  # NARDY_MEDIA_CHAT_ID: where inline boards' pictures are uploaded
    background: set[asyncio.Task[None]] = field(default_factory=set)  # work begun after a press's answer
    tell_search: Callable[[SearchNews], None] | None = None  # how a search went: its chat is told (app.py)

    def spawn(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run `work` in the background (a replay drawn, an analysis made); its failure is logged."""

        async def logged() -> None:
            try:
                await work
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("background work %s failed", name)

        task = asyncio.get_running_loop().create_task(logged(), name=name)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    def changed(self, table: Table, previous: Table | None = None) -> None:
        """A change was saved: its boards are drawn once the press is answered (bot/telegram/boards.py)."""
        metrics = observed.current()
        if metrics is not None:
            count_games(metrics, table, previous)
        self.boards.show(table, previous=previous)

    def searched(self, news: SearchNews) -> None:
        """A quick-match search found its game or ended: its waiting message says so (quickmatch.told)."""
        if self.tell_search is not None:
            self.tell_search(news)

    def retired(self, table: Table) -> None:
        """A rematch left `table`'s board messages: their keyboards are taken off (a press there would only
        be told the board is out of date)."""
        for target in table.targets:
            message_id = table.messages.get(target.key)
            if message_id is not None:
                self.edit_markup(target.chat_id, message_id, None)

    def say(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        home: str | None = None,
        **kw: Any,
    ) -> None:
        """Send a text message in the background (bot/telegram/outbox.py): the handler does not wait for it. A
        message with buttons names its `home` (bot/telegram/button_homes.py), written down once it is sent: presses
        on it are honoured only for that home."""
        if home is None and has_buttons(markup):
            raise ValueError(f"a message with buttons to chat {chat_id} names no home: {text[:40]!r}")
        bot, storage = self.boards.bot, self.storage

        async def send() -> None:
            message_id = await display.say(bot, chat_id, text, markup, **kw)
            if message_id is not None and home is not None:
                await remember_home(storage, f"{chat_id}:{message_id}", home)

        self.outbox.post(chat_id, send, "a message")

    def edit_text(
        self, chat_id: int, message_id: int, text: str, markup: InlineKeyboardMarkup | None = None
    ) -> None:
        """Edit a text message (a menu, a lobby, an invitation) in the background."""
        bot = self.boards.bot
        self.outbox.post(
            chat_id, lambda: display.edit_text(bot, chat_id, message_id, text, markup), "a message edit"
        )

    def edit_markup(self, chat_id: int, message_id: int, markup: InlineKeyboardMarkup | None) -> None:
        """Change (None: take off) a message's keyboard in the background."""
        bot = self.boards.bot
        self.outbox.post(
            chat_id, lambda: display.edit_markup(bot, chat_id, message_id, markup), "a keyboard edit"
        )


def has_buttons(markup: InlineKeyboardMarkup | None) -> bool:
    """Whether `markup` has a button that sends callback data (a link button does not)."""
    return markup is not None and any(
        button.callback_data is not None for row in markup.inline_keyboard for button in row
    )


async def remember_home(storage: Storage, where: str, home: str) -> None:
    """Write a message's home down after it was sent; if Redis fails, its buttons answer that they do not
    belong there (the menu is asked for again), which is logged."""
    try:
        await storage.users.set_home(where, home, owner=button_homes.owner(home))
    except StorageError as err:
        log.warning("message %s: its home %s was not written down: %s", where, home, err)


def pressed_message(query: CallbackQuery) -> str:
    """The pressed message (bot/telegram/button_homes.py): "<chat>:<message>", or "i:<inline message id>"."""
    if query.inline_message_id is not None:
        return f"i:{query.inline_message_id}"
    if query.message is None:
        raise BadCallback(f"callback {query.data!r} came without its message")
    return f"{query.message.chat.id}:{query.message.message_id}"


HOME_WAIT = 0.3  # seconds a press on a message with no home waits for it: the send's answer may be on its way
NOT_ITS_MESSAGE = N_("This button does not belong to this message.")
UNKNOWN_CARD = N_("This card is not known to the bot. Post a new challenge with @{bot}.")


async def check_home(d: Deps, query: CallbackQuery, cb: Callback, bot_username: str) -> None:
    """A press is honoured only on a message whose home (bot/telegram/button_homes.py) is the one its data names;
    anything else is refused here, before a handler can edit or save anything. A board not written down as
    one (drawn before homes were, or an inline game's card) is recognised from its game's record."""
    where = pressed_message(query)
    wanted = button_homes.expected(cb, query.inline_message_id is not None)
    found = await d.storage.users.home(where)
    if found is None and not query.inline_message_id:  # a message sent a moment ago: written down soon
        await asyncio.sleep(HOME_WAIT)
        found = await d.storage.users.home(where)
    if found == wanted:
        return
    if cb.game and wanted == button_homes.board(cb.game):  # e.g. a challenge card that became the board
        table = await d.storage.games.load(cb.game)
        if table is not None and (
            table.board_of_inline(query.inline_message_id) is not None
            or (query.message is not None and table.board_of(query.message.chat.id, query.message.message_id))
        ):
            await d.storage.users.set_home(where, wanted, FINISHED_TTL)
            return
    log.info("press %r by user %s on %s (home %s) refused", query.data, query.from_user.id, where, found)
    if found is None and cb.action == "ia":
        raise Refused(UNKNOWN_CARD, bot=bot_username)
    raise Refused(NOT_ITS_MESSAGE)


def deps(context: ContextTypes.DEFAULT_TYPE) -> Deps:
    found = context.bot_data["nardy"]
    assert isinstance(found, Deps)
    return found


def language(user: User | None) -> str:
    """The language to speak to `user`: the one they chose in /settings (while their update is handled:
    the guards below choose it), else Telegram's."""
    if user is None:
        return language_of(None)
    chosen = current(user.id)
    return chosen.language(user.language_code) if chosen is not None else language_of(user.language_code)


def person(user: User) -> Person:
    return Person(user.id, user_name(user), language(user))


def user_texts(update: Update) -> Texts:
    return texts(language(update.effective_user))


async def viewer_settings(
    d: Deps, user: User | None, deadline: float | None = None
) -> tuple[int | None, Settings | None]:
    """(user id, their settings) for the update being handled; (id, None) if Redis cannot be reached, or
    does not answer by `deadline` (the loop's time; the user is then spoken to in Telegram's language; the
    handler meets the outage itself)."""
    if user is None:
        return None, None
    try:
        async with asyncio.timeout_at(deadline):
            return user.id, await d.settings.get(user.id)
    except (StorageError, TimeoutError) as err:
        log.warning("settings of user %s unavailable: %s", user.id, err)
        return user.id, None


def message_of(query: CallbackQuery) -> MaybeInaccessibleMessage:
    """The message under the pressed button; a press without one (an inline message) is not ours."""
    if query.message is None:
        raise BadCallback(f"callback {query.data!r} came without its message")
    return query.message


def menu_owner(cb: Callback, query: CallbackQuery) -> None:
    if cb.user != query.from_user.id:
        raise Refused("This menu belongs to someone else. Send /newgame to start your own game.")


# ---------------------------------------------------------------------- the two guards

Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]
CallbackBody = Callable[
    [Update, ContextTypes.DEFAULT_TYPE, CallbackQuery, Callback, Texts], Awaitable[str | None]
]


def command(fn: Handler) -> Handler:
    """A command handler: Refused -> the translated reason; Redis down -> "try again"; else on_error.
    Everything it says to the user is in their language (/settings)."""

    @functools.wraps(fn)
    async def wrapper(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        deadline = asyncio.get_running_loop().time() + ANSWER_WITHIN
        metrics = observed.current()
        if metrics is not None:
            metrics.commands.labels(fn.__name__).inc()  # the handlers' names: a bounded set
        with (
            logs.handling(update.update_id),
            choosing(*await viewer_settings(deps(context), update.effective_user, deadline)),
        ):
            outcome = "failed"
            try:
                outcome = await guarded(update, context, deadline)
            finally:
                if metrics is not None:
                    metrics.update("command", outcome)

    async def guarded(update: Update, context: ContextTypes.DEFAULT_TYPE, deadline: float) -> str:
        t = user_texts(update)
        chat = update.effective_chat
        try:
            async with asyncio.timeout_at(deadline):
                await fn(update, context)
            return APPLIED
        except Refused as refusal:
            if chat:
                deps(context).say(chat.id, t.gettext(refusal.msgid, **refusal.params))
            return refusal_outcome(refusal)
        except ChatBusy:
            if chat:
                deps(context).say(chat.id, t.gettext(GAME_ON))
            return "busy"
        except (StorageTimeout, TimeoutError) as err:
            log.warning(
                "%s: redis did not answer in time: %s", fn.__name__, str(err) or "the update's deadline"
            )
            if chat:
                deps(context).say(chat.id, t.gettext(TRY_AGAIN_SOON))
            return "storage_slow"
        except StorageUnavailable:
            log.exception("storage unavailable in %s", fn.__name__)
            if chat:
                deps(context).say(chat.id, t.gettext(TRY_AGAIN))
            return "storage_away"

    return wrapper


def button(fn: CallbackBody) -> Handler:
    """A callback handler: decodes the data and always answers the query (with an alert when refused), as
    soon as the press is decided and saved; what it shows (boards, messages) starts after the answer. The
    alert and everything else said to the presser are in their language (/settings)."""

    @functools.wraps(fn)
    async def wrapper(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        loop = asyncio.get_running_loop()
        began = loop.time()
        deadline = began + ANSWER_WITHIN
        with (
            logs.handling(update.update_id),
            choosing(*await viewer_settings(deps(context), update.effective_user, deadline)),
        ):
            await guarded(update, context, deadline, began)

    async def guarded(
        update: Update, context: ContextTypes.DEFAULT_TYPE, deadline: float, began: float
    ) -> None:
        query = update.callback_query
        assert query is not None
        t = user_texts(update)
        alert: str | None = None
        outcome = "failed"
        metrics = observed.current()
        with answering() as answered, pressing(metrics, began):
            try:
                async with asyncio.timeout_at(deadline):
                    cb = callbacks.decode(query.data)
                    logs.about_game(cb.game)
                    await check_home(deps(context), query, cb, context.bot.username)
                    alert = await fn(update, context, query, cb, t)
                    outcome = APPLIED if alert is None else "refused"
            except BadCallback as err:
                log.info("bad callback data from user %s: %s", query.from_user.id, err)
                alert = t.gettext("This button is not valid.")
                outcome = "bad_data"
            except Refused as refusal:
                alert = t.gettext(refusal.msgid, **refusal.params)
                outcome = refusal_outcome(refusal)
            except VersionConflict:
                alert = t.gettext(QUICKER)
                outcome = "stale"
            except ChatBusy:
                alert = t.gettext(GAME_ON)
                outcome = "busy"
            except Gone:
                alert = t.gettext("This game is no longer open.")
                outcome = "gone"
            except (StorageTimeout, TimeoutError) as err:
                log.warning(
                    "%s: redis did not answer in time: %s", fn.__name__, str(err) or "the update's deadline"
                )
                alert = t.gettext(TRY_AGAIN_SOON)
                outcome = "storage_slow"
            except StorageUnavailable:
                log.exception("storage unavailable in %s", fn.__name__)
                alert = t.gettext(TRY_AGAIN)
                outcome = "storage_away"
            except ComputerBusy as err:
                log.warning("press refused: %s", err)
                alert = t.gettext(COMPUTER_BUSY)
                outcome = "busy"
            except Exception:
                alert = t.gettext(WENT_WRONG)
                raise  # on_error logs it with the update
            finally:
                await answer(query, alert)
                if not answered.done():
                    answered.set_result(None)
                if metrics is not None:
                    metrics.update("press", outcome)
                    metrics.press_answer.observe(asyncio.get_running_loop().time() - began)

    return wrapper


# Refusals by what they say (bot/model/flow.py, bot/model/waiting.py): the outcome an operator tells apart.
REFUSAL_OUTCOMES = {
    "This board is out of date. Use the latest message.": "stale",
    "The board has just changed. Look at it again.": "stale",  # BOARD_CHANGED
    "The board was behind; here it is now.": "stale",  # handlers/board.py BOARD_BEHIND
    "It is not your turn.": "not_your_turn",
    NOT_ITS_MESSAGE: "forged_home",
    UNKNOWN_CARD: "forged_home",
}


def refusal_outcome(refusal: Refused) -> str:
    """nardy_updates_total's outcome for a refusal: stale, not_your_turn, forged_home, or refused."""
    return REFUSAL_OUTCOMES.get(refusal.msgid, "refused")


@contextlib.contextmanager
def pressing(metrics: Metrics | None, began: float) -> Iterator[None]:
    """While a press is handled, the boards it changes learn when it began (press -> board edited)."""
    if metrics is None:
        yield
        return
    token = PRESS_BEGAN.set(began)
    try:
        yield
    finally:
        PRESS_BEGAN.reset(token)


PRESS_BEGAN: contextvars.ContextVar[float | None] = contextvars.ContextVar("nardy_press_began", default=None)


def count_games(metrics: Metrics, table: Table, previous: Table | None) -> None:
    """Games started and finished by a saved change (its `ended` records, what the statistics keep), and the
    press that made it, for the press -> board edited latency."""
    opponent = "computer" if any(p.is_computer for p in table.players) else "person"
    if previous is None or previous.number != table.number:
        metrics.started.labels(bounded(table.game.game, VARIANTS), opponent).inc()
    seen = {str(e.get("key")) for e in previous.ended} if previous is not None else set()
    for ended in table.ended:
        if str(ended.get("key")) not in seen:
            metrics.finished.labels(
                bounded(str(ended.get("variant")), VARIANTS),
                opponent,
                bounded(str(ended.get("how")), ENDINGS),
                bounded(str(ended.get("kind")), RESULTS),
            ).inc()
    began = PRESS_BEGAN.get()
    if began is not None:
        metrics.pressed[table.id] = (table.version, began)


async def answer(query: CallbackQuery, alert: str | None) -> None:
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


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log every error with the update; a user whose update failed gets a short line."""
    log.error("error while handling update %s", getattr(update, "update_id", "-"), exc_info=context.error)
    if isinstance(update, Update) and update.effective_chat is not None and update.callback_query is None:
        user = update.effective_user
        known = None if user is None else deps(context).settings.peek(user.id)  # no Redis read here
        with choosing(None if user is None else user.id, known):
            t = user_texts(update)
        line = TRY_AGAIN if isinstance(context.error, StorageUnavailable) else WENT_WRONG
        deps(context).say(update.effective_chat.id, t.gettext(line))
