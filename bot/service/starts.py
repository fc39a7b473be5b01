"""How games start, as plain async functions: against the computer, from an invitation, from a group's lobby.

Each start is one atomic step in Redis (bot/storage/): a chat has at most one live game and one open lobby, a
lobby or an invitation starts at most one game, and a player in a game cannot be pulled into a second one
by a race of two starts. Refusals are `Refused` (the front translates them); the fronts are told of the new
game (`Services.changed`) and say the rest in their own way."""

from __future__ import annotations

from dataclasses import replace

from bot.i18n import N_
from bot.model import flow
from bot.model.flow import Refused
from bot.model.table import Invite, Lobby, Person, Table
from bot.service.context import Services, game_seeds
from bot.storage import ChatBusy, Gone, Storage, VersionConflict

GAME_ON = N_("A game is already going on here. Finish it or /resign first.")
INVITE_GONE = N_("This invitation has expired or was already used.")
OWN_INVITE = N_("This is your own invitation. Send the link to a friend.")
PLAYING_ELSEWHERE = N_("{name} is already playing another game.")
LOBBY_FULL = N_("This game already has two players.")
LOBBY_GONE = N_("This game is no longer open.")
OWN_LOBBY = N_("Wait for someone else to join your game.")


async def active_game(storage: Storage, chat_id: int) -> Table | None:
    """The chat's live game, if any (a finished one does not count)."""
    table = await storage.games.game_of_chat(chat_id)
    return table if table is not None and not table.over else None


async def against_computer(s: Services, me: Person, fmt: str, level: str) -> Table:
    """A game of `me` against the computer at `level`, in `me`'s private chat (a game against the computer
    has no clock: flow.start_table)."""
    if await active_game(s.storage, me.user_id) is not None:
        raise Refused(GAME_ON)
    computer = Person(0, "computer", me.lang, level=level)
    table = await flow.start_table(
        flow.new_game_id(),
        "computer",
        fmt,
        me,
        computer,
        me.lang,
        s.dice,
        s.computer,
        seeds=await game_seeds(s, me, computer),
    )
    table = s.stamped(table)
    await s.storage.games.create(table)  # ChatBusy if a game started meanwhile
    s.changed(table)
    return table


async def accept_invite(s: Services, token: str, me: Person) -> tuple[Invite, Table]:
    """`me` takes the invitation `token`: the game starts in both private chats."""
    invite = await s.storage.rooms.peek_invite(token)
    if invite is None:
        raise Refused(INVITE_GONE)
    if invite.starter.user_id == me.user_id:
        raise Refused(OWN_INVITE)
    if await active_game(s.storage, me.user_id) is not None:
        raise Refused(GAME_ON)
    if await active_game(s.storage, invite.starter.user_id) is not None:
        if await s.storage.rooms.peek_invite(token) is None:  # used meanwhile: that game is this invitation's
            raise Refused(INVITE_GONE)
        raise Refused(PLAYING_ELSEWHERE, name=invite.starter.name)
    table = await flow.start_table(
        flow.new_game_id(),
        "friend",
        invite.game,
        invite.starter,
        me,
        invite.starter.lang,
        s.dice,
        s.computer,
        seeds=await game_seeds(s, invite.starter, me),
    )
    table = s.stamped(table)
    try:
        await s.storage.rooms.start_from_invite(invite, table)
    except Gone:
        raise Refused(INVITE_GONE) from None
    except ChatBusy:  # a game started meanwhile in one of the two private chats
        if await s.storage.rooms.peek_invite(token) is None:
            raise Refused(INVITE_GONE) from None
        if await active_game(s.storage, me.user_id) is not None:
            raise Refused(GAME_ON) from None
        raise Refused(PLAYING_ELSEWHERE, name=invite.starter.name) from None
    s.changed(table)
    return invite, table


async def join_lobby(
    s: Services, chat_id: int, lobby_id: str, joiner: Person, title: str | None
) -> tuple[Lobby, Table]:
    """`joiner` joins the group's open lobby `lobby_id`: the game starts in the group."""
    lobby: Lobby | None = await s.storage.rooms.lobby(chat_id)
    if lobby is None or lobby.id != lobby_id:
        if await s.storage.games.load(lobby_id) is not None:
            raise Refused(LOBBY_FULL)
        raise Refused(LOBBY_GONE)
    if lobby.starter.user_id == joiner.user_id:
        raise Refused(OWN_LOBBY)
    table = await flow.start_table(
        lobby.id,
        "group",
        lobby.game,
        lobby.starter,
        joiner,
        lobby.starter.lang,
        s.dice,
        s.computer,
        chat_id=chat_id,
        seeds=await game_seeds(s, lobby.starter, joiner),
    )
    table = replace(s.stamped(table), title=title)
    try:
        await s.storage.rooms.start_from_lobby(lobby, table)
    except (Gone, VersionConflict):
        if await s.storage.games.load(lobby_id) is not None:
            raise Refused(LOBBY_FULL) from None
        raise Refused(LOBBY_GONE) from None
    s.changed(table)
    return lobby, table
