"""An arena tournament's rules, pure: the sheet of each player, the standings, and the pairing of the free.

Modelled on lichess's arenas (lila, modules/tournament/src/main/arena/: ArenaSheet.scala for the scoring,
AntmaPairing.scala and PairingSystem.scala for the pairing). No Redis, no Telegram, no clock, no randomness:
every time comes in as an argument (unix seconds), and the same input gives the same output.

**Scoring** (one result is a single game, or a whole match to 3: a match counts once, as its winner's win):
- a win scores 2; a player **on fire** (their last two results were wins) scores 4 for each further win,
  until a result that is not a win;
- a loss scores 0 and ends a streak, whatever the way: resigned, beaten, lost on time;
- a **walkover** (the opponent never moved within their clock) gives the player who was there 2 points,
  never doubled, and leaves their streak as it was: it neither builds nor breaks one (a streak is won on
  the board, and an absent opponent must not cost a streak either). The player who never moved scores 0,
  and their streak ends. A walkover is not rated, and does not count in the performance.
There are no draws in nardy.

**Standings**, best first: the most points; then the best performance (the mean, over the games played
on the board, of the opponent's rating plus 500 for a win or minus 500 for a loss; a player with none has
their own rating); then fewer results (the same points in fewer games); then the earlier to reach their
points (the time of the last result that changed them: joining, for a player with none); then the smaller
user id, so that the order is total.

**Pairing** (`pair_free`): the free players (not playing, not paused) are paired by a maximum weight
matching (networkx's `max_weight_matching`, Edmonds' blossom algorithm, as lichess's WMMatching), with
these aims, each one before the next:
1. as many pairs as the free players allow: at most one player left out (an odd count);
2. never the same opponent twice in a row where another pairing avoids it (two free players who have just
   played each other are paired again only when nobody else is free);
3. with an odd count, the player left out is the one who became free last (as lichess pairs the "even
   number" of its waiting players first);
4. each player close to their opponent in the standings: the rank difference weighs most, and more at the
   top of the standings (lichess's rank factor, from 2000 for the leader down to 300 for the last), then the
   rating difference.
Only players within `WINDOW` places of each other in the free players' rank order are considered for a
pair, and more than `GROUP` free players are paired in groups of consecutive ranks (the newest set aside
first when they are odd), as lichess pairs groups of 100: closeness makes farther pairs worse anyway, and
the blossom algorithm's time grows faster than the players' count (pure Python: 200 players in one
complete graph take seconds, in groups well under one; bench/arena_pairing.py prints the figures).
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import networkx as nx

WIN_POINTS = 2  # a win, or a walkover
STREAK_POINTS = 4  # a win by a player on fire
FIRE_AFTER = 2  # wins in a row that set a player on fire
PERFORMANCE_SPREAD = 500  # a win counts as the opponent's rating + 500, a loss as - 500
WINDOW = 10  # players within this many places of each other (free players, by rank) may be paired
GROUP = 40  # more free players than this are paired in groups of consecutive ranks (lichess: 100)


class ArenaError(ValueError):
    """A change an arena cannot make: an unknown player, a busy one, a game it does not know."""


class Outcome(enum.Enum):
    """One result from one player's side."""

    WIN = "w"
    LOSS = "l"  # beaten, resigned or lost on time
    WALKOVER_WIN = "ww"  # the opponent never moved
    WALKOVER_LOSS = "wl"  # this player never moved

    @property
    def won(self) -> bool:
        return self in (Outcome.WIN, Outcome.WALKOVER_WIN)

    @property
    def walkover(self) -> bool:
        return self in (Outcome.WALKOVER_WIN, Outcome.WALKOVER_LOSS)


@dataclass(frozen=True)
class Result:
    """One scored result of a player: whom they met, how it went, what it scored, when it ended."""

    opponent: int
    outcome: Outcome
    points: int
    at: float
    opponent_rating: float
    doubled: bool = False  # a win by a player on fire

    def to_json(self) -> list[Any]:
        return [self.opponent, self.outcome.value, self.points, self.at, self.opponent_rating, self.doubled]

    @classmethod
    def from_json(cls, d: list[Any]) -> Result:
        opponent, outcome, points, at, rating, doubled = d
        return cls(int(opponent), Outcome(outcome), int(points), float(at), float(rating), bool(doubled))


