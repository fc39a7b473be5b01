"""Inline mode: `@bot` in any chat (even one the bot is not in) posts a challenge card; the game is played in
that one inline message.

- The inline query is answered with two cached-photo results, short and long nardy: the start position's
  picture (a file_id in the media chat), a caption saying who challenges (and whom, for `@bot @username`),
  and Accept / Cancel. Each result carries the user's open challenge of that kind (bot/storage/rooms.py
  `open_challenge`: reused while open, so typing does not make a challenge per keystroke).
- Accept (the first other person, or only the named user) uses the challenge up and creates the game in the
  same atomic step; the inline message becomes its board (mode "inline", bot/model/table.py), drawn by
  bot/telegram/boards.py like every board.
- An inline message's picture can be changed only to a file_id or a URL, never an upload: every new picture
  is first sent to the media chat (`NARDY_MEDIA_CHAT_ID`, a private channel or chat of the bot's), whose
  file_id the edit then uses (bot/telegram/display.py). Without it, inline mode answers with one result that says
  games in any chat are not available here, and a button to the bot's private chat.
- There is no chat for /resign or /claim: the board's last row opens a small menu (resign, claim, back).
"""

from __future__ import annotations

import logging
import re

from telegram import (
    CallbackQuery,
    InlineQueryResultArticle,
    InlineQueryResultCachedPhoto,
    InlineQueryResultsButton,
    InputTextMessageContent,
    Update,
)
from telegram.error import BadRequest, TelegramError
from telegram.ext import ContextTypes

from bot.i18n import Texts, texts
from bot.model import flow
from bot.model.flow import Refused
from bot.model.game_format import GameFormat
from bot.model.table import Challenge
from bot.service.context import game_seeds
from bot.service.context import load as load_game
from bot.storage import Gone, StorageError
from bot.storage.keys import CHALLENGE_TTL
from bot.telegram import button_homes, display
from bot.telegram.callbacks import Callback
from bot.telegram.handlers.common import N_, Deps, button, deps, person, user_texts
from bot.telegram.keyboards import board_markup, challenge_markup, inline_menu_markup
from bot.views.board_view import start_view
from bot.views.captions import variant_name
from bot.workers.pictures import render

log = logging.getLogger(__name__)

START_PARAMETER = "inline"  # /start's parameter from the inline answers' button (no invitation's token)
INLINE_CACHE = 30  # seconds Telegram may reuse an answer, per user (the results carry the user's challenge)
_USERNAME = re.compile(r"^@([A-Za-z][A-Za-z0-9_]{3,31})$")  # only a word with its @ names someone
NOT_HERE = N_("Games in any chat are not available on this bot yet")
CHALLENGE = N_("⚔️ {name} challenges you to {variant}. Press Accept to play here.")
CHALLENGE_TO = N_("⚔️ {name} challenges @{target} to {variant}. @{target}, press Accept to play here.")


def target_of(query: str) -> str | None:
    """`@bot @username` challenges that user only: their username in lower case. A word without its `@`
    (`@bot let us play now`) names nobody: the cards are open to anyone."""
    for word in query.split():
        found = _USERNAME.match(word)
        if found:
            return found[1].lower()
    return None


def private_chat_button(t: Texts) -> InlineQueryResultsButton:
    """The button above the results that opens the bot's private chat (`/start inline`: its greeting)."""
    return InlineQueryResultsButton(t.gettext("Play in the bot's chat"), start_parameter=START_PARAMETER)


def formats_of(query: str) -> tuple[str, str]:
    """The challenge cards' formats (bot/model/game_format.py) for the words of `@bot [@username] [3|5|7]
    [cube] [live|blitz]`: short and long nardy as single games, or matches to 3, 5 or 7; `cube` adds the
    doubling cube to short nardy; `live` or `blitz` a clock (bot/model/clock.py)."""
    words = {w.lower() for w in query.split()}
    length = next((int(w) for w in ("3", "5", "7") if w in words), 1)
    cube = bool(words & {"cube", "куб"})
    clock = "blitz" if words & {"blitz", "блиц"} else "live" if words & {"live", "clock", "часы"} else None
    return str(GameFormat("short", length, cube, clock=clock)), str(GameFormat("long", length, clock=clock))


