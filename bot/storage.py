"""Redis storage behind a small interface. Every change of a game is a compare-and-set on its version.

Keys (all JSON unless said otherwise):
  nardy:game:<id>             the table (Table.to_json(): engine Game.to_json(), players, version, turn state)
  nardy:game:<id>:messages    hash: target key ("g", "w", "b") -> message id of the board message
  nardy:chat:<chat_id>:game   the id of the chat's current game
  nardy:lobby:<chat_id>       a group's open lobby
  nardy:invite:<token>        a friend invitation (used once, expires)
  nardy:user:<user_id>:invite the token of the user's pending invitation
  nardy:update:<update_id>    "1": a webhook update some worker took (repeated deliveries are dropped; 1 hour)
  nardy:user:<user_id>:games  set: ids of the games the user plays or played (for /forget)
Active games live 30 days after their last change, finished ones 7 days, lobbies and invites 1 day;
a game's messages hash and its chats' pointers expire with the game, a user's games set after 30 days.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, WatchError
from redis.exceptions import TimeoutError as RedisTimeoutError

from bot.table import Invite, Lobby, Table

log = logging.getLogger(__name__)

ACTIVE_TTL = 30 * 24 * 3600
FINISHED_TTL = 7 * 24 * 3600
LOBBY_TTL = 24 * 3600
INVITE_TTL = 24 * 3600
UPDATE_TTL = 3600
MAX_CONNECTIONS = 50  # per process; Redis runs the commands one at a time anyway


class StorageError(RuntimeError):
    """Base of the storage errors the bot turns into a friendly line."""


class StorageUnavailable(StorageError):
    """Redis could not be reached (connection refused, timeout, loading)."""


class VersionConflict(StorageError):
    """The stored version is not the one this change was made from: someone else changed it first."""


def update_key(update_id: int) -> str:
    return f"nardy:update:{update_id}"


def game_key(game_id: str) -> str:
    return f"nardy:game:{game_id}"


def messages_key(game_id: str) -> str:
    return f"nardy:game:{game_id}:messages"


def chat_key(chat_id: int) -> str:
    return f"nardy:chat:{chat_id}:game"


def lobby_key(chat_id: int) -> str:
    return f"nardy:lobby:{chat_id}"


def invite_key(token: str) -> str:
    return f"nardy:invite:{token}"


def user_invite_key(user_id: int) -> str:
    return f"nardy:user:{user_id}:invite"


def user_games_key(user_id: int) -> str:
    return f"nardy:user:{user_id}:games"


@asynccontextmanager
async def _redis_errors(what: str) -> AsyncIterator[None]:
    """Translate redis-py errors at the storage boundary: unreachable -> StorageUnavailable."""
    try:
        yield
    except WatchError as err:
        raise VersionConflict(f"{what}: changed concurrently") from err
    except (RedisConnectionError, RedisTimeoutError, OSError) as err:
        raise StorageUnavailable(f"{what}: redis unreachable: {err}") from err
    except RedisError as err:
        raise StorageUnavailable(f"{what}: redis error: {err}") from err


def _ttl(table: Table) -> int:
    return FINISHED_TTL if table.over else ACTIVE_TTL


def _games_sets(table: Table) -> list[str]:
    """The games sets the game belongs in (so /forget finds it): its reachable players'."""
    return [user_games_key(p.user_id) for p in table.players if p.reachable]


def _index_players(pipe: Any, table: Table) -> None:
    """Add the game to its players' games sets; the sets live as long as games."""
    for key in _games_sets(table):
        pipe.sadd(key, table.id)
        pipe.expire(key, ACTIVE_TTL)


# The compare-and-set of a game. KEYS: the game, its messages hash, its chats' pointers (ARGV[5] of
# them), its players' games sets. ARGV: the expected stored version ("" = the game must not exist),
# the new JSON, its TTL, the game id, the number of chat pointers, the games sets' TTL.
# Returns {1, stored version} when written, {0, stored version} (nothing written) on a conflict.
_SAVE_SCRIPT = """
local raw = redis.call('GET', KEYS[1])
local stored = ''
if raw then stored = string.format('%d', cjson.decode(raw)['version']) end  -- not tostring: 1e+14
if stored ~= ARGV[1] then return {0, stored} end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
local chats = tonumber(ARGV[5])
for i = 3, 2 + chats do redis.call('SET', KEYS[i], ARGV[4], 'EX', ARGV[3]) end
for i = 3 + chats, #KEYS do
  redis.call('SADD', KEYS[i], ARGV[4])
  redis.call('EXPIRE', KEYS[i], ARGV[6])
end
return {1, stored}
"""