@dataclass(frozen=True)
class Sheet:
    """A player's results in order, and what they add up to."""

    results: tuple[Result, ...] = ()

    @property
    def points(self) -> int:
        return sum(r.points for r in self.results)

    @property
    def on_fire(self) -> bool:
        """Whether the next win scores double: the last FIRE_AFTER results (walkover wins aside) were wins."""
        streak = 0
        for result in reversed(self.results):
            if result.outcome is Outcome.WALKOVER_WIN:
                continue
            if result.outcome is not Outcome.WIN:
                break
            streak += 1
            if streak >= FIRE_AFTER:
                return True
        return False

    def add(self, opponent: int, outcome: Outcome, at: float, opponent_rating: float) -> Sheet:
        """The sheet with one more result scored by the rules above."""
        doubled = outcome is Outcome.WIN and self.on_fire
        points = STREAK_POINTS if doubled else WIN_POINTS if outcome.won else 0
        result = Result(opponent, outcome, points, at, opponent_rating, doubled)
        return Sheet((*self.results, result))

    @property
    def last_opponent(self) -> int | None:
        return self.results[-1].opponent if self.results else None

    def performance(self, own_rating: float) -> int:
        """The mean of the opponents' ratings +-500 over the games played on the board (not walkovers)."""
        played = [r for r in self.results if not r.outcome.walkover]
        if not played:
            return round(own_rating)
        total = sum(
            r.opponent_rating + (PERFORMANCE_SPREAD if r.outcome.won else -PERFORMANCE_SPREAD) for r in played
        )
        return round(total / len(played))

    def reached_at(self, joined_at: float) -> float:
        """When the player's points last changed (joining, if they never did)."""
        scoring = [r.at for r in self.results if r.points]
        return scoring[-1] if scoring else joined_at

    def to_json(self) -> list[Any]:
        return [r.to_json() for r in self.results]

    @classmethod
    def from_json(cls, d: list[Any]) -> Sheet:
        return cls(tuple(Result.from_json(r) for r in d))


@dataclass(frozen=True)
class Entry:
    """One player in an arena: their rating when they joined, their sheet, whether they paused."""

    user_id: int
    rating: float
    joined_at: float
    free_since: float  # when they last became free to be paired: joined, resumed, or their game ended
    sheet: Sheet = field(default_factory=Sheet)
    paused: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "u": self.user_id,
            "r": self.rating,
            "j": self.joined_at,
            "f": self.free_since,
            "s": self.sheet.to_json(),
            "p": self.paused,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Entry:
        return cls(
            int(d["u"]), float(d["r"]), float(d["j"]), float(d["f"]), Sheet.from_json(d["s"]), bool(d["p"])
        )


@dataclass(frozen=True)
class Standing:
    """One line of the standings: the place (1 is the leader) and what the place was decided by."""

    rank: int
    user_id: int
    points: int
    performance: int
    games: int
    reached_at: float
    on_fire: bool
    paused: bool


@dataclass(frozen=True)
class Playing:
    """A game (or match) of the arena in progress between two players."""

    game_id: str
    players: tuple[int, int]


@dataclass(frozen=True)
class Candidate:
    """A free player as the pairing sees them."""

    user_id: int
    rank: int  # their place in the standings (1: the leader)
    rating: float
    last_opponent: int | None = None
    free_since: float = 0.0


