"""Starting games: the variant and opponent menus, group lobbies, invitation links, games with the computer.

Every start is one atomic step in Redis (bot/storage/games.py): a chat has at most one live game and one open
lobby, a lobby or an invitation starts at most one game, and a player in a game cannot be pulled into a
second one by a race of two starts."""

from __future__ import annotations

from telegram import CallbackQuery, Update
from telegram.constants import ChatType
from telegram.ext import ContextTypes

from bot.i18n import Texts, texts
from bot.model.flow import Refused
from bot.model.game_format import GameFormat
from bot.model.table import Invite, Lobby, new_id
from bot.service import starts
from bot.storage import LobbyTaken
from bot.telegram import button_homes
from bot.telegram.callbacks import BadCallback, Callback
from bot.telegram.handlers.common import (
    GAME_ON,
    active_game,
    button,
    deps,
    menu_owner,
    message_of,
    person,
    user_texts,
)
from bot.telegram.keyboards import (
    LEVELS,
    invite_markup,
    level_menu,
    lobby_markup,
    opponent_menu,
    variant_menu,
)
from bot.telegram.names import display_name
from bot.views.captions import level_name, variant_name


@button
async def on_variant(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """The variant was picked: a group gets a lobby; a private chat picks the opponent."""
    menu_owner(cb, query)
    message = message_of(query)
    d = deps(context)
    if message.chat.type == ChatType.PRIVATE:
        d.edit_text(
            message.chat.id,
            message.message_id,
            t.gettext("{variant}: who will you play?", variant=variant_name(t, cb.variant)),
            opponent_menu(t, cb.user, cb.variant),
        )
        return None
    lobby = Lobby(
        id=new_id(),
        chat_id=message.chat.id,
        game=cb.variant,
        starter=person(query.from_user),
        message_id=message.message_id,
    )
    try:
        replaced = await d.storage.rooms.open_lobby(lobby)
    except LobbyTaken as taken:
        if taken.lobby is None:
            raise Refused(GAME_ON) from None
        raise Refused(
            "{name} has already opened a game here: press Join on it, or wait until it is over.",
            name=taken.lobby.starter.name,
        ) from None
    await d.storage.users.set_home(f"{message.chat.id}:{message.message_id}", button_homes.lobby(lobby.id))
    if replaced is not None and replaced.message_id not in (None, message.message_id):
        assert replaced.message_id is not None
        d.edit_text(message.chat.id, replaced.message_id, t.gettext("This game was replaced by a new one."))
    d.edit_text(
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
async def on_variant_cube(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """The cube (and Jacoby) switch of /newgame's menu: the menu is shown again with it."""
    menu_owner(cb, query)
    message = message_of(query)
    flags = "" if cb.choice == "-" else cb.choice
    deps(context).edit_markup(message.chat.id, message.message_id, variant_menu(t, cb.user, flags))
    return None


@button
async def on_join(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Someone joined a group lobby: the game starts on a new board message."""
    message = message_of(query)
    d = deps(context)
    title = display_name(message.chat.title or "", "") or None
    lobby, table = await starts.join_lobby(d, message.chat.id, cb.lobby, person(query.from_user), title)
    lt = texts(lobby.starter.lang)
    d.edit_text(
        message.chat.id,
        message.message_id,
        lt.gettext(
            "{variant}: {white} vs {black}. The game is on!",
            variant=variant_name(lt, lobby.game),
            white=table.players[0].name,
            black=table.players[1].name,
        ),
    )
    return None


@button
async def on_cancel_lobby(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """The starter cancels the lobby."""
    message = message_of(query)
    d = deps(context)
    lobby = await d.storage.rooms.lobby(message.chat.id)
    if lobby is None or lobby.id != cb.lobby:
        raise Refused("This game is no longer open.")
    if lobby.starter.user_id != query.from_user.id:
        raise Refused("Only {name} can cancel this game.", name=lobby.starter.name)
    if not await d.storage.rooms.close_lobby(message.chat.id, lobby.id):
        raise Refused("This game is no longer open.")
    d.edit_text(
        message.chat.id, message.message_id, texts(lobby.starter.lang).gettext("The game was cancelled.")
    )
    return None


@button
async def on_opponent(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Private chat: the computer (then a level) or a friend (an invitation link). The menu's third choice,
    🎲 Find an opponent (a stranger), is bot/telegram/handlers/quickmatch.py's."""
    menu_owner(cb, query)
    message = message_of(query)
    d = deps(context)
    if cb.who == "c":  # the computer plays without a clock
        untimed = str(GameFormat.parse(cb.variant).untimed())
        d.edit_text(
            message.chat.id,
            message.message_id,
            t.gettext("{variant} against the computer. Which level?", variant=variant_name(t, untimed)),
            level_menu(t, cb.user, untimed),
        )
        return None
    if await active_game(d.storage, message.chat.id) is not None:
        raise Refused(GAME_ON)
    invite = Invite(
        token=new_id(12), game=cb.variant, starter=person(query.from_user), message_id=message.message_id
    )
    await d.storage.rooms.put_invite(invite)
    await d.storage.users.set_home(
        f"{message.chat.id}:{message.message_id}", button_homes.invite(invite.token)
    )
    link = f"https://t.me/{context.bot.username}?start={invite.token}"
    d.edit_text(
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
    message = message_of(query)
    d = deps(context)
    invite = await d.storage.rooms.peek_invite(cb.token)
    if invite is None or invite.starter.user_id != query.from_user.id:
        raise Refused("This invitation is no longer open.")
    await d.storage.rooms.cancel_invite(query.from_user.id)
    d.edit_text(message.chat.id, message.message_id, t.gettext("The invitation was withdrawn."))
    return None


@button
async def on_level(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """A game against the computer at the chosen level starts."""
    menu_owner(cb, query)
    if cb.level not in LEVELS:
        raise BadCallback(f"unknown level {cb.level!r}")
    message = message_of(query)
    d = deps(context)
    await starts.against_computer(d, person(query.from_user), cb.variant, cb.level)
    d.edit_text(
        message.chat.id,
        message.message_id,
        t.gettext(
            "{variant} against the computer ({level}). Good luck!",
            variant=variant_name(t, cb.variant),
            level=level_name(t, cb.level),
        ),
    )
    return None


async def accept_invite(update: Update, context: ContextTypes.DEFAULT_TYPE, token: str) -> None:
    """A friend opened t.me/<bot>?start=<token>: the game starts in both private chats."""
    t = user_texts(update)
    user = update.effective_user
    assert user is not None
    d = deps(context)
    me = person(user)
    invite, _ = await starts.accept_invite(d, token, me)
    st = texts(invite.starter.lang)
    if invite.message_id is not None:
        d.edit_text(
            invite.starter.user_id,
            invite.message_id,
            st.gettext("{name} accepted your invitation. The game is on!", name=me.name),
        )
    d.say(
        user.id,
        t.gettext(
            "You are playing {variant} with {name}.",
            variant=variant_name(t, invite.game),
            name=invite.starter.name,
        ),
    )
