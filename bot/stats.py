"""Results of finished games in Redis: per-player statistics, ratings, histories and leaderboards.

Recording a result is one Lua function, `nardy_record` (bot/storage/lua/record_result.lua), run in Redis:
atomic, and idempotent by the game's key (`<table id>/<game number>`): the first call leaves a marker holding
its outcome, and any later or racing call with the same key changes nothing and returns that outcome. The
game's save script (bot/storage/lua/save_game.lua) includes it so that the result is recorded in the same
atomic step as the game's end; `record()` runs it on its own (tests, and a fallback).

What counts:
- The main counters of a variant (games, wins, losses, marses and koks won and lost, points won and lost,
  the current and best streak of wins) are games against people. Games against the computer have their
  own block per level (games, wins, points won and lost): they never change the rating nor the main
  counters, so a rating and its record describe the same games. A game against "a former player" (one who
  used /forget: user id 0 and no level) counts in the main counters, unrated.
- Every game of a match counts in the counters; the match itself changes the ratings once, when it is
  over, with its length N (a single game: N = 1), by the FIBS formula (bot/ratings.py), and only when both
  players are people (two different user ids, neither 0). The computer (user id 0) has no statistics.
- Leaderboards are sorted sets scored by rating, so /top never scans the users: one per group chat and
  variant (the people who played a game against a person in that group; their rating is their rating in
  that variant, from all their games), and one global per variant (people with at least MIN_RATED_MATCHES
  rated matches who did not hide in /settings). Hiding takes a player off the global boards only; they
  stay on their groups' boards (those are the group's own). A player's rating change updates every board
  they are on, found in their `boards` set.

Keys (bytes are rough, for a player active in both variants; "u" stands for nardy:user:<id>):
  u:stats                     hash: "name" (for display), per variant "<variant>:<counter>" (games, wins,
                              losses, mars_won, mars_lost, koks_won, koks_lost, points_won, points_lost,
                              streak, best_streak, rating, experience, rated) and the computer's block
                              "<variant>:cpu:<level>:<games|wins|points_won|points_lost>". ~0.5-1 KB.
  u:rating:<variant>          list: the last RATING_POINTS (100) ratings, "<unix time> <rating>", oldest
                              first. ~3.3 KB each when full.
  u:history                   list: the last HISTORY_GAMES (20) games, JSON, newest first. ~4 KB. The
                              opponent is kept by user id, their name read when shown: an opponent who used
                              /forget (or whose statistics expired) shows as "a former player".
  u:boards                    set: the chat leaderboards the player is on (to update and forget them
                              without a scan). ~170 bytes a chat and variant.
  Each is set to expire USER_TTL (365 days) after it was last written: a player away for a year is
  forgotten. Their entries on leaderboards are dropped by the next /top that meets them. About 12 KB for a
  player with full histories in both variants: 1 GB holds some 80,000 such players.
  nardy:top:chat:<chat_id>:<variant>  sorted set: user id -> rating. ~30-80 bytes a player; 365 days after
                              the chat's last group game between people (CHAT_TTL).
  nardy:top:<variant>         sorted set: user id -> rating, the global board. ~30-80 bytes a player; 365 days
                              after its last change (bounded by the players with MIN_RATED_MATCHES rated
                              matches; those whose statistics expired are dropped when /top meets them).
  nardy:recorded:<key>        the outcome of recording that game (JSON of ratings, no names): the marker
                              that makes recording idempotent. ~280 bytes; MARKER_TTL (30 days).
  u:settings, field "top"     "hidden": the player hid from global leaderboards (/settings; bot/settings.py's
                              hash, read by the script).
The script builds these key names from the game's JSON instead of receiving them as KEYS: it runs on a
single Redis node (as the bot's storage does), not on a Redis Cluster.
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from bot import ratings
from bot.storage import StorageError, StorageUnavailable, scripts

VARIANTS = ("short", "long")
MODES = ("group", "friend", "computer", "inline", "match")
KINDS = ("oin", "mars", "koks", "home_mars")
HOWS = ("played", "resigned", "dropped", "claimed")
LEVELS = ("beginner", "intermediate", "expert")

DAY = 24 * 3600
USER_TTL = 365 * DAY  # a player's statistics, rating, history: after their last recorded game
CHAT_TTL = 365 * DAY  # a chat's leaderboard: after the last game recorded there
MARKER_TTL = 30 * DAY  # a recorded game's marker (a retry after that would count it again)
MIN_RATED_MATCHES = 5  # rated matches before a player enters the global leaderboard
HISTORY_GAMES = 20  # games kept in a player's history
RATING_POINTS = 100  # ratings kept in a player's rating history, per variant
MAX_NAME = 64  # characters of a name kept for display
TOP_PAGES = 5  # a /top reads at most this many pages of its board (stale entries are skipped and dropped)


class StatsError(StorageError):
    """Redis refused a statistics script (a bug: the input was checked before)."""


def user_key(user_id: int, what: str) -> str:
    return f"nardy:user:{user_id}:{what}"


def stats_key(user_id: int) -> str:
    return user_key(user_id, "stats")


def rating_key(user_id: int, variant: str) -> str:
    return user_key(user_id, f"rating:{variant}")


def history_key(user_id: int) -> str:
    return user_key(user_id, "history")


def boards_key(user_id: int) -> str:
    return user_key(user_id, "boards")


def chat_board_key(chat_id: int, variant: str) -> str:
    return f"nardy:top:chat:{chat_id}:{variant}"


def global_board_key(variant: str) -> str:
    return f"nardy:top:{variant}"


def marker_key(key: str) -> str:
    return f"nardy:recorded:{key}"


def settings_key(user_id: int) -> str:
    return user_key(user_id, "settings")  # bot/storage.py's user_settings_key: the /settings hash


HIDDEN_FIELD, HIDDEN = "top", "hidden"  # the /settings choice that hides from the global boards


# ---------------------------------------------------------------------- the finished game


@dataclass(frozen=True)
class PlayerRef:
    """A player of a finished game, as its statistics see them."""

    user_id: int  # 0 for the computer (and for a player who used /forget)
    name: str
    level: str | None = None  # the computer's level ("beginner" | "intermediate" | "expert"); None: a person

    @property
    def is_computer(self) -> bool:
        return self.level is not None

    @property
    def is_person(self) -> bool:
        """A person the bot keeps statistics for (not the computer, not a forgotten player)."""
        return self.level is None and self.user_id != 0

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.user_id, "name": self.name[:MAX_NAME], "level": self.level}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PlayerRef:
        return cls(int(d["id"]), str(d["name"]), None if d.get("level") is None else str(d["level"]))


@dataclass(frozen=True)
class FinishedGame:
    """One game that ended: what its players' statistics and ratings need."""

    key: str  # "<table id>/<game number>": unique per game; recording the same key twice changes nothing
    variant: str  # "short" | "long"
    mode: str  # "group" | "friend" | "computer" | "inline" | "match"
    chat_id: int | None  # the group chat of a group game (per-chat leaderboards), else None
    players: tuple[PlayerRef, PlayerRef]  # (white, black)
    winner: int  # 0 white, 1 black
    points: int  # points the winner scored in this game (cube value included)
    kind: str  # "oin" | "mars" | "koks" | "home_mars"
    how: str  # "played" | "resigned" | "dropped" (a doubling cube passed) | "claimed"
    match_length: int  # 1: a single game; 3, 5 or 7: a match to that many points
    match_over: bool  # this game ended its match (always True when match_length == 1)
    match_winner: int | None  # 0/1 when match_over
    match_score: tuple[int, int]  # the match score after this game (white, black)
    ended_at: float  # unix time

    def __post_init__(self) -> None:
        problems = []
        if not self.key or len(self.key) > 200:
            problems.append(f"key {self.key!r:.60} is empty or longer than 200 characters")
        if self.variant not in VARIANTS:
            problems.append(f"variant {self.variant!r} is not one of {VARIANTS}")
        if self.mode not in MODES:
            problems.append(f"mode {self.mode!r} is not one of {MODES}")
        if len(self.players) != 2:
            problems.append(f"{len(self.players)} players, not 2")
        if any(p.level is not None and p.level not in LEVELS for p in self.players):
            problems.append(f"a computer level is not one of {LEVELS}")
        if self.winner not in (0, 1):
            problems.append(f"winner {self.winner} is not 0 (white) or 1 (black)")
        if self.points < 1:
            problems.append(f"points {self.points} is not positive")
        if self.kind not in KINDS:
            problems.append(f"kind {self.kind!r} is not one of {KINDS}")
        if self.how not in HOWS:
            problems.append(f"how {self.how!r} is not one of {HOWS}")
        if self.match_length < 1:
            problems.append(f"match length {self.match_length} is below 1")
        if self.match_length == 1 and not self.match_over:
            problems.append("a single game (match length 1) always ends its match")
        if self.match_over != (self.match_winner is not None) or self.match_winner not in (None, 0, 1):
            problems.append(f"match winner {self.match_winner} does not fit match_over={self.match_over}")
        if len(self.match_score) != 2 or min(self.match_score) < 0:
            problems.append(f"match score {self.match_score} is not two scores")
        if problems:
            raise ValueError(f"finished game {self.key!r:.60}: " + "; ".join(problems))

    @property
    def rated(self) -> bool:
        """Whether this game changes ratings: it ends a match between two different people."""
        white, black = self.players
        return self.match_over and white.is_person and black.is_person and white.user_id != black.user_id

    def to_json(self) -> str:
        return json.dumps(
            {
                "key": self.key,
                "variant": self.variant,
                "mode": self.mode,
                "chat_id": self.chat_id,
                "players": [p.to_dict() for p in self.players],
                "winner": self.winner,
                "points": self.points,
                "kind": self.kind,
                "how": self.how,
                "match_length": self.match_length,
                "match_over": self.match_over,
                "match_winner": self.match_winner,
                "match_score": list(self.match_score),
                "ended_at": self.ended_at,
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, raw: str) -> FinishedGame:
        d = json.loads(raw)
        white, black = (PlayerRef.from_dict(p) for p in d["players"])
        score = d["match_score"]
        return cls(
            key=str(d["key"]),
            variant=str(d["variant"]),
            mode=str(d["mode"]),
            chat_id=None if d.get("chat_id") is None else int(d["chat_id"]),
            players=(white, black),
            winner=int(d["winner"]),
            points=int(d["points"]),
            kind=str(d["kind"]),
            how=str(d["how"]),
            match_length=int(d["match_length"]),
            match_over=bool(d["match_over"]),
            match_winner=None if d.get("match_winner") is None else int(d["match_winner"]),
            match_score=(int(score[0]), int(score[1])),
            ended_at=float(d["ended_at"]),
        )


@dataclass(frozen=True)
class RatingChange:
    """One player's rating in one variant before and after a rated match."""

    before: float
    after: float

    @property
    def change(self) -> float:
        return self.after - self.before


@dataclass(frozen=True)
class RecordOutcome:
    """What recording a game did: `first` is False when the key was recorded before (nothing changed now;
    `ratings` is then that first call's). ratings: (white, black), None for a side whose rating did not
    change (an unrated game, the computer)."""

    first: bool
    ratings: tuple[RatingChange | None, RatingChange | None]

    @property
    def rated(self) -> bool:
        return any(r is not None for r in self.ratings)

    @classmethod
    def from_json(cls, raw: str) -> RecordOutcome:
        d = json.loads(raw)

        def change(x: Any) -> RatingChange | None:
            return None if x is None else RatingChange(float(x["before"]), float(x["after"]))

        return cls(bool(d["first"]), (change(d["white"]), change(d["black"])))


# ---------------------------------------------------------------------- the Lua

# Only defines `local function nardy_record(finished_json, now)` (bot/storage/lua/record_result.lua): the
# game's save script includes it too. The rating arithmetic is bot/ratings.py's (tests check that the two
# agree).
STATS_LUA = scripts.source("record_result")


@asynccontextmanager
async def _redis_errors(what: str) -> AsyncIterator[None]:
    """redis-py errors at this boundary: unreachable -> StorageUnavailable, a refused script -> StatsError."""
    try:
        yield
    except (RedisConnectionError, RedisTimeoutError, OSError) as err:
        raise StorageUnavailable(f"{what}: redis unreachable: {err}") from err
    except RedisError as err:
        raise StatsError(f"{what}: {err}") from err


async def _run(redis: aioredis.Redis, name: str, what: str, keys: Iterable[str], args: Iterable[Any]) -> Any:
    script = scripts.register(redis, name)  # EVALSHA, loaded again after a Redis restart
    async with _redis_errors(what):
        return await script(keys=list(keys), args=list(args))


def _text(x: Any) -> str:
    return x.decode() if isinstance(x, bytes) else str(x)


# ---------------------------------------------------------------------- writes


async def record(redis: aioredis.Redis, finished: FinishedGame, now: float) -> RecordOutcome:
    """Record a finished game (atomic; once per `finished.key`: a repeat returns the first outcome)."""
    raw = await _run(redis, "record_game", f"record game {finished.key}", [], [finished.to_json(), repr(now)])
    return RecordOutcome.from_json(_text(raw))


async def forget_user(redis: aioredis.Redis, user_id: int) -> int:
    """Delete the user's statistics, ratings, history and name, and take them off every leaderboard.
    Returns how many keys and leaderboard entries went (0: there was nothing)."""
    return int(await _run(redis, "forget_stats", f"forget stats of user {user_id}", [], [user_id]))


async def set_hidden(redis: aioredis.Redis, user_id: int, hidden: bool) -> None:
    """Hide the user from the global leaderboards (or show them again, if they qualify), and keep the
    choice (the /settings hash's "top" field, which later results read)."""
    await _run(redis, "hide_from_top", f"hide user {user_id}", [], [user_id, "1" if hidden else "0"])


# ---------------------------------------------------------------------- reads


async def recorded(redis: aioredis.Redis, key: str) -> RecordOutcome | None:
    """What recording the game `key` ("<table id>/<number>") did, if it was recorded (its marker)."""
    async with _redis_errors(f"read the record of game {key}"):
        raw = await redis.get(marker_key(key))
    return None if raw is None else RecordOutcome.from_json(_text(raw))


@dataclass(frozen=True)
class LevelStats:
    """A player's results against the computer at one level, in one variant."""

    level: str
    games: int
    wins: int
    points_won: int
    points_lost: int

    @property
    def losses(self) -> int:
        return self.games - self.wins


@dataclass(frozen=True)
class VariantStats:
    """A player's results in one variant: against people (the main counters) and the computer."""

    variant: str
    games: int = 0
    wins: int = 0
    losses: int = 0
    mars_won: int = 0
    mars_lost: int = 0
    koks_won: int = 0
    koks_lost: int = 0
    points_won: int = 0
    points_lost: int = 0
    streak: int = 0
    best_streak: int = 0
    rating: float = ratings.START_RATING
    experience: int = 0  # points of rated matches played (the FIBS experience)
    rated: int = 0  # rated matches played
    computer: tuple[LevelStats, ...] = ()  # per level, in LEVELS order; levels never played left out

    @property
    def points_per_game(self) -> float:
        return (self.points_won - self.points_lost) / self.games if self.games else 0.0

    @property
    def played(self) -> bool:
        return self.games > 0 or any(level.games for level in self.computer)


@dataclass(frozen=True)
class PlayerStats:
    user_id: int
    name: str  # "" when nothing was recorded
    hidden: bool  # hidden from the global leaderboards
    variants: tuple[VariantStats, ...]  # in VARIANTS order

    def of(self, variant: str) -> VariantStats:
        for found in self.variants:
            if found.variant == variant:
                return found
        raise ValueError(f"no variant {variant!r}: one of {VARIANTS}")


def _variant_stats(variant: str, fields: dict[str, str]) -> VariantStats:
    def count(name: str) -> int:
        try:
            return int(fields.get(f"{variant}:{name}", "0"))
        except ValueError:
            return 0

    try:
        rating = float(fields.get(f"{variant}:rating", ratings.START_RATING))
    except ValueError:
        rating = ratings.START_RATING
    levels = tuple(
        LevelStats(
            level,
            count(f"cpu:{level}:games"),
            count(f"cpu:{level}:wins"),
            count(f"cpu:{level}:points_won"),
            count(f"cpu:{level}:points_lost"),
        )
        for level in LEVELS
    )
    return VariantStats(
        variant,
        games=count("games"),
        wins=count("wins"),
        losses=count("losses"),
        mars_won=count("mars_won"),
        mars_lost=count("mars_lost"),
        koks_won=count("koks_won"),
        koks_lost=count("koks_lost"),
        points_won=count("points_won"),
        points_lost=count("points_lost"),
        streak=count("streak"),
        best_streak=count("best_streak"),
        rating=rating,
        experience=count("experience"),
        rated=count("rated"),
        computer=tuple(level for level in levels if level.games),
    )


async def stats_of(redis: aioredis.Redis, user_id: int) -> PlayerStats:
    """The user's statistics in both variants (zeros and the start rating where nothing was recorded)."""
    async with _redis_errors(f"stats of user {user_id}"), redis.pipeline(transaction=False) as pipe:
        pipe.hgetall(stats_key(user_id))
        pipe.hget(settings_key(user_id), HIDDEN_FIELD)
        raw, hidden = await pipe.execute()
    fields = {_text(k): _text(v) for k, v in raw.items()}
    return PlayerStats(
        user_id,
        fields.get("name", ""),
        hidden is not None and _text(hidden) == HIDDEN,
        tuple(_variant_stats(v, fields) for v in VARIANTS),
    )


@dataclass(frozen=True)
class RatingPoint:
    at: float  # unix time of the rated match's end
    rating: float


async def rating_history(redis: aioredis.Redis, user_id: int, variant: str) -> tuple[RatingPoint, ...]:
    """The user's last RATING_POINTS ratings in `variant`, oldest first (empty: never rated)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant {variant!r} is not one of {VARIANTS}")
    async with _redis_errors(f"rating history of user {user_id}"):
        raw = await redis.lrange(rating_key(user_id, variant), 0, -1)
    points = []
    for item in raw:
        at, _, rating = _text(item).partition(" ")
        points.append(RatingPoint(float(at), float(rating)))
    return tuple(points)


@dataclass(frozen=True)
class TopEntry:
    """A leaderboard's line."""

    user_id: int
    name: str
    rating: float
    games: int  # games against people in the board's variant
    wins: int
    rated: int  # rated matches


async def _top(redis: aioredis.Redis, board: str, variant: str, n: int) -> tuple[TopEntry, ...]:
    if variant not in VARIANTS:
        raise ValueError(f"variant {variant!r} is not one of {VARIANTS}")
    if n < 1:
        return ()
    flat = [_text(x) for x in await _run(redis, "top", f"leaderboard {board}", [board], [variant, n])]
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


async def top_of_chat(redis: aioredis.Redis, chat_id: int, variant: str, n: int = 10) -> tuple[TopEntry, ...]:
    """A group's leaderboard in `variant`: its best `n` players by rating."""
    return await _top(redis, chat_board_key(chat_id, variant), variant, n)


async def top_global(redis: aioredis.Redis, variant: str, n: int = 10) -> tuple[TopEntry, ...]:
    """The global leaderboard in `variant` (MIN_RATED_MATCHES rated matches, not hidden): the best `n`."""
    return await _top(redis, global_board_key(variant), variant, n)


@dataclass(frozen=True)
class HistoryEntry:
    """One game in a player's history, from their side."""

    key: str  # "<table id>/<game number>"
    variant: str
    opponent_id: int  # 0: the computer, or a player who used /forget
    opponent: str  # the opponent's name now; "" for the computer and for a forgotten or expired player
    level: str | None  # the computer's level when the opponent was the computer
    won: bool
    points: int
    kind: str
    how: str
    match_length: int
    score: tuple[int, int]  # the match score after this game: (mine, theirs)
    at: float  # unix time
    change: float | None  # the rating change this game made (the end of a rated match), else None

    @property
    def against_computer(self) -> bool:
        return self.level is not None

    @classmethod
    def from_json(cls, raw: str, names: dict[int, str] | None = None) -> HistoryEntry:
        """An entry as the script stored it; `names`: user id -> name, for the opponent."""
        d = json.loads(raw)
        level, change, score = d.get("level"), d.get("change"), d.get("score") or [0, 0]
        opponent = int(d["opponent"])
        return cls(
            key=str(d["key"]),
            variant=str(d["variant"]),
            opponent_id=opponent,
            opponent=(names or {}).get(opponent, ""),
            level=None if level is None else str(level),
            won=bool(d["won"]),
            points=int(d["points"]),
            kind=str(d["kind"]),
            how=str(d["how"]),
            match_length=int(d["length"]),
            score=(int(score[0]), int(score[1])),
            at=float(d["at"]),
            change=None if change is None or not math.isfinite(float(change)) else float(change),
        )


async def history_of(redis: aioredis.Redis, user_id: int, n: int = 10) -> tuple[HistoryEntry, ...]:
    """The user's last `n` games (at most HISTORY_GAMES), newest first, with their opponents' names now."""
    if n < 1:
        return ()
    async with _redis_errors(f"history of user {user_id}"):
        raw = [_text(x) for x in await redis.lrange(history_key(user_id), 0, min(n, HISTORY_GAMES) - 1)]
        entries = [HistoryEntry.from_json(item) for item in raw]
        opponents = sorted({e.opponent_id for e in entries if e.opponent_id})
        names: dict[int, str] = {}
        if opponents:
            async with redis.pipeline(transaction=False) as pipe:
                for opponent in opponents:
                    pipe.hget(stats_key(opponent), "name")
                found = await pipe.execute()
            names = {o: _text(name) for o, name in zip(opponents, found, strict=True) if name is not None}
    return tuple(HistoryEntry.from_json(item, names) for item in raw)