@dataclass(frozen=True)
class Arena:
    """The players of an arena (by user id), the games in progress, and the games already scored."""

    entries: tuple[Entry, ...] = ()
    playing: tuple[Playing, ...] = ()
    scored: tuple[str, ...] = ()  # the game ids whose result is in the sheets: a second record is a no-op

    # ------------------------------------------------------------------ players

    def _index(self, user_id: int) -> int:
        """Where the player's entry is (the entries are in user id order), or -1."""
        index = bisect.bisect_left(self.entries, user_id, key=lambda e: e.user_id)
        return index if index < len(self.entries) and self.entries[index].user_id == user_id else -1

    def entry(self, user_id: int) -> Entry:
        index = self._index(user_id)
        if index < 0:
            raise ArenaError(f"user {user_id} is not in this arena")
        return self.entries[index]

    def __contains__(self, user_id: object) -> bool:
        return isinstance(user_id, int) and self._index(user_id) >= 0

    def join(self, user_id: int, rating: float, at: float) -> Arena:
        """The arena with the player in it, free from `at`; a player already in it comes back from a pause."""
        if user_id in self:
            return self.resume(user_id, at)
        entries = sorted((*self.entries, Entry(user_id, float(rating), at, at)), key=lambda e: e.user_id)
        return replace(self, entries=tuple(entries))

    def pause(self, user_id: int) -> Arena:
        """The player is not paired until they resume (a game in progress is played out)."""
        return self._with(replace(self.entry(user_id), paused=True))

    def resume(self, user_id: int, at: float) -> Arena:
        entry = self.entry(user_id)
        if not entry.paused:
            return self
        return self._with(replace(entry, paused=False, free_since=at))

    def game_of(self, user_id: int) -> Playing | None:
        for game in self.playing:
            if user_id in game.players:
                return game
        return None

    def free(self) -> tuple[int, ...]:
        """The players who may be paired now: in the arena, not paused, not playing; by user id."""
        busy = {p for game in self.playing for p in game.players}
        return tuple(e.user_id for e in self.entries if not e.paused and e.user_id not in busy)

    # ------------------------------------------------------------------ games

    def start(self, game_id: str, first: int, second: int) -> Arena:
        """The arena with a game between two free players in progress."""
        if first == second:
            raise ArenaError(f"game {game_id}: user {first} cannot play themselves")
        if any(g.game_id == game_id for g in self.playing) or game_id in self.scored:
            raise ArenaError(f"game {game_id} is already in this arena")
        for user_id in (first, second):
            index = self._index(user_id)
            if index < 0 or self.entries[index].paused or self.game_of(user_id) is not None:
                raise ArenaError(f"game {game_id}: user {user_id} is not free (unknown, paused or playing)")
        return replace(self, playing=(*self.playing, Playing(game_id, (first, second))))

    def record(self, game_id: str, winner: int, at: float, walkover: bool = False) -> Arena:
        """The arena with a game's result scored: `winner` won it (a walkover: their opponent never moved).

        Exactly once: a game already scored leaves the arena as it is. A game the arena does not know, or
        a winner who did not play it, is an ArenaError."""
        game = next((g for g in self.playing if g.game_id == game_id), None)
        if game is None and game_id in self.scored:
            return self
        if game is None:
            raise ArenaError(f"game {game_id} is not in progress in this arena")
        if winner not in game.players:
            raise ArenaError(f"game {game_id}: user {winner} did not play it ({game.players})")
        loser = game.players[1] if game.players[0] == winner else game.players[0]
        won, lost = self.entry(winner), self.entry(loser)
        won_outcome, lost_outcome = (
            (Outcome.WALKOVER_WIN, Outcome.WALKOVER_LOSS) if walkover else (Outcome.WIN, Outcome.LOSS)
        )
        arena = self._with(
            replace(won, sheet=won.sheet.add(loser, won_outcome, at, lost.rating), free_since=at)
        )
        arena = arena._with(
            replace(lost, sheet=lost.sheet.add(winner, lost_outcome, at, won.rating), free_since=at)
        )
        return replace(
            arena,
            playing=tuple(g for g in self.playing if g.game_id != game_id),
            scored=(*self.scored, game_id),
        )

    def _with(self, entry: Entry) -> Arena:
        index = self._index(entry.user_id)
        return replace(self, entries=(*self.entries[:index], entry, *self.entries[index + 1 :]))

    # ------------------------------------------------------------------ standings and pairing

    def standings(self) -> tuple[Standing, ...]:
        """Every player, best first, by the tie-break in the module's docstring."""
        rows = []
        for e in self.entries:
            sheet = e.sheet
            rows.append(
                (
                    -sheet.points,
                    -sheet.performance(e.rating),
                    len(sheet.results),
                    sheet.reached_at(e.joined_at),
                    e,
                )
            )
        rows.sort(key=lambda row: (*row[:4], row[4].user_id))
        return tuple(
            Standing(
                rank=place,
                user_id=e.user_id,
                points=-points,
                performance=-performance,
                games=games,
                reached_at=reached,
                on_fire=e.sheet.on_fire,
                paused=e.paused,
            )
            for place, (points, performance, games, reached, e) in enumerate(rows, start=1)
        )

    def candidates(self) -> tuple[Candidate, ...]:
        """The free players as `pair_free` wants them."""
        ranks = {s.user_id: s.rank for s in self.standings()}
        free = set(self.free())
        return tuple(
            Candidate(e.user_id, ranks[e.user_id], e.rating, e.sheet.last_opponent, e.free_since)
            for e in self.entries
            if e.user_id in free
        )

    def pairings(self) -> tuple[tuple[int, int], ...]:
        """The pairs to start now among the free players."""
        return pair_free(self.candidates())

    # ------------------------------------------------------------------ storage

    def to_json(self) -> dict[str, Any]:
        return {
            "entries": [e.to_json() for e in self.entries],
            "playing": [[g.game_id, *g.players] for g in self.playing],
            "scored": list(self.scored),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Arena:
        return cls(
            entries=tuple(Entry.from_json(e) for e in d["entries"]),
            playing=tuple(Playing(str(g), (int(a), int(b))) for g, a, b in d["playing"]),
            scored=tuple(str(s) for s in d["scored"]),
        )


# ---------------------------------------------------------------------- pairing


def rank_factor(rank: int, last_rank: int) -> int:
    """How much a place of difference weighs for a pair whose better player is at `rank` (lichess's)."""
    return 300 + 1700 * (last_rank - rank) // max(last_rank, 1)


def pair_free(free: Iterable[Candidate]) -> tuple[tuple[int, int], ...]:
    """Pairs of the free players, by the aims in the module's docstring; each pair better-ranked first,
    the pairs in the order of their better player's rank. Deterministic: ties go by user id."""
    players = sorted(free, key=lambda c: (c.rank, c.user_id))
    if len({c.user_id for c in players}) != len(players):
        raise ArenaError("a player is twice among the free players")
    if len(players) < 2:
        return ()
    last_rank = players[-1].rank  # the rank factor's scale: the same for every group
    if len(players) <= GROUP:
        return _matching(players, last_rank)
    if len(players) % 2:
        newest = max(players, key=lambda c: (c.free_since, c.user_id))
        players = [c for c in players if c is not newest]
    groups = -(-len(players) // GROUP)
    pairs_each, extra = divmod(len(players) // 2, groups)  # groups of even sizes, as equal as they can be
    pairs: list[tuple[int, int]] = []
    start = 0
    for g in range(groups):
        size = 2 * (pairs_each + (1 if g < extra else 0))
        pairs.extend(_matching(players[start : start + size], last_rank))
        start += size
    return tuple(pairs)


def _matching(players: Sequence[Candidate], last_rank: int) -> tuple[tuple[int, int], ...]:
    """The best pairing of `players` (in rank order) by the module's aims, as one weighted matching."""
    n = len(players)
    edges: list[tuple[int, int, int, bool]] = []  # (i, j, cost, rematch) with i < j in rank order
    for i, a in enumerate(players):
        for j in range(i + 1, min(n, i + 1 + WINDOW)):
            b = players[j]
            cost = abs(a.rank - b.rank) * rank_factor(min(a.rank, b.rank), last_rank) + round(
                abs(a.rating - b.rating)
            )
            rematch = a.last_opponent == b.user_id or b.last_opponent == a.user_id
            edges.append((i, j, cost, rematch))
    # Integer weights, one aim above the next (networkx then computes in integers, exactly). Every matching
    # it may choose has the same number of pairs (maxcardinality), so only the differences count: closeness
    # adds at most `spread` in all; leaving out the newest free player is worth more than all closeness; a
    # rematch costs more than the other two together. The weights stay small where no aim is at stake
    # (large ones everywhere slow the blossom algorithm down).
    worst = max(cost for _, _, cost, _ in edges) + 1
    spread = worst * (n // 2 + 1)
    newest = max(range(n), key=lambda k: (players[k].free_since, players[k].user_id)) if n % 2 else -1
    rematch_cost = 4 * spread
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for i, j, cost, rematch in edges:
        weight = worst - cost - (spread if newest in (i, j) else 0) - (rematch_cost if rematch else 0)
        graph.add_edge(i, j, weight=weight)
    matched = nx.max_weight_matching(graph, maxcardinality=True)
    pairs = sorted((min(i, j), max(i, j)) for i, j in matched)
    return tuple((players[i].user_id, players[j].user_id) for i, j in pairs)
