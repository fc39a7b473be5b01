"""Abandoned games: the opponent of a player idle for NARDY_CLAIM_AFTER seconds may claim the win.

A press on the idle board by the waiting player offers the Claim win button once per idle period (a
message in the chat); later presses only get the alert. /claim always answers with the button."""

from __future__ import annotations

from telegram import CallbackQuery, Update
from telegram.ext import ContextTypes

from bot import flow
from bot.callbacks import Callback
from bot.flow import Refused
from bot.handlers.common import (
    N_,
    Deps,
    active_game,
    button,
    command,
    deps,
    load_table,
    menu_owner,
    person,
    user_texts,
)
from bot.i18n import Texts
from bot.keyboards import claim_markup
from bot.table import Table

CLAIM_OFFER = N_("{name} has not moved for a long time. You may claim the win: press the button below.")
CLAIM_AGAIN = N_(
    "{name} has not moved for a long time. You may claim the win: use the Claim win button, or /claim."
)


async def offer_claim(d: Deps, table: Table, query: CallbackQuery, t: Texts) -> None:
    """The opponent of an idle player pressed the board: offer the Claim win button, once per idle period
    (Refused: the alert)."""
    side = table.side_of(query.from_user.id)
    idle = flow.idle_side(table, d.clock(), d.claim_after)
    if side is None or idle is None or idle is side or query.message is None:
        return
    name = table.players[idle].name
    if await d.storage.once(f"claim-offer:{table.id}:{table.moved_at}", max(60.0, d.claim_after)):
        d.say(
            query.message.chat.id,
            t.gettext(CLAIM_OFFER, name=name),
            claim_markup(t, table.id, table.version, query.from_user.id),
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
    idle = flow.check_claim(table, user.id, d.clock(), d.claim_after)
    d.say(
        chat.id,
        t.gettext(CLAIM_OFFER, name=table.players[idle].name),
        claim_markup(t, table.id, table.version, user.id),
    )


@button
async def on_claim(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Claim win: the idle player loses as if they resigned."""
    menu_owner(cb, query)
    d = deps(context)
    table = await load_table(d.storage, cb.game)
    new = d.stamped(flow.claim(table, query.from_user.id, cb.version, d.clock(), d.claim_after))
    await d.storage.save(new)
    d.boards.show(new, previous=table)
    if query.message is not None:
        d.edit_text(
            query.message.chat.id,
            query.message.message_id,
            t.gettext("{name} claimed the win.", name=person(query.from_user).name),
        )
    return None
