"""Redis storage behind a small interface. Every change of a game is one atomic compare-and-set script.

Keys (all JSON unless said otherwise):
  nardy:game:<id>             the table (Table.to_json(): engine Game.to_json(), players, version, turn state)
  nardy:game:<id>:messages    hash: board key ("g", "w", "b") -> message id of the board message, and
                              "v:<board key>" -> the game version that board shows (after a successful edit),
                              "x:<board key>" -> when that board's player was found unreachable (403: blocked the
                              bot, or the chat is gone; cleared when the board is shown again)
  nardy:unshown               sorted set: ids of games whose boards may not show their last change, scored by
                              when a worker should (re)draw them (each save marks its game; a shown board clears)
  nardy:chat:<chat_id>:game   the id of the chat's current game (one live game per chat)
  nardy:lobby:<chat_id>       a group's open lobby (one per chat)
  nardy:invite:<token>        a friend invitation (used once, expires)
  nardy:user:<user_id>:invite the token of the user's pending invitation
  nardy:update:<update_id>    "1": a webhook update some worker took (repeated deliveries are dropped; 1 hour)
  nardy:user:<user_id>:games  set: ids of the games the user plays or played (for /forget)
  nardy:user:<user_id>:settings  hash: the user's /settings ("lang", "confirm", "theme"; bot/settings.py),
                              365 days after the last read or change
  nardy:user:<user_id>:dice   the bot's secret part for the dice of the user's next game (64 hex digits; its
                              SHA-256 is shown by /seed before that game; taken and replaced when a game of
                              theirs starts; 365 days)
  nardy:user:<user_id>:dice:computer  likewise the computer's part for the user's next game against it (its
                              SHA-256 shown by /seed too, so the computer's part is bound before the user's seed)
  nardy:limit:<who>:<kind>    hash: a token bucket of inbound updates (a user's or a chat's presses, commands)
  nardy:once:<what>           "1": something done at most once in a while (a re-pointed board, a claim offer)
  nardy:challenge:<token>     an inline challenge card's challenge (used up by the game it starts; 1 day)
  nardy:user:<id>:challenge:<variant>:<target>  the token of the user's open challenge of that kind (1 day)
  nardy:media:<name>          a file_id Telegram gave a file the bot sent: a picture in the media chat (the
                              challenge cards' boards), a game's replay ("replay:<id>:<n>:<language>"); 30 days
  nardy:drawing:<id>          the token of the worker drawing the game's boards now (a lease of a minute)
  nardy:seek:<format>         sorted set: user ids looking for a quick-match opponent, scored by when they began
                              (entries whose search ended are stale: skipped and removed by the next look)
  nardy:user:<user_id>:seek   the user's quick-match search (Seeker: variant, waiting message, name, language,
                              since, token); the queue's entry and this record are written and ended together
  nardy:remind                sorted set: ids of games whose player on turn is due a turn reminder, scored by
                              when (each save sets or clears its game's entry; a sent reminder leaves)
  nardy:reminded:<id>         hash: "n" the game number of the series, "w" and "b" the turn reminders each side
                              was sent in that game (as long as the game lives)
Active games live 30 days after their last change, finished ones 7 days, lobbies and invites 1 day;
a game's messages hash and its chats' pointers expire with the game, a user's games set after 30 days.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import OutOfMemoryError, ReadOnlyError, RedisError, WatchError
from redis.exceptions import TimeoutError as RedisTimeoutError

from bot import button_homes
from bot.config import DEFAULT_REDIS_TIMEOUT
from bot.game_format import ALL_FORMATS
from bot.storage import scripts
from bot.table import Challenge, Invite, Lobby, Person, Seeker, Table, new_id

log = logging.getLogger(__name__)

ACTIVE_TTL = 30 * 24 * 3600
FINISHED_TTL = 7 * 24 * 3600
LOBBY_TTL = 24 * 3600
INVITE_TTL = 24 * 3600
UPDATE_TTL = 3600
SETTINGS_TTL = 365 * 24 * 3600  # a user's settings, refreshed whenever they are read or changed
MAX_CONNECTIONS = 50  # per process; Redis runs the commands one at a time anyway
DEFAULT_TIMEOUT = DEFAULT_REDIS_TIMEOUT  # seconds any wait on Redis may take (Storage.from_url)


class StorageError(RuntimeError):
    """Base of the storage errors the bot turns into a friendly line."""


class StorageUnavailable(StorageError):
    """Redis could not be reached (connection refused, timeout, loading)."""


class StorageFault(StorageError):
    """Redis refused a command (a key of another type, a failing script): a bug to log, not an outage."""


class StorageTimeout(StorageUnavailable):
    """Redis did not answer in time (frozen, overloaded, a network partition). A change sent meanwhile may
    still be applied when it answers again: the next change is checked against the version as usual."""


class VersionConflict(StorageError):
    """The stored version is not the one this change was made from: someone else changed it first."""


class ChatBusy(StorageError):
    """A chat (a group, or a player's private chat) already has another live game: `game_id`."""

    def __init__(self, message: str, game_id: str) -> None:
        super().__init__(message)
        self.game_id = game_id


class Gone(StorageError):
    """What a change consumes (a lobby, an invitation) was taken or withdrawn first."""


class LobbyTaken(StorageError):
    """The chat has another person's open lobby (`lobby`) or a live game (`game_id`)."""

    def __init__(self, message: str, lobby: Lobby | None = None, game_id: str | None = None) -> None:
        super().__init__(message)
        self.lobby = lobby
        self.game_id = game_id


def update_key(update_id: int) -> str:
    return f"nardy:update:{update_id}"


GAME_PREFIX = "nardy:game:"
UNSHOWN_KEY = "nardy:unshown"
REMIND_KEY = "nardy:remind"
INVITE_PREFIX = "nardy:invite:"
SHOWN_FIELD = "v:"  # prefix of the messages hash fields that hold the version a board shows
UNREACHABLE_FIELD = "x:"  # prefix of the messages hash fields: when a board's player was found unreachable


def game_key(game_id: str) -> str:
    return f"{GAME_PREFIX}{game_id}"


def messages_key(game_id: str) -> str:
    return f"nardy:game:{game_id}:messages"


def chat_key(chat_id: int) -> str:
    return f"nardy:chat:{chat_id}:game"


def lobby_key(chat_id: int) -> str:
    return f"nardy:lobby:{chat_id}"


def invite_key(token: str) -> str:
    return f"{INVITE_PREFIX}{token}"


def user_invite_key(user_id: int) -> str:
    return f"nardy:user:{user_id}:invite"


def user_games_key(user_id: int) -> str:
    return f"nardy:user:{user_id}:games"


def user_homes_key(user_id: int) -> str:
    """The homes of messages (bot/button_homes.py) that name the user: their menus and questions."""
    return f"nardy:user:{user_id}:homes"


def user_settings_key(user_id: int) -> str:
    return f"nardy:user:{user_id}:settings"


def dice_secret_key(user_id: int, computer: bool = False) -> str:
    """The user's pending part of their next game's dice secret; `computer`: the computer's part for the
    user's next game against it."""
    return f"nardy:user:{user_id}:dice" + (":computer" if computer else "")


def drawing_key(game_id: str) -> str:
    return f"nardy:drawing:{game_id}"


def reminded_key(game_id: str) -> str:
    return f"nardy:reminded:{game_id}"


CHALLENGE_PREFIX = "nardy:challenge:"
CHALLENGE_TTL = 24 * 3600
MEDIA_TTL = 30 * 24 * 3600


def challenge_key(token: str) -> str:
    return f"{CHALLENGE_PREFIX}{token}"


def user_challenge_key(user_id: int, variant: str, target: str | None) -> str:
    return f"nardy:user:{user_id}:challenge:{variant}:{target or '*'}"


def media_key(name: str) -> str:
    return f"nardy:media:{name}"


def limit_key(who: str, kind: str) -> str:
    return f"nardy:limit:{who}:{kind}"


def once_key(what: str) -> str:
    return f"nardy:once:{what}"


def home_key(where: str) -> str:
    """The home of a message with buttons (bot/button_homes.py): `where` is "<chat>:<message>" or
    "i:<inline message id>"."""
    return f"nardy:home:{where}"


@asynccontextmanager
async def _redis_errors(what: str) -> AsyncIterator[None]:
    """Translate redis-py errors at the storage boundary: unreachable -> StorageUnavailable, a refused
    command -> StorageFault (logged as the error it is, never "not available right now")."""
    try:
        yield
    except WatchError as err:
        raise VersionConflict(f"{what}: changed concurrently") from err
    except RedisTimeoutError as err:
        raise StorageTimeout(f"{what}: redis did not answer in time: {err}") from err
    except RedisConnectionError as err:
        if isinstance(err.__cause__, RedisTimeoutError):  # redis-py's word for a handshake that timed out
            raise StorageTimeout(f"{what}: redis did not answer in time: {err}") from err
        raise StorageUnavailable(f"{what}: redis unreachable: {err}") from err
    except OSError as err:
        raise StorageUnavailable(f"{what}: redis unreachable: {err}") from err
    except (ReadOnlyError, OutOfMemoryError) as err:  # a replica being promoted, a full server: for a while
        raise StorageUnavailable(f"{what}: redis refuses writes: {err}") from err
    except RedisError as err:
        raise StorageFault(f"{what}: redis error: {err}") from err


def _ttl(table: Table) -> int:
    return FINISHED_TTL if table.over else ACTIVE_TTL


def _games_sets(table: Table) -> list[str]:
    """The games sets the game belongs in (so /forget finds it): its reachable players'."""
    return [user_games_key(p.user_id) for p in table.players if p.reachable]


def _split_messages(fields: dict[str, str]) -> tuple[dict[str, int], dict[str, int]]:
    """A messages hash as (board key -> message id, board key -> the version it shows)."""
    messages = {k: int(v) for k, v in fields.items() if not k.startswith((SHOWN_FIELD, UNREACHABLE_FIELD))}
    shown = {k[len(SHOWN_FIELD) :]: int(v) for k, v in fields.items() if k.startswith(SHOWN_FIELD)}
    return messages, shown


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


# ---------------------------------------------------------------------- quick match

SEEK_PREFIX = "nardy:seek:"
VARIANTS = ALL_FORMATS  # one quick-match queue per game format (bot/game_format.py)
SEEK_GRACE = 24 * 3600  # seconds a search's keys outlive its timeout: a sweeper that was down still tells it


def seek_key(variant: str) -> str:
    return f"{SEEK_PREFIX}{variant}"


def user_seek_key(user_id: int) -> str:
    return f"nardy:user:{user_id}:seek"


@dataclass(frozen=True)
class SeekOutcome:
    """What a look for a quick-match partner found (Storage.seek)."""

    kind: str  # "pair" (`other` is waiting: create the game), "queued", "busy" (a live game), "seeking"
    other: Seeker | None = None  # "pair": the partner; "seeking": the user's own search
    game_id: str | None = None  # "busy": the user's live game
    dropped: tuple[Seeker, ...] = ()  # seekers found with a live game: their search ended, to be told


PARSED_RECORDS = 2048  # games whose last record this process read or wrote is kept parsed...
PARSED_SECONDS = 600.0  # ...for at most this long after it was read or written (checked at each one)
SHOW_LEASE = 30.0  # seconds the worker that saved a change has to show it before any worker's healer may


@dataclass(frozen=True)
class Bucket:
    """A token bucket of inbound updates: `capacity` at once, refilled at `per_second`."""

    key: str
    capacity: float
    per_second: float


class Storage:
    """Games, chats' current games, lobbies and invites in Redis."""

    def __init__(self, client: aioredis.Redis, clock: Callable[[], float] = time.time) -> None:
        # game id -> (its record as stored, that record parsed, when): a press loads the record its previous
        # press saved, and parsing it (the game's whole history) was a tenth of the bot's time per press.
        # Compared by content, so a record another worker wrote is parsed afresh.
        self._parsed: dict[str, tuple[str, Table, float]] = {}
        self._r = client
        self._clock = clock  # unix time, for the unshown boards' due times
        # EVALSHA, loaded again after a Redis restart (bot/storage/lua/*.lua)
        self._save_script = scripts.register(client, "save_game")
        self._shown_script = scripts.register(client, "boards_shown")
        self._new_message_script = scripts.register(client, "new_message")
        self._claim_unshown_script = scripts.register(client, "claim_unshown")
        self._claim_reminder_script = scripts.register(client, "claim_reminder")
        # seconds after a change that the person on turn against another person is due a turn reminder
        # (0: none); set by bot.app.build_application
        self.remind_after = 0.0
        self._open_lobby_script = scripts.register(client, "open_lobby")
        self._put_invite_script = scripts.register(client, "put_invite")
        self._cancel_invite_script = scripts.register(client, "cancel_invite")
        self._take_tokens_script = scripts.register(client, "take_tokens")
        self._hold_draw_script = scripts.register(client, "hold_draw")
        self._challenge_script = scripts.register(client, "open_challenge")
        self._release_draw_script = scripts.register(client, "release_draw")
        self._seek_script = scripts.register(client, "seek")
        self._stop_seek_script = scripts.register(client, "stop_seek")
        self._sweep_seek_script = scripts.register(client, "sweep_seeks")
        self._drop_stale_script = scripts.register(client, "drop_stale_seek")
        self._unreachable_script = scripts.register(client, "mark_unreachable")

    @classmethod
    def from_url(
        cls, url: str, max_connections: int = MAX_CONNECTIONS, timeout: float = DEFAULT_TIMEOUT
    ) -> Storage:
        """A client whose pool makes a busy moment wait for a free connection instead of failing (redis-py's
        plain pool raises "Too many connections" past 100 presses at once).

        A Redis that hangs (frozen, or cut off by a network partition: connections open, nothing answers)
        costs every wait at most `timeout` seconds (NARDY_REDIS_TIMEOUT): a connection, a free connection of
        the pool, a command's answer. Nothing is retried, so a wait is never doubled: a connection Redis
        dropped (a restart) is replaced by the pool before it is used, and a command that timed out is left
        to the user's next press (a change is checked against the version, so a save that timed out and
        still landed is never applied twice)."""
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=max_connections,
            timeout=timeout,
            decode_responses=True,
            socket_connect_timeout=timeout,
            socket_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
            health_check_interval=30,
        )
        return cls(aioredis.Redis.from_pool(pool))  # the client owns the pool: aclose() closes it

    async def close(self) -> None:
        await self._r.aclose()

    @property
    def client(self) -> aioredis.Redis:
        """The Redis client, for what lives in the same Redis as the games (bot/stats.py)."""
        return self._r

    def now(self) -> float:
        """The clock the due times of unshown boards are read with (unix seconds)."""
        return self._clock()

    async def ping(self) -> bool:
        async with _redis_errors("ping"):
            return bool(await self._r.ping())

    # ------------------------------------------------------------------ games

    async def load(self, game_id: str) -> Table | None:
        async with _redis_errors(f"load game {game_id}"), self._r.pipeline(transaction=False) as pipe:
            pipe.get(game_key(game_id))
            pipe.hgetall(messages_key(game_id))
            raw, fields = await pipe.execute()
        if raw is None:
            return None
        messages, shown = _split_messages(fields)
        known = self._parsed.get(game_id)
        if known is not None and known[0] == raw:
            return replace(known[1], messages=messages, shown=shown)
        table = Table.from_json(json.loads(raw), messages, shown)
        self._remember(game_id, raw, table)
        return table

    def _remember(self, game_id: str, raw: str, table: Table) -> None:
        now = time.monotonic()
        self._parsed.pop(game_id, None)  # re-inserted last: the entries stay in the order they were stored
        self._parsed[game_id] = (raw, table, now)
        while (
            len(self._parsed) > PARSED_RECORDS or now - next(iter(self._parsed.values()))[2] > PARSED_SECONDS
        ):
            del self._parsed[next(iter(self._parsed))]

    async def game_of_chat(self, chat_id: int) -> Table | None:
        """The chat's current game (finished ones too, until they expire)."""
        async with _redis_errors(f"chat {chat_id} game"):
            game_id = await self._r.get(chat_key(chat_id))
        return None if game_id is None else await self.load(str(game_id))

    async def create(self, table: Table, consumes: tuple[tuple[str, str, str], ...] = ()) -> None:
        """Store a new table and make it the current game of its chats, atomically: VersionConflict if the
        id exists, ChatBusy if one of its chats has another live game, Gone if a key it `consumes`
        ((key, JSON field, value): a lobby or an invitation, deleted with the start) was taken first."""
        await self._write(table, expected=None, consumes=consumes)

    async def save(self, table: Table, new_boards: bool = False) -> None:
        """Compare-and-set: store `table` only if the stored version is `table.version - 1`
        (VersionConflict otherwise). `new_boards`: its board messages are forgotten (a rematch's boards
        are new messages)."""
        await self._write(table, expected=table.version - 1, new_boards=new_boards)

    async def _write(
        self,
        table: Table,
        expected: int | None,
        consumes: tuple[tuple[str, str, str], ...] = (),
        new_boards: bool = False,
    ) -> None:
        """One EVALSHA of lua/save_game.lua: the checks and every write in one round trip, atomic in Redis."""
        sets = _games_sets(table)
        keys = [
            game_key(table.id),
            messages_key(table.id),
            UNSHOWN_KEY,
            *(chat_key(c) for c in table.chats),
            *sets,
            *(key for key, _, _ in consumes),
            REMIND_KEY,
        ]
        raw = _json(table.to_json())
        args: list[str | int | float] = [
            "" if expected is None else str(expected),
            raw,
            _ttl(table),
            table.id,
            len(table.chats),
            ACTIVE_TTL,
            len(sets),
            round(self._clock() + SHOW_LEASE, 3),
            "0" if table.over else "1",
            "1" if new_boards else "0",
        ]
        for _, field_name, value in consumes:
            args += [field_name, value]
        args.append(self._remind_at(table))
        now = self._clock()
        ended = [json.dumps({**e, "ended_at": now}, ensure_ascii=False) for e in table.ended]
        args.append(
            _json(ended) if ended else ""
        )  # each game's JSON passed on as it is (cjson rounds numbers)
        args.append(repr(now))
        async with _redis_errors(f"save game {table.id} v{table.version}"):
            saved, stored, reason, detail = await self._save_script(keys=keys, args=args)
        if not saved:
            if reason == "busy":
                raise ChatBusy(f"game {table.id}: a chat of it already has the live game {detail}", detail)
            if reason == "gone":
                raise Gone(f"game {table.id}: {detail} was taken or withdrawn first")
            raise VersionConflict(
                f"game {table.id}: stored version {stored or None}, this change was made from {expected}"
            )
        self._remember(table.id, raw, table)

    async def update(
        self, game_id: str, change: Callable[[Table], Table | None], attempts: int = 5
    ) -> tuple[Table, Table] | None:
        """Load, change and save a game, again from a fresh load if another change came first (at most
        `attempts` times). `change` returns the next table, or None to leave the game as it is.
        Returns (old, new), or None when the game does not exist or `change` left it."""
        for _ in range(attempts):
            table = await self.load(game_id)
            if table is None:
                return None
            new = change(table)
            if new is None:
                return None
            try:
                await self.save(new)
            except VersionConflict:
                continue
            return table, new
        raise VersionConflict(f"game {game_id}: changed {attempts} times while being updated")

    # ------------------------------------------------------------------ board messages

    async def new_message(
        self, game_id: str, board: str, replaces: int | None, message_id: int, chat_id: int
    ) -> bool:
        """Make `message_id` (in `chat_id`) the board message of `board` if that board still has the
        message it `replaces` (None: no message), and write its home down (bot/button_homes.py); False if
        another worker set a different one first."""
        async with _redis_errors(f"game {game_id} message {board}"):
            done = await self._new_message_script(
                keys=[messages_key(game_id), game_key(game_id), home_key(f"{chat_id}:{message_id}")],
                args=[
                    board,
                    "" if replaces is None else str(replaces),
                    str(message_id),
                    button_homes.board(game_id),
                    str(FINISHED_TTL),
                ],
            )
        return bool(done)

    async def set_message(self, game_id: str, board: str, message_id: int) -> None:
        """Remember the board message of one board (whatever it had), for as long as the game lives."""
        async with _redis_errors(f"game {game_id} message {board}"):
            ttl = int(await self._r.ttl(game_key(game_id)))  # the hash expires with its game
            async with self._r.pipeline(transaction=True) as pipe:
                pipe.hset(messages_key(game_id), board, str(message_id))
                pipe.hdel(messages_key(game_id), SHOWN_FIELD + board)
                pipe.expire(messages_key(game_id), ttl if ttl > 0 else ACTIVE_TTL)
                await pipe.execute()

    async def drop_message(self, game_id: str, board: str) -> None:
        """Forget one board's message id (and the version it showed)."""
        async with _redis_errors(f"game {game_id} message {board}"):
            await self._r.hdel(messages_key(game_id), board, SHOWN_FIELD + board)

    async def shown(
        self, game_id: str, version: int, boards: tuple[str, ...], complete: bool, drawer: str
    ) -> int:
        """`boards` of the game now show `version`. If the game is still at that version, the drawing lease
        of `drawer` is released and (`complete`: every board shows it) the game leaves the unshown set.
        Returns the stored version: a larger one is to be drawn next (-1: the game is gone)."""
        async with _redis_errors(f"game {game_id} shown v{version}"):
            stored = await self._shown_script(
                keys=[messages_key(game_id), UNSHOWN_KEY, game_key(game_id), drawing_key(game_id)],
                args=[game_id, str(version), "1" if complete else "0", drawer, *boards],
            )
        return int(stored)

    async def hold_draw(
        self, game_id: str, drawer: str, seconds: float
    ) -> tuple[dict[str, int], dict[str, int]] | float:
        """Take (or extend) the lease of drawing a game's boards: (its board messages, the versions they
        show), as they are now; if another worker holds the lease, the seconds it has left."""
        async with _redis_errors(f"game {game_id} drawing lease"):
            answer = await self._hold_draw_script(
                keys=[drawing_key(game_id), messages_key(game_id)], args=[drawer, max(1, int(seconds * 1000))]
            )
        if not answer[0]:
            return max(0.0, int(answer[1]) / 1000)
        flat = answer[1]
        return _split_messages(dict(zip(flat[::2], flat[1::2], strict=True)))

    async def release_draw(self, game_id: str, drawer: str) -> None:
        async with _redis_errors(f"game {game_id} drawing lease"):
            await self._release_draw_script(keys=[drawing_key(game_id)], args=[drawer])

    async def unshown(self, due_by: float | None = None, limit: int = 100) -> list[str]:
        """Ids of games whose boards may be behind: those due by `due_by` (None: all)."""
        top: float | str = "+inf" if due_by is None else due_by
        async with _redis_errors("unshown boards"):
            found = await self._r.zrangebyscore(UNSHOWN_KEY, "-inf", top, start=0, num=limit)
        return [str(g) for g in found]

    async def claim_unshown(self, game_id: str, lease: float = SHOW_LEASE, force: bool = False) -> bool:
        """Take the redrawing of a marked game for `lease` seconds (if it is due, or `force`)."""
        async with _redis_errors(f"claim unshown {game_id}"):
            claimed = await self._claim_unshown_script(
                keys=[UNSHOWN_KEY], args=[game_id, round(self._clock(), 3), lease, "1" if force else "0"]
            )
        return bool(claimed)

    async def postpone_unshown(self, game_id: str, seconds: float) -> None:
        """A marked game's boards could not be shown: due again in `seconds` (if it is still marked)."""
        async with _redis_errors(f"postpone unshown {game_id}"):
            await self._r.zadd(UNSHOWN_KEY, {game_id: round(self._clock() + seconds, 3)}, xx=True)

    async def forget_unshown(self, game_id: str) -> None:
        """Stop trying to show a game's boards (it expired, or they cannot be shown at all)."""
        async with _redis_errors(f"forget unshown {game_id}"):
            await self._r.zrem(UNSHOWN_KEY, game_id)

    # ------------------------------------------------------------------ turn reminders

    def _remind_at(self, table: Table) -> str:
        """When the person on turn in `table` is due a turn reminder, as the save script takes it ("": none)."""
        if self.remind_after <= 0 or table.waiting_for is None:
            return ""
        return repr(round(self._clock() + self.remind_after, 3))

    async def due_reminders(self, limit: int = 100) -> list[str]:
        """Ids of games whose turn reminder is due now."""
        async with _redis_errors("due reminders"):
            found = await self._r.zrangebyscore(REMIND_KEY, "-inf", self._clock(), start=0, num=limit)
        return [str(g) for g in found]

    async def claim_reminder(self, game_id: str, table: Table | None, per_game: int) -> int:
        """Take a due reminder of the game (`table`: as just loaded; None: it is gone), atomically: 0 if not
        taken (not due, another worker took it, or the game changed), -1 if it left without a reminder (the
        game is gone, waits for nobody, or its player on turn had `per_game` in this game of the series), else
        which reminder of that player in this game it is."""
        side = None if table is None else table.waiting_for
        version, number = ("-1", "0") if table is None else (str(table.version), str(table.number))
        async with _redis_errors(f"claim reminder {game_id}"):
            claimed = await self._claim_reminder_script(
                keys=[REMIND_KEY, game_key(game_id), reminded_key(game_id)],
                args=[
                    game_id,
                    round(self._clock(), 3),
                    version,
                    number,
                    0 if side is None else per_game,
                    ACTIVE_TTL,
                    "wb"[side] if side is not None else "-",
                ],
            )
        return int(claimed)

    async def drop_reminder(self, game_id: str) -> None:
        """Give up a game's turn reminder (its record cannot be read)."""
        async with _redis_errors(f"drop reminder {game_id}"):
            await self._r.zrem(REMIND_KEY, game_id)

    # ------------------------------------------------------------------ group lobbies

    async def open_lobby(self, lobby: Lobby) -> Lobby | None:
        """Open the chat's lobby, atomically: LobbyTaken if the chat has a live game or another person's
        open lobby. The starter's own open lobby is replaced: it is returned (its message is stale)."""
        async with _redis_errors(f"open lobby in chat {lobby.chat_id}"):
            answer = await self._open_lobby_script(
                keys=[lobby_key(lobby.chat_id), chat_key(lobby.chat_id)],
                args=[_json(lobby.to_json()), LOBBY_TTL, str(lobby.starter.user_id)],
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
            try:
                await pipe.execute()
            except WatchError:
                return False
        return True

    async def start_from_lobby(self, lobby: Lobby, table: Table) -> None:
        """Close the lobby and create its game in one step: Gone if the lobby was joined or cancelled
        first, ChatBusy if the chat has a live game, VersionConflict if the game exists."""
        await self.create(table, consumes=((lobby_key(lobby.chat_id), "id", lobby.id),))

    # ------------------------------------------------------------------ friend invitations

    async def put_invite(self, invite: Invite) -> str | None:
        """Store an invitation, atomically replacing the starter's previous one; returns the replaced token."""
        async with _redis_errors(f"invite {invite.token}"):
            old = await self._put_invite_script(
                keys=[user_invite_key(invite.starter.user_id), invite_key(invite.token)],
                args=[_json(invite.to_json()), INVITE_TTL, invite.token, INVITE_PREFIX],
            )
        return str(old) or None

    async def peek_invite(self, token: str) -> Invite | None:
        async with _redis_errors(f"invite {token}"):
            raw = await self._r.get(invite_key(token))
        return None if raw is None else Invite.from_json(json.loads(raw))

    async def start_from_invite(self, invite: Invite, table: Table) -> None:
        """Use the invitation up and create its game in one step: Gone if it was used or withdrawn first,
        ChatBusy if one of the players has a live game."""
        await self.create(table, consumes=((invite_key(invite.token), "token", invite.token),))
        key = user_invite_key(invite.starter.user_id)  # the starter's pointer: only an index, expiring
        try:
            async with (
                _redis_errors(f"invite {invite.token} used"),
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
        async with _redis_errors(f"user {user_id} invite"):
            token = await self._r.get(user_invite_key(user_id))
        return None if token is None else await self.peek_invite(str(token))

    async def cancel_invite(self, user_id: int) -> Invite | None:
        """Withdraw the user's pending invitation (atomically); returns it, or None if there was none."""
        async with _redis_errors(f"cancel invite of {user_id}"):
            raw = await self._cancel_invite_script(keys=[user_invite_key(user_id)], args=[INVITE_PREFIX])
        return Invite.from_json(json.loads(raw)) if raw else None

    # ------------------------------------------------------------------ inline challenges

    async def open_challenge(self, challenger: Person, variant: str, target: str | None) -> Challenge:
        """The user's open challenge of this kind (reused while open), or a new one."""
        fresh = Challenge(new_id(12), variant, challenger, target)
        async with _redis_errors(f"challenge of {challenger.user_id}"):
            _, raw = await self._challenge_script(
                keys=[user_challenge_key(challenger.user_id, variant, target)],
                args=[fresh.token, _json(fresh.to_json()), CHALLENGE_TTL, CHALLENGE_PREFIX],
            )
        return Challenge.from_json(json.loads(raw))

    async def challenge(self, token: str) -> Challenge | None:
        async with _redis_errors(f"challenge {token}"):
            raw = await self._r.get(challenge_key(token))
        return None if raw is None else Challenge.from_json(json.loads(raw))

    async def withdraw_challenge(self, token: str) -> bool:
        """Delete a challenge (its card says so); False if it was already used or withdrawn."""
        async with _redis_errors(f"withdraw challenge {token}"):
            return bool(await self._r.delete(challenge_key(token)))

    async def start_from_challenge(self, challenge: Challenge, table: Table) -> None:
        """Use the challenge up and create its game in one step: Gone if it was accepted or withdrawn first."""
        await self.create(table, consumes=((challenge_key(challenge.token), "token", challenge.token),))

    async def media_file(self, name: str) -> str | None:
        async with _redis_errors(f"media {name}"):
            found = await self._r.get(media_key(name))
        return None if found is None else str(found)

    async def set_media_file(self, name: str, file_id: str) -> None:
        async with _redis_errors(f"media {name}"):
            await self._r.set(media_key(name), file_id, ex=MEDIA_TTL)

    # ------------------------------------------------------------------ quick match

    async def seek(self, seeker: Seeker, ttl: float) -> SeekOutcome:
        """One atomic look for a quick-match partner of `seeker` (lua/seek.lua): a partner to create the game
        with (start_from_seek), or `seeker` queued; refused ("busy", "seeking") when they cannot look now.
        `ttl`: seconds the queue and the record live (the search's timeout and a grace)."""
        user_id = seeker.person.user_id
        async with _redis_errors(f"seek of {user_id}"):
            kind, detail, dropped = await self._seek_script(
                keys=[seek_key(seeker.game), user_seek_key(user_id)],
                args=[
                    str(user_id),
                    _json(seeker.to_json()),
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
        await self.create(table, consumes=((user_seek_key(user_id), "token", partner.token),))
        try:
            async with _redis_errors(f"stale queue entry of {user_id}"):
                await self._drop_stale_script(
                    keys=[seek_key(partner.game), user_seek_key(user_id)], args=[str(user_id), partner.game]
                )
        except StorageError as err:  # only an index: the next look drops it
            log.info("quick match %s: the partner's stale queue entry is left: %s", table.id, err)

    async def search_of(self, user_id: int) -> Seeker | None:
        """The user's quick-match search, if they are looking."""
        async with _redis_errors(f"seek of {user_id}"):
            raw = await self._r.get(user_seek_key(user_id))
        return None if raw is None else Seeker.from_json(json.loads(raw))

    async def stop_seek(self, user_id: int, token: str | None = None) -> Seeker | None:
        """End the user's search (only the one with `token`, if given) atomically: its record and its queue
        entry; returns it, or None if there was no such search (paired, stopped or timed out first)."""
        async with _redis_errors(f"stop seek of {user_id}"):
            raw = await self._stop_seek_script(
                keys=[user_seek_key(user_id), *(seek_key(v) for v in VARIANTS)],
                args=[str(user_id), token or ""],
            )
        return Seeker.from_json(json.loads(raw)) if raw else None

    async def expire_seekers(self, cutoff: float, limit: int = 100) -> list[tuple[Seeker, str | None]]:
        """End the searches that began at or before `cutoff` (at most `limit` per variant), atomically: each
        (search, the id of a live game its user started meanwhile, or None) is returned to one caller only."""
        async with _redis_errors("expire seekers"):
            flat = await self._sweep_seek_script(
                keys=[seek_key(v) for v in VARIANTS], args=[repr(cutoff), limit, *VARIANTS]
            )
        return [
            (Seeker.from_json(json.loads(raw)), str(game) or None)
            for raw, game in zip(flat[::2], flat[1::2], strict=True)
        ]

    # ------------------------------------------------------------------ players the bot cannot reach

    async def mark_unreachable(self, game_id: str, board: str, now: float) -> bool:
        """Mark a board's player as unreachable (403); True the first time since their board was last shown."""
        async with _redis_errors(f"game {game_id} unreachable {board}"):
            return bool(
                await self._unreachable_script(
                    keys=[messages_key(game_id), game_key(game_id)], args=[board, str(int(now))]
                )
            )

    async def unreachable(self, game_id: str) -> set[str]:
        """The board keys of the game's players the bot could not reach since their board was last shown."""
        async with _redis_errors(f"game {game_id} unreachable"):
            fields = await self._r.hkeys(messages_key(game_id))
        return {str(f)[len(UNREACHABLE_FIELD) :] for f in fields if str(f).startswith(UNREACHABLE_FIELD)}

    # ------------------------------------------------------------------ a user's settings

    async def user_settings(self, user_id: int) -> dict[str, str]:
        """The user's settings hash (empty: none saved); reading it keeps it SETTINGS_TTL longer."""
        key = user_settings_key(user_id)
        async with _redis_errors(f"user {user_id} settings"), self._r.pipeline(transaction=False) as pipe:
            pipe.hgetall(key)
            pipe.expire(key, SETTINGS_TTL)
            fields, _ = await pipe.execute()
        return {str(k): str(v) for k, v in fields.items()}

    async def set_user_setting(self, user_id: int, setting: str, choice: str) -> None:
        """Save one of the user's settings (the hash lives SETTINGS_TTL from now)."""
        key = user_settings_key(user_id)
        async with _redis_errors(f"user {user_id} settings"), self._r.pipeline(transaction=True) as pipe:
            pipe.hset(key, setting, choice)
            pipe.expire(key, SETTINGS_TTL)
            await pipe.execute()

    async def take_dice_secret(self, user_id: int, fresh: str, computer: bool = False) -> str | None:
        """The user's pending dice secret, replaced by `fresh` in the same step (GETSET: two games starting
        at once take two different ones); None if they had none yet. `computer`: the computer's part for
        the user's game against it."""
        key = dice_secret_key(user_id, computer)
        async with _redis_errors(f"user {user_id} dice secret"):
            found = await self._r.set(key, fresh, ex=SETTINGS_TTL, get=True)
        return None if found is None else str(found)

    async def pending_dice_secret(self, user_id: int, fresh: str, computer: bool = False) -> str:
        """The user's pending dice secret (`fresh` becomes it if they had none): what /seed commits to.
        `computer`: the computer's part for the user's next game against it."""
        key = dice_secret_key(user_id, computer)
        async with _redis_errors(f"user {user_id} dice secret"), self._r.pipeline(transaction=True) as pipe:
            pipe.set(key, fresh, ex=SETTINGS_TTL, nx=True)
            pipe.get(key)
            _, found = await pipe.execute()
        return str(found)

    async def unmark_shown(self, game_id: str, board: str) -> None:
        """Forget which version one board shows (its look changed: its player's language or colours), so
        that the next draw of the game draws it again."""
        async with _redis_errors(f"game {game_id} board {board}"):
            await self._r.hdel(messages_key(game_id), SHOWN_FIELD + board)

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
            pipe.delete(key, messages_key(table.id), reminded_key(table.id))
            pipe.zrem(UNSHOWN_KEY, table.id)
            pipe.zrem(REMIND_KEY, table.id)
            for pointer, value in zip(pointers, current, strict=True):
                if value == table.id:
                    pipe.delete(pointer)
            for p in table.players:
                if not p.is_computer:
                    pipe.srem(user_games_key(p.user_id), table.id)
            await pipe.execute()
        self._parsed.pop(table.id, None)

    async def forget_game(
        self, game_id: str, user_id: int, resign: Callable[[Table], Table], attempts: int = 5
    ) -> tuple[str, Table, Table | None] | None:
        """A user asked to delete their data: their finished game is deleted ("deleted", old, None), their game
        in progress becomes `resign(table)` ("resigned", old, new); None if the game is gone or not theirs.
        Loaded again if another change came first (at most `attempts` times)."""
        for _ in range(attempts):
            table = await self.load(game_id)
            if table is None or table.side_of(user_id) is None:
                return None
            try:
                if table.over:
                    await self.delete_game(table)
                    return "deleted", table, None
                new = resign(table)
                await self.save(new)
            except VersionConflict:
                continue
            return "resigned", table, new
        raise VersionConflict(
            f"game {game_id}: changed {attempts} times while deleting the data of {user_id}"
        )

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
        """Delete every per-user key of `user_id` (private chat pointer, invitation, games set, settings,
        limits); returns the keys that existed."""
        keys = [
            chat_key(user_id),
            user_invite_key(user_id),
            user_games_key(user_id),
            user_settings_key(user_id),
            dice_secret_key(user_id),
            dice_secret_key(user_id, computer=True),
            user_seek_key(user_id),
            user_homes_key(user_id),
            *(limit_key(f"u{user_id}", kind) for kind in ("press", "command", "inline")),
            *(limit_key(f"c{user_id}", kind) for kind in ("press", "command")),
        ]
        async with _redis_errors(f"forget user {user_id}"):
            token = await self._r.get(user_invite_key(user_id))
            if token is not None:
                keys.append(invite_key(str(token)))
            # the homes of the user's menus and questions, and of every message in their private chat
            keys.extend(str(key) for key in await self._r.smembers(user_homes_key(user_id)))
            async for key in self._r.scan_iter(match=home_key(f"{user_id}:*"), count=100):
                keys.append(str(key))
            async for key in self._r.scan_iter(match=f"nardy:user:{user_id}:challenge:*", count=100):
                keys.append(str(key))
                challenge = await self._r.get(key)
                if challenge is not None:
                    keys.append(challenge_key(str(challenge)))
            keys = list(dict.fromkeys(keys))  # a home may be both listed and in the private chat
            async with self._r.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.exists(key)
                for key in keys:
                    pipe.delete(key)
                for variant in VARIANTS:  # the user's entries in the quick-match queues
                    pipe.zrem(seek_key(variant), str(user_id))
                found = await pipe.execute()
        return [key for key, there in zip(keys, found[: len(keys)], strict=True) if there]

    # ------------------------------------------------------------------ inbound limits and throttles

    async def take_tokens(self, buckets: tuple[Bucket, ...]) -> tuple[Bucket | None, bool]:
        """Take one token from each bucket, or from none: (None, False) when allowed, else (the empty
        bucket, whether this is the first refusal since it last allowed: the one that gets an answer)."""
        args: list[float] = []
        for bucket in buckets:
            args += [bucket.capacity, bucket.per_second]
        async with _redis_errors("inbound limits"):
            index, notice = await self._take_tokens_script(keys=[b.key for b in buckets], args=args)
        if not index:
            return None, False
        return buckets[int(index) - 1], bool(notice)

    async def once(self, what: str, seconds: float) -> bool:
        """True at most once per `seconds` for `what` (SET NX with an expiry): throttles shared by workers."""
        return await self._first(once_key(what), seconds, f"once {what}")

    async def forget_once(self, what: str) -> None:
        """Let `what` happen again at once (the thing done once failed)."""
        async with _redis_errors(f"once {what}"):
            await self._r.delete(once_key(what))

    async def first_seen(self, what: str, seconds: float) -> float:
        """When `what` was first seen in the last `seconds` (unix time; now, if this is the first time)."""
        now = self._clock()
        async with _redis_errors(f"first seen {what}"):
            key = once_key(what)
            if await self._r.set(key, repr(now), nx=True, px=max(1, int(seconds * 1000))):
                return now
            found = await self._r.get(key)
        return now if found is None else float(found)

    async def _first(self, key: str, seconds: float, what: str) -> bool:
        """SET NX of a value of our own: a retry after a lost answer finds our value and is still first."""
        mark = secrets.token_hex(8)
        async with _redis_errors(what):
            if await self._r.set(key, mark, nx=True, px=max(1, int(seconds * 1000))):
                return True
            return bool(await self._r.get(key) == mark)

    # ------------------------------------------------------------------ the homes of buttons

    async def home(self, where: str) -> str | None:
        """The home written down for the message `where` (bot/button_homes.py), None if none."""
        async with _redis_errors(f"home of {where}"):
            found = await self._r.get(home_key(where))
        return None if found is None else str(found)

    async def set_home(self, where: str, home: str, seconds: int = button_homes.MENU_TTL) -> None:
        """Write down that the message `where` is `home` now (sent as it, or turned into it). A home that
        names a user is listed among theirs too, for /forget."""
        user = button_homes.owner(home)
        async with _redis_errors(f"home of {where}"), self._r.pipeline(transaction=True) as pipe:
            pipe.set(home_key(where), home, ex=seconds)
            if user is not None:
                pipe.sadd(user_homes_key(user), home_key(where))
                pipe.expire(user_homes_key(user), max(seconds, button_homes.MENU_TTL))
            await pipe.execute()

    async def drop_home(self, where: str, home: str) -> None:
        """The message `where` (whose home was `home`) has no buttons any more: its home is forgotten."""
        user = button_homes.owner(home)
        async with _redis_errors(f"home of {where}"), self._r.pipeline(transaction=True) as pipe:
            pipe.delete(home_key(where))
            if user is not None:
                pipe.srem(user_homes_key(user), home_key(where))
            await pipe.execute()

    # ------------------------------------------------------------------ webhook deliveries

    async def first_delivery(self, update_id: int) -> bool:
        """True the first time any worker sees `update_id` (SET NX), False for a repeated delivery."""
        return await self._first(update_key(update_id), UPDATE_TTL, f"update {update_id}")

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
