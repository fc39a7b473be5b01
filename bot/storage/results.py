"""Results of finished games: per-player statistics, ratings, histories and leaderboards (the values are
bot/model/stats.py's; the keys and their lifetimes bot/storage/keys.py's).

Recording a result is one Lua function, `nardy_record` (lua/record_result.lua), run in Redis: atomic, and
idempotent by the game's key (`<table id>/<game number>`): the first call leaves a marker holding its
outcome, and any later or racing call with the same key changes nothing and returns that outcome. The game's
save script (lua/save_game.lua) includes it, so that a game's end and its result are one atomic step;
`record()` runs it on its own (tests, and a fallback). The scripts build the key names from the game's JSON
instead of receiving them as KEYS: they run on a single Redis node (as the bot's storage does), not on a
Redis Cluster.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from bot.model.stats import (
    HIDDEN,
    HIDDEN_FIELD,
    HISTORY_GAMES,
    VARIANTS,
    FinishedGame,
    HistoryEntry,
    PlayerStats,
    RatingPoint,
    RecordOutcome,
    TopEntry,
    variant_stats,
)
from bot.storage import scripts
from bot.storage.client import redis_errors
from bot.storage.keys import (
    chat_board_key,
    global_board_key,
    history_key,
    marker_key,
    rating_key,
    stats_key,
    user_settings_key,
)


def _text(x: Any) -> str:
    return x.decode() if isinstance(x, bytes) else str(x)


class ResultStore:
    """Statistics, ratings, histories and leaderboards: written by recording finished games, read by
    /stats, /top and /history, deleted by /forget."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._r = client
        self._record_script = scripts.register(client, "record_game")
        self._forget_script = scripts.register(client, "forget_stats")
        self._hide_script = scripts.register(client, "hide_from_top")
        self._top_script = scripts.register(client, "top")

    # ------------------------------------------------------------------ writes

    async def record(self, finished: FinishedGame, now: float) -> RecordOutcome:
        """Record a finished game (atomic; once per `finished.key`: a repeat returns the first outcome)."""
        async with redis_errors(f"record game {finished.key}"):
            raw = await self._record_script(keys=[], args=[finished.to_json(), repr(now)])
        return RecordOutcome.from_json(_text(raw))

    async def forget_user(self, user_id: int) -> int:
        """Delete the user's statistics, ratings, history and name, and take them off every leaderboard.
        Returns how many keys and leaderboard entries went (0: there was nothing)."""
        async with redis_errors(f"forget stats of user {user_id}"):
            return int(await self._forget_script(keys=[], args=[user_id]))

    async def set_hidden(self, user_id: int, hidden: bool) -> None:
        """Hide the user from the global leaderboards (or show them again, if they qualify), and keep the
        choice (the /settings hash's "top" field, which later results read)."""
        async with redis_errors(f"hide user {user_id}"):
            await self._hide_script(keys=[], args=[user_id, "1" if hidden else "0"])

    # ------------------------------------------------------------------ reads

    async def recorded(self, key: str) -> RecordOutcome | None:
        """What recording the game `key` ("<table id>/<number>") did, if it was recorded (its marker)."""
        async with redis_errors(f"read the record of game {key}"):
            raw = await self._r.get(marker_key(key))
        return None if raw is None else RecordOutcome.from_json(_text(raw))

    async def stats_of(self, user_id: int) -> PlayerStats:
        """The user's statistics in both variants (zeros and the start rating where nothing was recorded)."""
        async with redis_errors(f"stats of user {user_id}"), self._r.pipeline(transaction=False) as pipe:
            pipe.hgetall(stats_key(user_id))
            pipe.hget(user_settings_key(user_id), HIDDEN_FIELD)
            raw, hidden = await pipe.execute()
        fields = {_text(k): _text(v) for k, v in raw.items()}
        return PlayerStats(
            user_id,
            fields.get("name", ""),
            hidden is not None and _text(hidden) == HIDDEN,
            tuple(variant_stats(v, fields) for v in VARIANTS),
            _count(fields.get(TOURNEYS_FIELD)),
            _count(fields.get(TOURNEY_WINS_FIELD)),
        )

    async def rating_history(self, user_id: int, variant: str) -> tuple[RatingPoint, ...]:
        """The user's last RATING_POINTS ratings in `variant`, oldest first (empty: never rated)."""
        if variant not in VARIANTS:
            raise ValueError(f"variant {variant!r} is not one of {VARIANTS}")
        async with redis_errors(f"rating history of user {user_id}"):
            raw = await self._r.lrange(rating_key(user_id, variant), 0, -1)
        points = []
        for item in raw:
            at, _, rating = _text(item).partition(" ")
            points.append(RatingPoint(float(at), float(rating)))
        return tuple(points)

    async def top_of_chat(self, chat_id: int, variant: str, n: int = 10) -> tuple[TopEntry, ...]:
        """A group's leaderboard in `variant`: its best `n` players by rating."""
        return await self._top(chat_board_key(chat_id, variant), variant, n)

    async def top_global(self, variant: str, n: int = 10) -> tuple[TopEntry, ...]:
        """The global leaderboard in `variant` (MIN_RATED_MATCHES rated matches, not hidden): the best `n`."""
        return await self._top(global_board_key(variant), variant, n)

    async def _top(self, board: str, variant: str, n: int) -> tuple[TopEntry, ...]:
        if variant not in VARIANTS:
            raise ValueError(f"variant {variant!r} is not one of {VARIANTS}")
        if n < 1:
            return ()
        async with redis_errors(f"leaderboard {board}"):
            flat = [_text(x) for x in await self._top_script(keys=[board], args=[variant, n])]
        return tuple(
            TopEntry(
                int(flat[i]),
                flat[i + 2],
                float(flat[i + 1]),
                int(flat[i + 3]),
                int(flat[i + 4]),
                int(flat[i + 5]),
            )
            for i in range(0, len(flat), 6)
        )

    async def history_of(self, user_id: int, n: int = 10) -> tuple[HistoryEntry, ...]:
        """The user's last `n` games (at most HISTORY_GAMES), newest first, with their opponents' names now."""
        if n < 1:
            return ()
        async with redis_errors(f"history of user {user_id}"):
            raw = [_text(x) for x in await self._r.lrange(history_key(user_id), 0, min(n, HISTORY_GAMES) - 1)]
            entries = [HistoryEntry.from_json(item) for item in raw]
            opponents = sorted({e.opponent_id for e in entries if e.opponent_id})
            names: dict[int, str] = {}
            if opponents:
                async with self._r.pipeline(transaction=False) as pipe:
                    for opponent in opponents:
                        pipe.hget(stats_key(opponent), "name")
                    found = await pipe.execute()
                names = {o: _text(name) for o, name in zip(opponents, found, strict=True) if name is not None}
        return tuple(HistoryEntry.from_json(item, names) for item in raw)


TOURNEYS_FIELD, TOURNEY_WINS_FIELD = (
    "tourneys",
    "tourney_wins",
)  # u:stats; save_tournament.lua spells them out


def _count(raw: str | None) -> int:
    try:
        return max(0, int(raw or 0))
    except ValueError:
        return 0
