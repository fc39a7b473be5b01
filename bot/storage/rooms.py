"""Rooms: where games start. A group's lobby, a friend invitation, an inline challenge card, the quick
match's queues. Each is consumed by the game it starts, in the game's own creating step (`consumes` of
GameStore.create: the game is created only if the room is still there, and the room goes with it).
"""

from __future__ import annotations

import contextlib
import json
import logging
from dataclasses import dataclass

import redis.asyncio as aioredis
from redis.exceptions import WatchError

from bot.model.table import Challenge, Invite, Lobby, Person, Seeker, Table, new_id
from bot.storage import scripts
from bot.storage.client import LobbyTaken, StorageError, compact_json, redis_errors
from bot.storage.games import GameStore
from bot.storage.keys import (
    CHALLENGE_PREFIX,
    CHALLENGE_TTL,
    INVITE_PREFIX,
    INVITE_TTL,
    LOBBY_TTL,
    SEEK_FORMATS,
    challenge_key,
    chat_key,
    invite_key,
    lobby_key,
    seek_key,
    user_challenge_key,
    user_invite_key,
    user_seek_key,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeekOutcome:
    """What a look for a quick-match partner found (RoomStore.seek)."""

    kind: str  # "pair" (`other` is waiting: create the game), "queued", "busy" (a live game), "seeking"
    other: Seeker | None = None  # "pair": the partner; "seeking": the user's own search
    game_id: str | None = None  # "busy": the user's live game
    dropped: tuple[Seeker, ...] = ()  # seekers found with a live game: their search ended, to be told


class RoomStore:
    """Lobbies, invitations, inline challenges and quick-match searches; a game started from one of them
    is created by `games` in the step that consumes it."""

    def __init__(self, client: aioredis.Redis, games: GameStore) -> None:
        self._r = client
        self._games = games
        self._open_lobby_script = scripts.register(client, "open_lobby")
        self._put_invite_script = scripts.register(client, "put_invite")
        self._cancel_invite_script = scripts.register(client, "cancel_invite")
        self._challenge_script = scripts.register(client, "open_challenge")
        self._seek_script = scripts.register(client, "seek")
        self._stop_seek_script = scripts.register(client, "stop_seek")
        self._sweep_seek_script = scripts.register(client, "sweep_seeks")
        self._drop_stale_script = scripts.register(client, "drop_stale_seek")

    # ------------------------------------------------------------------ group lobbies

    async def open_lobby(self, lobby: Lobby) -> Lobby | None:
        """Open the chat's lobby, atomically: LobbyTaken if the chat has a live game or another person's
        open lobby. The starter's own open lobby is replaced: it is returned (its message is stale)."""
        async with redis_errors(f"open lobby in chat {lobby.chat_id}"):
            answer = await self._open_lobby_script(
                keys=[lobby_key(lobby.chat_id), chat_key(lobby.chat_id)],
                args=[compact_json(lobby.to_json()), LOBBY_TTL, str(lobby.starter.user_id)],
            )
        opened, what, detail = (list(answer) + ["", ""])[:3]
        if not opened:
            if what == "game":
                raise LobbyTaken(f"chat {lobby.chat_id} has the live game {detail}", game_id=str(detail))
            raise LobbyTaken(
                f"chat {lobby.chat_id} has another open lobby", lobby=Lobby.from_json(json.loads(detail))
            )
        return Lobby.from_json(json.loads(what)) if what else None

    async def lobby(self, chat_id: int) -> Lobby | None:
        async with redis_errors(f"lobby in chat {chat_id}"):
            raw = await self._r.get(lobby_key(chat_id))
        return None if raw is None else Lobby.from_json(json.loads(raw))

    async def close_lobby(self, chat_id: int, lobby_id: str) -> bool:
        """Delete the chat's lobby if it is still `lobby_id`; False if it was already gone or replaced."""
        key = lobby_key(chat_id)
        async with (
            redis_errors(f"close lobby {lobby_id} in chat {chat_id}"),
            self._r.pipeline(transaction=True) as pipe,
        ):
            await pipe.watch(key)
            raw = await pipe.get(key)
            if raw is None or json.loads(raw)["id"] != lobby_id:
                return False
            pipe.multi()
            pipe.delete(key)
            try:
                await pipe.execute()
            except WatchError:
                return False
        return True

    async def start_from_lobby(self, lobby: Lobby, table: Table) -> None:
        """Close the lobby and create its game in one step: Gone if the lobby was joined or cancelled
        first, ChatBusy if the chat has a live game, VersionConflict if the game exists."""
        await self._games.create(table, consumes=((lobby_key(lobby.chat_id), "id", lobby.id),))

    async def lobbies_of(self, user_id: int) -> list[Lobby]:
        """The open group lobbies `user_id` started (a scan: lobbies are few and live a day)."""
        found: list[Lobby] = []
        async with redis_errors(f"lobbies of {user_id}"):
            async for key in self._r.scan_iter(match=lobby_key("*"), count=500):  # type: ignore[arg-type]
                raw = await self._r.get(key)
                if raw is None:
                    continue
                lobby = Lobby.from_json(json.loads(raw))
                if lobby.starter.user_id == user_id:
                    found.append(lobby)
        return found

    # ------------------------------------------------------------------ friend invitations

    async def put_invite(self, invite: Invite) -> str | None:
        """Store an invitation, atomically replacing the starter's previous one; returns the replaced token."""
        async with redis_errors(f"invite {invite.token}"):
            old = await self._put_invite_script(
                keys=[user_invite_key(invite.starter.user_id), invite_key(invite.token)],
                args=[compact_json(invite.to_json()), INVITE_TTL, invite.token, INVITE_PREFIX],
            )
        return str(old) or None

    async def peek_invite(self, token: str) -> Invite | None:
        async with redis_errors(f"invite {token}"):
            raw = await self._r.get(invite_key(token))
        return None if raw is None else Invite.from_json(json.loads(raw))

    async def start_from_invite(self, invite: Invite, table: Table) -> None:
        """Use the invitation up and create its game in one step: Gone if it was used or withdrawn first,
        ChatBusy if one of the players has a live game."""
        await self._games.create(table, consumes=((invite_key(invite.token), "token", invite.token),))
        key = user_invite_key(invite.starter.user_id)  # the starter's pointer: only an index, expiring
        try:
            async with (
                redis_errors(f"invite {invite.token} used"),
                self._r.pipeline(transaction=True) as pipe,
            ):
                await pipe.watch(key)
                if await pipe.get(key) == invite.token:
                    pipe.multi()
                    pipe.delete(key)
                    with contextlib.suppress(WatchError):
                        await pipe.execute()
        except StorageError:  # the game is on: a stale pointer to a used invitation only finds nothing
            log.warning("invite %s: its starter's pointer was not cleared", invite.token, exc_info=True)

    async def pending_invite(self, user_id: int) -> Invite | None:
        async with redis_errors(f"user {user_id} invite"):
            token = await self._r.get(user_invite_key(user_id))
        return None if token is None else await self.peek_invite(str(token))

    async def cancel_invite(self, user_id: int) -> Invite | None:
        """Withdraw the user's pending invitation (atomically); returns it, or None if there was none."""
        async with redis_errors(f"cancel invite of {user_id}"):
            raw = await self._cancel_invite_script(keys=[user_invite_key(user_id)], args=[INVITE_PREFIX])
        return Invite.from_json(json.loads(raw)) if raw else None

    # ------------------------------------------------------------------ inline challenges

    async def open_challenge(self, challenger: Person, variant: str, target: str | None) -> Challenge:
        """The user's open challenge of this kind (reused while open), or a new one."""
        fresh = Challenge(new_id(12), variant, challenger, target)
        async with redis_errors(f"challenge of {challenger.user_id}"):
            _, raw = await self._challenge_script(
                keys=[user_challenge_key(challenger.user_id, variant, target)],
                args=[fresh.token, compact_json(fresh.to_json()), CHALLENGE_TTL, CHALLENGE_PREFIX],
            )
        return Challenge.from_json(json.loads(raw))

    async def challenge(self, token: str) -> Challenge | None:
        async with redis_errors(f"challenge {token}"):
            raw = await self._r.get(challenge_key(token))
        return None if raw is None else Challenge.from_json(json.loads(raw))

    async def withdraw_challenge(self, token: str) -> bool:
        """Delete a challenge (its card says so); False if it was already used or withdrawn."""
        async with redis_errors(f"withdraw challenge {token}"):
            return bool(await self._r.delete(challenge_key(token)))

    async def start_from_challenge(self, challenge: Challenge, table: Table) -> None:
        """Use the challenge up and create its game in one step: Gone if it was accepted or withdrawn first."""
        await self._games.create(
            table, consumes=((challenge_key(challenge.token), "token", challenge.token),)
        )

    # ------------------------------------------------------------------ quick match

    async def seek(self, seeker: Seeker, ttl: float) -> SeekOutcome:
        """One atomic look for a quick-match partner of `seeker` (lua/seek.lua): a partner to create the game
        with (start_from_seek), or `seeker` queued; refused ("busy", "seeking") when they cannot look now.
        `ttl`: seconds the queue and the record live (the search's timeout and a grace)."""
        user_id = seeker.person.user_id
        async with redis_errors(f"seek of {user_id}"):
            kind, detail, dropped = await self._seek_script(
                keys=[seek_key(seeker.game), user_seek_key(user_id)],
                args=[
                    str(user_id),
                    compact_json(seeker.to_json()),
                    repr(seeker.since),
                    max(1, int(ttl)),
                    seeker.game,
                ],
            )
        gone = tuple(Seeker.from_json(json.loads(raw)) for raw in dropped)
        if kind == "busy":
            return SeekOutcome("busy", game_id=str(detail), dropped=gone)
        if kind in ("pair", "seeking"):
            return SeekOutcome(str(kind), other=Seeker.from_json(json.loads(detail)), dropped=gone)
        return SeekOutcome("queued", dropped=gone)

    async def start_from_seek(self, partner: Seeker, table: Table) -> None:
        """Create a quick match's game, consuming the partner's search in the same step: Gone if their search
        ended first (paired with someone else, stopped, timed out), ChatBusy if either player has a live game.
        The partner's queue entry, stale from then on, is removed after (else by the next look or sweep)."""
        user_id = partner.person.user_id
        await self._games.create(table, consumes=((user_seek_key(user_id), "token", partner.token),))
        try:
            async with redis_errors(f"stale queue entry of {user_id}"):
                await self._drop_stale_script(
                    keys=[seek_key(partner.game), user_seek_key(user_id)], args=[str(user_id), partner.game]
                )
        except StorageError as err:  # only an index: the next look drops it
            log.info("quick match %s: the partner's stale queue entry is left: %s", table.id, err)

    async def search_of(self, user_id: int) -> Seeker | None:
        """The user's quick-match search, if they are looking."""
        async with redis_errors(f"seek of {user_id}"):
            raw = await self._r.get(user_seek_key(user_id))
        return None if raw is None else Seeker.from_json(json.loads(raw))

    async def stop_seek(self, user_id: int, token: str | None = None) -> Seeker | None:
        """End the user's search (only the one with `token`, if given) atomically: its record and its queue
        entry; returns it, or None if there was no such search (paired, stopped or timed out first)."""
        async with redis_errors(f"stop seek of {user_id}"):
            raw = await self._stop_seek_script(
                keys=[user_seek_key(user_id), *(seek_key(v) for v in SEEK_FORMATS)],
                args=[str(user_id), token or ""],
            )
        return Seeker.from_json(json.loads(raw)) if raw else None

    async def expire_seekers(self, cutoff: float, limit: int = 100) -> list[tuple[Seeker, str | None]]:
        """End the searches that began at or before `cutoff` (at most `limit` per variant), atomically: each
        (search, the id of a live game its user started meanwhile, or None) is returned to one caller only."""
        async with redis_errors("expire seekers"):
            flat = await self._sweep_seek_script(
                keys=[seek_key(v) for v in SEEK_FORMATS], args=[repr(cutoff), limit, *SEEK_FORMATS]
            )
        return [
            (Seeker.from_json(json.loads(raw)), str(game) or None)
            for raw, game in zip(flat[::2], flat[1::2], strict=True)
        ]
