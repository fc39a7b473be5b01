"""Abandoned games: the opponent of a player idle for NARDY_CLAIM_AFTER seconds may claim the win.

A press on the idle board by the waiting player offers the Claim win button once per idle period (a
message in the chat); later presses only get the alert. /claim always answers with the button.

A player the bot cannot reach (their board failed with 403: they blocked the bot or deleted the chat) cannot
see the game: the first such failure marks them in Redis and tells the opponent, who may claim the win at once,
whoever's turn it is (waiting.check_claim). Claiming rather than ending the game as a resignation: a player who
comes back (unblocks the bot) before the claim finds the game going on (their board shown clears the mark)."""

from __future__ import annotations

from telegram import CallbackQuery, Update
from telegram.ext import ContextTypes

from bot.i18n import Texts, texts
from bot.model import waiting
from bot.model.flow import Refused
from bot.model.table import Table, Target
from bot.service import games
from bot.service.context import load as load_game
from bot.telegram import button_homes
from bot.telegram.callbacks import Callback
from bot.telegram.handlers.common import (
    N_,
    Deps,
    active_game,
    button,
    command,
    deps,
    menu_owner,
    person,
    user_texts,
)
from bot.telegram.keyboards import claim_markup

CLAIM_OFFER = N_("{name} has not moved for a long time. You may claim the win: press the button below.")
CLAIM_AGAIN = N_(
    "{name} has not moved for a long time. You may claim the win: use the Claim win button, or /claim."
)
UNREACHABLE = N_(
    "{name} cannot be reached: they blocked the bot or deleted the chat. You may claim the win now."
)


async def offer_claim(d: Deps, table: Table, query: CallbackQuery, t: Texts) -> None:
    """The opponent of an idle player pressed the board: offer the Claim win button, once per idle period
    (Refused: the alert)."""
    side = table.side_of(query.from_user.id)
    idle = waiting.idle_side(table, d.clock(), d.claim_after)
    if side is None or idle is None or idle is side or query.message is None:
        return
    name = table.players[idle].name
    if await d.storage.limits.once(f"claim-offer:{table.id}:{table.moved_at}", max(60.0, d.claim_after)):
        d.say(
            query.message.chat.id,
            t.gettext(CLAIM_OFFER, name=name),
            claim_markup(t, table.id, table.version, query.from_user.id),
            home=button_homes.claim(table.id, query.from_user.id),
        )
        raise Refused(CLAIM_OFFER, name=name)
    raise Refused(CLAIM_AGAIN, name=name)


@command
async def claim_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/claim: the opponent of an idle player gets the Claim win button (or the reason why not)."""
    t = user_texts(update)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    d = deps(context)
    table = await active_game(d.storage, chat.id)
    if table is None:
        raise Refused("There is no game going on here.")
    gone = await games.unreachable_sides(d, table)
    idle = waiting.check_claim(table, user.id, d.clock(), d.claim_after, gone)
    d.say(
        chat.id,
        t.gettext(UNREACHABLE if idle in gone else CLAIM_OFFER, name=table.players[idle].name),
        claim_markup(t, table.id, table.version, user.id),
        home=button_homes.claim(table.id, user.id),
    )


@button
async def on_claim(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Claim win: the idle player loses as if they resigned."""
    menu_owner(cb, query)
    d = deps(context)
    table = await load_game(d, cb.game)
    table = await games.apply_flag(d, table)
    await games.claim(d, table, query.from_user.id, cb.version)
    if query.message is not None:
        d.edit_text(
            query.message.chat.id,
            query.message.message_id,
            t.gettext("{name} claimed the win.", name=person(query.from_user).name),
        )
    return None


async def player_unreachable(d: Deps, table: Table, target: Target) -> None:
    """A player's board could not be delivered (403, or the chat is gone): the boards' hook (bot/telegram/boards.py).
    In a live game of two private chats the player is marked (GameStore.mark_unreachable) and, the first time
    since their board was last shown, the opponent is told and may claim the win at once."""
    side = target.viewer
    if table.over or side is None or target.key not in ("w", "b") or table.mode in ("group", "computer"):
        return
    player, opponent = table.players[side], table.players[side.other]
    if not (player.reachable and opponent.reachable) or target.chat_id != player.user_id:
        return
    if not await d.storage.games.mark_unreachable(table.id, target.key, d.clock()):
        return
    stored = await d.storage.games.load(table.id)
    if stored is None or stored.over:
        return
    t = texts(opponent.lang)
    d.say(
        opponent.user_id,
        t.gettext(UNREACHABLE, name=player.name),
        claim_markup(t, stored.id, stored.version, opponent.user_id),
        home=button_homes.claim(stored.id, opponent.user_id),
    )
