"""Games: their records, their board messages and the versions those show, the leases of drawing them.

A game is one JSON record (Table.to_json()) changed only by compare-and-set: `save` stores a table only if
the stored version is the one before it, in one script (lua/save_game.lua) that in the same atomic step
points the game's chats at it, lists it in its players' games sets, consumes what started it (a lobby, an
invitation, a challenge, a quick-match search), schedules the drawing of its boards and its turn reminder,
and records the results of the games it ended (lua/record_result.lua, the statistics of
bot/storage/results.py). Here is everything that happens when a game is saved.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace

import redis.asyncio as aioredis

from bot.model.clock import WARN_AT
from bot.model.table import Table
from bot.observe.metrics import current
from bot.storage import scripts
from bot.storage.client import ChatBusy, Gone, StorageTimeout, VersionConflict, compact_json, redis_errors
from bot.storage.keys import (
    ACTIVE_TTL,
    CLOCKS_KEY,
    FINISHED_TTL,
    LIVE_GAMES_KEY,
    REMIND_KEY,
    SHOWN_FIELD,
    UNREACHABLE_FIELD,
    UNSHOWN_KEY,
    analysis_key,
    chat_key,
    drawing_key,
    game_key,
    home_key,
    messages_key,
    reminded_key,
    user_games_key,
)
from bot.storage.sentinel import NO_REPLICAS, Replication

PARSED_RECORDS = 2048  # games whose last record this process read or wrote is kept parsed...
PARSED_SECONDS = 600.0  # ...for at most this long after it was read or written (checked at each one)
SHOW_LEASE = 30.0  # seconds the worker that saved a change has to show it before any worker's healer may


def _clock_times(table: Table) -> list[str]:
    """When a live game's running clock falls, and when its player is warned, as the save script takes them
    ("" for none: no clock runs, or too little time is left to warn before the flag)."""
    clock = table.clock
    due = None if clock is None or table.over else clock.deadline()
    if due is None or clock is None:
        return ["", ""]
    warn = due - WARN_AT
    since = clock.since if clock.since is not None else due
    return [repr(round(due, 3)), repr(round(warn, 3)) if warn > since else ""]


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


class GameStore:
    """Games and their boards: load, create, save (compare-and-set), delete; board messages, drawing leases."""

    def __init__(
        self,
        client: aioredis.Redis,
        clock: Callable[[], float] = time.time,
        replicated: Replication = NO_REPLICAS,
    ) -> None:
        # game id -> (its record as stored, that record parsed, when): a press loads the record its previous
        # press saved, and parsing it (the game's whole history) was a tenth of the bot's time per press.
        # Compared by content, so a record another worker wrote is parsed afresh.
        self._parsed: dict[str, tuple[str, Table, float]] = {}
        self._r = client
        self._clock = clock  # unix time, for the unshown boards' and the reminders' due times
        self._replicated = replicated  # the replicas that must hold a save before anyone sees it
        # seconds after a change that the person on turn against another person is due a turn reminder
        # (0: none); set by bot.telegram.app.build_application
        self.remind_after = 0.0
        self._save_script = scripts.register(client, "save_game")
        self._shown_script = scripts.register(client, "boards_shown")
        self._new_message_script = scripts.register(client, "new_message")
        self._hold_draw_script = scripts.register(client, "hold_draw")
        self._release_draw_script = scripts.register(client, "release_draw")
        self._unreachable_script = scripts.register(client, "mark_unreachable")

    # ------------------------------------------------------------------ games

    async def load(self, game_id: str) -> Table | None:
        async with redis_errors(f"load game {game_id}"), self._r.pipeline(transaction=False) as pipe:
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
        async with redis_errors(f"chat {chat_id} game"):
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
        metrics = current()
        began = time.perf_counter()
        try:
            await self._write(table, expected=table.version - 1, new_boards=new_boards)
        finally:
            if metrics is not None:
                metrics.save.observe(time.perf_counter() - began)

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
            CLOCKS_KEY,
            LIVE_GAMES_KEY,
        ]
        raw = compact_json(table.to_json())
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
            compact_json(ended) if ended else ""
        )  # each game's JSON passed on as it is (cjson rounds numbers)
        args.append(repr(now))
        args += _clock_times(table)
        what = f"save game {table.id} v{table.version}"
        async with redis_errors(what):
            if self._replicated.replicas == 0:
                saved, stored, reason, detail = await self._save_script(keys=keys, args=args)
            else:  # WAIT counts the writes of its own connection: the save and the wait in one pipeline
                async with self._r.pipeline(transaction=False) as pipe:
                    await self._save_script(keys=keys, args=args, client=pipe)
                    pipe.execute_command("WAIT", self._replicated.replicas, self._replicated.timeout_ms)
                    (saved, stored, reason, detail), held = await pipe.execute()
                if saved and int(held) < self._replicated.replicas:
                    raise StorageTimeout(
                        f"{what}: {held} of {self._replicated.replicas} replicas held it after "
                        f"{self._replicated.timeout} s: not shown (it may yet be lost in a failover)"
                    )
        if not saved:
            if reason == "busy":
                raise ChatBusy(f"game {table.id}: a chat of it already has the live game {detail}", detail)
            if reason == "gone":
                raise Gone(f"game {table.id}: {detail} was taken or withdrawn first")
            raise VersionConflict(
                f"game {table.id}: stored version {stored or None}, this change was made from {expected}"
            )
        self._remember(table.id, raw, table)

    def _remind_at(self, table: Table) -> str:
        """When the person on turn in `table` is due a turn reminder, as the save script takes it ("": none)."""
        if self.remind_after <= 0 or table.waiting_for is None:
            return ""
        return repr(round(self._clock() + self.remind_after, 3))

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

    # ------------------------------------------------------------------ deleting (/forget)

    async def games_of_user(self, user_id: int) -> list[str]:
        """The ids of the games `user_id` played in (some may have expired already)."""
        async with redis_errors(f"user {user_id} games"):
            return sorted(str(g) for g in await self._r.smembers(user_games_key(user_id)))

    async def delete_game(self, table: Table) -> None:
        """Delete a game, its messages hash, the chat pointers that still point to it, its index entries;
        VersionConflict if the game changed since `table` was loaded (a rematch, say)."""
        key = game_key(table.id)
        pointers = [chat_key(c) for c in table.chats] + [chat_key(p.user_id) for p in table.players]
        async with redis_errors(f"delete game {table.id}"), self._r.pipeline(transaction=True) as pipe:
            await pipe.watch(key, *pointers)
            raw = await pipe.get(key)
            if raw is not None and int(json.loads(raw)["version"]) != table.version:
                raise VersionConflict(f"game {table.id}: changed while its data was being deleted")
            current = await pipe.mget(pointers)
            pipe.multi()
            pipe.delete(key, messages_key(table.id), reminded_key(table.id), analysis_key(table.id))
            pipe.zrem(UNSHOWN_KEY, table.id)
            pipe.zrem(REMIND_KEY, table.id)
            pipe.zrem(LIVE_GAMES_KEY, table.id)
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

    # ------------------------------------------------------------------ board messages

    async def new_message(
        self, game_id: str, board: str, replaces: int | None, message_id: int, chat_id: int, home: str
    ) -> bool:
        """Make `message_id` (in `chat_id`) the board message of `board` if that board still has the
        message it `replaces` (None: no message), and write its `home` down (what its buttons belong to:
        bot/telegram/button_homes.py); False if another worker set a different one first."""
        async with redis_errors(f"game {game_id} message {board}"):
            done = await self._new_message_script(
                keys=[messages_key(game_id), game_key(game_id), home_key(f"{chat_id}:{message_id}")],
                args=[
                    board,
                    "" if replaces is None else str(replaces),
                    str(message_id),
                    home,
                    str(FINISHED_TTL),
                ],
            )
        return bool(done)

    async def set_message(self, game_id: str, board: str, message_id: int) -> None:
        """Remember the board message of one board (whatever it had), for as long as the game lives."""
        async with redis_errors(f"game {game_id} message {board}"):
            ttl = int(await self._r.ttl(game_key(game_id)))  # the hash expires with its game
            async with self._r.pipeline(transaction=True) as pipe:
                pipe.hset(messages_key(game_id), board, str(message_id))
                pipe.hdel(messages_key(game_id), SHOWN_FIELD + board)
                pipe.expire(messages_key(game_id), ttl if ttl > 0 else ACTIVE_TTL)
                await pipe.execute()

    async def drop_message(self, game_id: str, board: str) -> None:
        """Forget one board's message id (and the version it showed)."""
        async with redis_errors(f"game {game_id} message {board}"):
            await self._r.hdel(messages_key(game_id), board, SHOWN_FIELD + board)

    async def unmark_shown(self, game_id: str, board: str) -> None:
        """Forget which version one board shows (its look changed: its player's language or colours), so
        that the next draw of the game draws it again."""
        async with redis_errors(f"game {game_id} board {board}"):
            await self._r.hdel(messages_key(game_id), SHOWN_FIELD + board)

    async def shown(
        self, game_id: str, version: int, boards: tuple[str, ...], complete: bool, drawer: str
    ) -> int:
        """`boards` of the game now show `version`. If the game is still at that version, the drawing lease
        of `drawer` is released and (`complete`: every board shows it) the game leaves the unshown set.
        Returns the stored version: a larger one is to be drawn next (-1: the game is gone)."""
        async with redis_errors(f"game {game_id} shown v{version}"):
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
        async with redis_errors(f"game {game_id} drawing lease"):
            answer = await self._hold_draw_script(
                keys=[drawing_key(game_id), messages_key(game_id)], args=[drawer, max(1, int(seconds * 1000))]
            )
        if not answer[0]:
            return max(0.0, int(answer[1]) / 1000)
        flat = answer[1]
        return _split_messages(dict(zip(flat[::2], flat[1::2], strict=True)))

    async def release_draw(self, game_id: str, drawer: str) -> None:
        async with redis_errors(f"game {game_id} drawing lease"):
            await self._release_draw_script(keys=[drawing_key(game_id)], args=[drawer])

    # ------------------------------------------------------------------ players the bot cannot reach

    async def mark_unreachable(self, game_id: str, board: str, now: float) -> bool:
        """Mark a board's player as unreachable (403); True the first time since their board was last shown."""
        async with redis_errors(f"game {game_id} unreachable {board}"):
            return bool(
                await self._unreachable_script(
                    keys=[messages_key(game_id), game_key(game_id)], args=[board, str(int(now))]
                )
            )

    async def unreachable(self, game_id: str) -> set[str]:
        """The board keys of the game's players the bot could not reach since their board was last shown."""
        async with redis_errors(f"game {game_id} unreachable"):
            fields = await self._r.hkeys(messages_key(game_id))
        return {str(f)[len(UNREACHABLE_FIELD) :] for f in fields if str(f).startswith(UNREACHABLE_FIELD)}
