"""What the statistics are: finished games as their results see them, recording outcomes, a player's
statistics, rating points, leaderboard lines and history entries. Values only: bot/storage/results.py
stores them (and bot/storage/lua/record_result.lua records a finished game in Redis).

What counts:
- The main counters of a variant (games, wins, losses, marses and koks won and lost, points won and lost,
  the current and best streak of wins) are games against people. Games against the computer have their
  own block per level (games, wins, points won and lost): they never change the rating nor the main
  counters, so a rating and its record describe the same games. A game against "a former player" (one who
  used /forget: user id 0 and no level) counts in the main counters, unrated.
- Every game of a match counts in the counters; the match itself changes the ratings once, when it is
  over, with its length N (a single game: N = 1), by the FIBS formula (bot/model/ratings.py), and only when both
  players are people (two different user ids, neither 0). The computer (user id 0) has no statistics.
- Leaderboards are sorted sets scored by rating, so /top never scans the users: one per group chat and
  variant (the people who played a game against a person in that group; their rating is their rating in
  that variant, from all their games), and one global per variant (people with at least MIN_RATED_MATCHES
  rated matches who did not hide in /settings). Hiding takes a player off the global boards only; they
  stay on their groups' boards (those are the group's own). A player's rating change updates every board
  they are on, found in their `boards` set.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from bot.model import ratings

VARIANTS = ("short", "long")
MODES = ("group", "friend", "computer", "inline", "match")
KINDS = ("oin", "mars", "koks", "home_mars")
HOWS = ("played", "resigned", "dropped", "claimed", "time")
LEVELS = ("beginner", "intermediate", "expert")

MIN_RATED_MATCHES = 5  # rated matches before a player enters the global leaderboard
HISTORY_GAMES = 20  # games kept in a player's history
RATING_POINTS = 100  # ratings kept in a player's rating history, per variant
MAX_NAME = 64  # characters of a name kept for display
TOP_PAGES = 5  # a /top reads at most this many pages of its board (stale entries are skipped and dropped)

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
    how: str  # "played" | "resigned" | "dropped" (a doubling cube passed) | "claimed" | "time" (lost on time)
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


# ---------------------------------------------------------------------- what is read back


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
    tourneys: int = 0  # group tournaments played to the end (bot/storage/lua/save_tournament.lua)
    tourney_wins: int = 0  # ... and won

    def of(self, variant: str) -> VariantStats:
        for found in self.variants:
            if found.variant == variant:
                return found
        raise ValueError(f"no variant {variant!r}: one of {VARIANTS}")


def variant_stats(variant: str, fields: dict[str, str]) -> VariantStats:
    """A player's statistics in `variant`, read from the fields of their statistics hash (zeros and the start
    rating where a field is missing or unreadable)."""

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


@dataclass(frozen=True)
class RatingPoint:
    at: float  # unix time of the rated match's end
    rating: float


@dataclass(frozen=True)
class TopEntry:
    """A leaderboard's line."""

    user_id: int
    name: str
    rating: float
    games: int  # games against people in the board's variant
    wins: int
    rated: int  # rated matches


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