PARSED_RECORDS = 2048  # games whose last record this process read or wrote is kept parsed...
PARSED_SECONDS = 600.0  # ...for at most this long after it was read or written (checked at each one)


class Storage:
    """Games, chats' current games, lobbies and invites in Redis."""

    def __init__(self, client: aioredis.Redis) -> None:
        # game id -> (its record as stored, that record parsed, when): a press loads the record its previous
        # press saved, and parsing it (the game's whole history) was a tenth of the bot's time per press.
        # Compared by content, so a record another worker wrote is parsed afresh.
        self._parsed: dict[str, tuple[str, Table, float]] = {}
        self._r = client
        self._save_script = client.register_script(_SAVE_SCRIPT)  # EVALSHA, loaded again after a restart

    @classmethod
    def from_url(cls, url: str, max_connections: int = MAX_CONNECTIONS) -> Storage:
        """A client whose pool makes a busy moment wait for a free connection (up to 5 s) instead of
        failing: redis-py's plain pool raises "Too many connections" past 100 presses at once."""
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=max_connections,
            timeout=5,
            decode_responses=True,
            socket_connect_timeout=2,
            socket_timeout=5,
            retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 1),
            health_check_interval=30,
        )
        return cls(aioredis.Redis.from_pool(pool))  # the client owns the pool: aclose() closes it

    async def close(self) -> None:
        await self._r.aclose()

    async def ping(self) -> bool:
        async with _redis_errors("ping"):
            return bool(await self._r.ping())

    # ------------------------------------------------------------------ games

    async def load(self, game_id: str) -> Table | None:
        async with _redis_errors(f"load game {game_id}"), self._r.pipeline(transaction=False) as pipe:
            pipe.get(game_key(game_id))
            pipe.hgetall(messages_key(game_id))
            raw, msgs = await pipe.execute()
        if raw is None:
            return None
        messages = {k: int(v) for k, v in msgs.items()}
        known = self._parsed.get(game_id)
        if known is not None and known[0] == raw:
            return replace(known[1], messages=messages)
        table = Table.from_json(json.loads(raw), messages)
        self._remember(game_id, raw, table)
        return table

    def _remember(self, game_id: str, raw: str, table: Table) -> None:
        now = time.monotonic()
        self._parsed.pop(game_id, None)  # re-inserted last: the entries stay in the order they were stored
        self._parsed[game_id] = (raw, table, now)
        while len(self._parsed) > PARSED_RECORDS or now - next(iter(self._parsed.values()))[2] > PARSED_SECONDS:
            del self._parsed[next(iter(self._parsed))]

    async def game_of_chat(self, chat_id: int) -> Table | None:
        """The chat's current game (finished ones too, until they expire)."""
        async with _redis_errors(f"chat {chat_id} game"):
            game_id = await self._r.get(chat_key(chat_id))
        return None if game_id is None else await self.load(str(game_id))

    async def create(self, table: Table) -> None:
        """Store a new table and make it the current game of its chats; VersionConflict if the id exists."""
        await self._write(table, expected=None)

    async def save(self, table: Table) -> None:
        """Compare-and-set: store `table` only if the stored version is `table.version - 1`."""
        await self._write(table, expected=table.version - 1)

    async def _write(self, table: Table, expected: int | None) -> None:
        """One EVALSHA of _SAVE_SCRIPT: the version check and every write in one round trip, atomic
        in Redis (a WATCH/GET/MULTI/EXEC took three round trips and most of a press's Redis time)."""
        keys = [
            game_key(table.id),
            messages_key(table.id),
            *(chat_key(c) for c in table.chats),
            *_games_sets(table),
        ]
        raw = json.dumps(table.to_json(), separators=(",", ":"))
        async with _redis_errors(f"save game {table.id} v{table.version}"):
            saved, stored = await self._save_script(
                keys=keys,
                args=[
                    "" if expected is None else str(expected),
                    raw,
                    _ttl(table),
                    table.id,
                    len(table.chats),
                    ACTIVE_TTL,
                ],
            )
        if not saved:
            raise VersionConflict(
                f"game {table.id}: stored version {stored or None}, this change was made from {expected}"
            )
        self._remember(table.id, raw, table)

    async def set_message(self, game_id: str, target: str, message_id: int) -> None:
        """Remember the board message of one target (not versioned: it never conflicts with moves)."""
        async with _redis_errors(f"game {game_id} message {target}"):
            ttl = int(await self._r.ttl(game_key(game_id)))  # the hash expires with its game
            async with self._r.pipeline(transaction=True) as pipe:
                pipe.hset(messages_key(game_id), target, str(message_id))
                pipe.expire(messages_key(game_id), ttl if ttl > 0 else ACTIVE_TTL)
                await pipe.execute()

    async def forget_messages(self, game_id: str) -> None:
        async with _redis_errors(f"game {game_id} messages"):
            await self._r.delete(messages_key(game_id))

    # ------------------------------------------------------------------ group lobbies

    async def open_lobby(self, lobby: Lobby) -> None:
        """Open (or replace) the chat's lobby."""
        async with _redis_errors(f"open lobby in chat {lobby.chat_id}"):
            await self._r.set(lobby_key(lobby.chat_id), json.dumps(lobby.to_json()), ex=LOBBY_TTL)

    async def lobby(self, chat_id: int) -> Lobby | None:
        async with _redis_errors(f"lobby in chat {chat_id}"):
            raw = await self._r.get(lobby_key(chat_id))
        return None if raw is None else Lobby.from_json(json.loads(raw))

    async def close_lobby(self, chat_id: int, lobby_id: str) -> bool:
        """Delete the chat's lobby if it is still `lobby_id`; False if it was already gone or replaced."""
        key = lobby_key(chat_id)
        async with (
            _redis_errors(f"close lobby {lobby_id} in chat {chat_id}"),
            self._r.pipeline(transaction=True) as pipe,
        ):
            await pipe.watch(key)
            raw = await pipe.get(key)
            if raw is None or json.loads(raw)["id"] != lobby_id:
                return False
            pipe.multi()
            pipe.delete(key)
            await pipe.execute()
        return True

    async def start_from_lobby(self, lobby: Lobby, table: Table) -> bool:
        """Atomically close the lobby and create its game; False if the lobby is gone (joined first)."""
        key = lobby_key(lobby.chat_id)
        try:
            async with _redis_errors(f"join lobby {lobby.id}"), self._r.pipeline(transaction=True) as pipe:
                await pipe.watch(key, game_key(table.id))
                raw = await pipe.get(key)
                if raw is None or json.loads(raw)["id"] != lobby.id or await pipe.exists(game_key(table.id)):
                    return False
                pipe.multi()
                pipe.delete(key)
                pipe.set(
                    game_key(table.id), json.dumps(table.to_json(), separators=(",", ":")), ex=ACTIVE_TTL
                )
                pipe.set(chat_key(lobby.chat_id), table.id, ex=ACTIVE_TTL)
                _index_players(pipe, table)
                await pipe.execute()
        except VersionConflict:
            return False
        return True

    # ------------------------------------------------------------------ friend invitations

    async def put_invite(self, invite: Invite) -> str | None:
        """Store an invitation (replacing the starter's previous one); returns the replaced token."""
        async with _redis_errors(f"invite {invite.token}"):
            found = await self._r.get(user_invite_key(invite.starter.user_id))
            old = None if found is None else str(found)
            async with self._r.pipeline(transaction=True) as pipe:
                if old:
                    pipe.delete(invite_key(old))
                pipe.set(invite_key(invite.token), json.dumps(invite.to_json()), ex=INVITE_TTL)
                pipe.set(user_invite_key(invite.starter.user_id), invite.token, ex=INVITE_TTL)
                await pipe.execute()
        return old if old != invite.token else None

    async def peek_invite(self, token: str) -> Invite | None:
        async with _redis_errors(f"invite {token}"):
            raw = await self._r.get(invite_key(token))
        return None if raw is None else Invite.from_json(json.loads(raw))

    async def take_invite(self, token: str) -> Invite | None:
        """Use an invitation up: GETDEL, so only one friend ever gets it."""
        async with _redis_errors(f"take invite {token}"):
            raw = await self._r.getdel(invite_key(token))
            if raw is None:
                return None
            invite = Invite.from_json(json.loads(raw))
            await self._r.delete(user_invite_key(invite.starter.user_id))
        return invite

    async def pending_invite(self, user_id: int) -> Invite | None:
        async with _redis_errors(f"user {user_id} invite"):
            token = await self._r.get(user_invite_key(user_id))
        return None if token is None else await self.peek_invite(str(token))

    async def cancel_invite(self, user_id: int) -> Invite | None:
        """Withdraw the user's pending invitation; returns it, or None if there was none."""
        async with _redis_errors(f"cancel invite of {user_id}"):
            token = await self._r.getdel(user_invite_key(user_id))
            if token is None:
                return None
            raw = await self._r.getdel(invite_key(str(token)))
        return None if raw is None else Invite.from_json(json.loads(raw))

    # ------------------------------------------------------------------ deleting a user's data

    async def games_of_user(self, user_id: int) -> list[str]:
        """The ids of the games `user_id` played in (some may have expired already)."""
        async with _redis_errors(f"user {user_id} games"):
            return sorted(str(g) for g in await self._r.smembers(user_games_key(user_id)))

    async def delete_game(self, table: Table) -> None:
        """Delete a game, its messages hash, the chat pointers that still point to it, its index entries;
        VersionConflict if the game changed since `table` was loaded (a rematch, say)."""
        key = game_key(table.id)
        pointers = [chat_key(c) for c in table.chats] + [chat_key(p.user_id) for p in table.players]
        async with _redis_errors(f"delete game {table.id}"), self._r.pipeline(transaction=True) as pipe:
            await pipe.watch(key, *pointers)
            raw = await pipe.get(key)
            if raw is not None and int(json.loads(raw)["version"]) != table.version:
                raise VersionConflict(f"game {table.id}: changed while its data was being deleted")
            current = await pipe.mget(pointers)
            pipe.multi()
            pipe.delete(key, messages_key(table.id))
            for pointer, value in zip(pointers, current):
                if value == table.id:
                    pipe.delete(pointer)
            for p in table.players:
                if not p.is_computer:
                    pipe.srem(user_games_key(p.user_id), table.id)
            await pipe.execute()
        self._parsed.pop(table.id, None)

    async def drop_message(self, game_id: str, target: str) -> None:
        """Forget one target's board message id."""
        async with _redis_errors(f"game {game_id} message {target}"):
            await self._r.hdel(messages_key(game_id), target)

    async def lobbies_of(self, user_id: int) -> list[Lobby]:
        """The open group lobbies `user_id` started (a scan: lobbies are few and live a day)."""
        found: list[Lobby] = []
        async with _redis_errors(f"lobbies of {user_id}"):
            async for key in self._r.scan_iter(match=lobby_key("*"), count=500):  # type: ignore[arg-type]
                raw = await self._r.get(key)
                if raw is None:
                    continue
                lobby = Lobby.from_json(json.loads(raw))
                if lobby.starter.user_id == user_id:
                    found.append(lobby)
        return found

    async def forget_user_keys(self, user_id: int) -> list[str]:
        """Delete every per-user key of `user_id` (private chat pointer, invitation, games set);
        returns the keys that existed."""
        keys = [chat_key(user_id), user_invite_key(user_id), user_games_key(user_id)]
        async with _redis_errors(f"forget user {user_id}"):
            token = await self._r.get(user_invite_key(user_id))
            if token is not None:
                keys.append(invite_key(str(token)))
            async with self._r.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.exists(key)
                for key in keys:
                    pipe.delete(key)
                found = await pipe.execute()
        return [key for key, there in zip(keys, found[: len(keys)]) if there]

    # ------------------------------------------------------------------ webhook deliveries

    async def first_delivery(self, update_id: int) -> bool:
        """True the first time any worker sees `update_id` (SET NX), False for a repeated delivery."""
        async with _redis_errors(f"update {update_id}"):
            return bool(await self._r.set(update_key(update_id), "1", nx=True, ex=UPDATE_TTL))

    # ------------------------------------------------------------------ diagnostics

    async def keys(self, pattern: str = "nardy:*") -> list[str]:
        async with _redis_errors("keys"):
            return sorted([k async for k in self._r.scan_iter(match=pattern)])

    async def ttl(self, key: str) -> int:
        async with _redis_errors(f"ttl {key}"):
            return int(await self._r.ttl(key))

    async def raw(self, key: str) -> Any:
        async with _redis_errors(f"get {key}"):
            return await self._r.get(key)