async def challenge_picture(d: Deps, variant: str, t: Texts) -> str:
    """The file_id of the start position's picture for a challenge card (uploaded once to the media chat,
    then kept in Redis for every worker)."""
    assert d.media_chat is not None
    name = f"start:{variant}:{t.lang}"
    found = await d.storage.users.media_file(name)
    if found is not None:
        return found
    file_id = await display.upload(
        d.boards.bot, d.media_chat, await render(start_view(variant, t.for_picture()))
    )
    await d.storage.users.set_media_file(name, file_id)
    return file_id


async def on_inline_query(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """`@bot [@username]` in any chat: challenge cards for short and long nardy."""
    query = update.inline_query
    assert query is not None
    d = deps(context)
    t = user_texts(update)
    if d.media_chat is None:
        await _answer_inline(
            query.answer(
                [
                    InlineQueryResultArticle(
                        id="unavailable",
                        title=t.gettext(NOT_HERE),
                        input_message_content=InputTextMessageContent(
                            t.gettext(
                                "Games in any chat are not available on this bot yet. Open the bot and send /newgame."
                            )
                        ),
                    )
                ],
                cache_time=INLINE_CACHE,
                is_personal=True,
                button=private_chat_button(t),
            )
        )
        return
    me = person(query.from_user)
    target = target_of(query.query)
    results = []
    try:
        for variant in formats_of(query.query):
            challenge = await d.storage.rooms.open_challenge(me, variant, target)
            caption = (
                t.gettext(CHALLENGE_TO, name=me.name, target=target, variant=variant_name(t, variant))
                if target
                else t.gettext(CHALLENGE, name=me.name, variant=variant_name(t, variant))
            )
            results.append(
                InlineQueryResultCachedPhoto(
                    id=f"{variant}:{challenge.token}",
                    photo_file_id=await challenge_picture(d, GameFormat.parse(variant).variant, t),
                    title=variant_name(t, variant),
                    description=caption,
                    caption=caption,
                    reply_markup=challenge_markup(t, challenge.token),
                )
            )
    except (StorageError, TelegramError) as err:
        log.warning("inline query %s could not be answered: %s", query.id, err)
        return  # Telegram shows nothing; the user may type again
    await _answer_inline(
        query.answer(results, cache_time=INLINE_CACHE, is_personal=True, button=private_chat_button(t))
    )


async def _answer_inline(answering: object) -> None:
    """Answer an inline query; a query answered too late (or twice) is only logged."""
    try:
        await answering  # type: ignore[misc]
    except BadRequest as err:
        log.info("inline query not answered: %s", err.message)


async def on_chosen_result(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A challenge card was posted (inline feedback): the card is written down as its challenge's home
    (bot/telegram/button_homes.py), so that Accept and Cancel of this challenge work on this card and no other."""
    chosen = update.chosen_inline_result
    assert chosen is not None
    log.info("challenge %s posted as inline message %s", chosen.result_id, chosen.inline_message_id)
    _, _, token = chosen.result_id.rpartition(":")
    if chosen.inline_message_id is None or not token:
        return
    try:
        await deps(context).storage.users.set_home(
            f"i:{chosen.inline_message_id}", button_homes.challenge(token), CHALLENGE_TTL
        )
    except StorageError as err:
        log.warning("challenge card %s not written down: %s", chosen.inline_message_id, err)


def _card_of(query: CallbackQuery) -> str:
    if query.inline_message_id is None:
        raise Refused("This button is not valid.")
    return query.inline_message_id


@button
async def on_accept(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Accept: the game starts in this inline message."""
    inline_id = _card_of(query)
    d = deps(context)
    challenge = await d.storage.rooms.challenge(cb.token)
    if challenge is None:
        raise Refused("This challenge is no longer open.")
    if challenge.challenger.user_id == query.from_user.id:
        raise Refused("Wait for someone to accept your challenge (or press Cancel).")
    username = (query.from_user.username or "").lower()
    if challenge.target is not None and username != challenge.target:
        raise Refused("This challenge is for @{target}.", target=challenge.target)
    table = await flow.start_table(
        flow.new_game_id(),
        "inline",
        challenge.game,
        challenge.challenger,
        person(query.from_user),
        challenge.challenger.lang,
        d.dice,
        d.computer,
        inline_id=inline_id,
        seeds=await game_seeds(d, challenge.challenger, person(query.from_user)),
    )
    table = d.stamped(table)
    try:
        await d.storage.rooms.start_from_challenge(challenge, table)
    except Gone:
        raise Refused("This challenge is no longer open.") from None
    d.boards.show(table)
    return None


@button
async def on_cancel_challenge(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """The challenger withdraws the challenge: the card says so and loses its buttons."""
    inline_id = _card_of(query)
    d = deps(context)
    challenge = await d.storage.rooms.challenge(cb.token)
    if challenge is None:
        raise Refused("This challenge is no longer open.")
    if challenge.challenger.user_id != query.from_user.id:
        raise Refused("Only {name} can cancel this challenge.", name=challenge.challenger.name)
    if not await d.storage.rooms.withdraw_challenge(cb.token):
        raise Refused("This challenge is no longer open.")
    _edit_card(d, inline_id, challenge, texts(challenge.challenger.lang))
    return None


def _edit_card(d: Deps, inline_id: str, challenge: Challenge, t: Texts) -> None:
    bot = d.boards.bot
    text = t.gettext("{name} withdrew the challenge.", name=challenge.challenger.name)

    async def send() -> None:
        try:
            await bot.edit_message_caption(inline_message_id=inline_id, caption=text, reply_markup=None)
        except TelegramError as err:
            log.info("challenge %s: card not edited: %s", challenge.token, err)

    d.outbox.post(inline_id, send, "a challenge card")


@button
async def on_inline_menu(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """A player opens the inline board's menu: resign (theirs), claim the win, back to the board."""
    inline_id = _card_of(query)
    d = deps(context)
    table = await load_game(d, cb.game)
    if table.board_of_inline(inline_id) is None:
        raise Refused("This board is out of date. Use the latest message.")
    if table.side_of(query.from_user.id) is None:
        raise Refused("You are not playing in this game.")
    if table.over:
        raise Refused("This game is over.")
    _edit_markup(d, inline_id, inline_menu_markup(t, table, query.from_user.id))
    return None


@button
async def on_inline_back(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Back from the menu to the board's move buttons."""
    inline_id = _card_of(query)
    d = deps(context)
    table = await load_game(d, cb.game)
    target = table.board_of_inline(inline_id)
    if target is None:
        raise Refused("This board is out of date. Use the latest message.")
    if table.side_of(query.from_user.id) is None:
        raise Refused("You are not playing in this game.")
    _edit_markup(d, inline_id, board_markup(texts(target.lang), table, None, d.boards.links))
    return None


def _edit_markup(d: Deps, inline_id: str, markup: object) -> None:
    bot = d.boards.bot

    async def send() -> None:
        try:
            await bot.edit_message_reply_markup(inline_message_id=inline_id, reply_markup=markup)  # type: ignore[arg-type]
        except BadRequest as err:
            if not display.is_not_modified(err):
                log.info("inline board %s: keyboard not changed: %s", inline_id, err.message)
        except TelegramError as err:
            log.info("inline board %s: keyboard not changed: %s", inline_id, err)

    d.outbox.post(inline_id, send, "an inline keyboard")
