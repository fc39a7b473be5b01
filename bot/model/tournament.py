"""A group's tournament as the bot keeps it: an arena or a knockout, from sign-up to the winner. Pure: every
time comes in as an argument, new game ids from a function passed in.

A tournament is one immutable record (`Tournament`), changed only by compare-and-set on its version
(bot/storage/tournaments.py). Its games are `Pairing`s, each with the id its game is created under: a pairing
is made once, in the step that saves the record, and its game started from it (a second start of the same id is
refused by the game's own save), so a game is never started twice. A result is applied once: a pairing that
has a winner already ignores another (`record`).

- **Arena**: the rules are bot/model/arena.py's (lichess's scoring with streaks, its standings and tie-break,
  the free players paired by networkx's maximum weight matching): `arena_of` replays this record's games into
  an `arena.Arena` in the order they were made and ended, and its standings and pairings are the arena's.
  Pairing goes on until the time is up; games still running then are finished and counted. A player who lost
  by walkover is paused (not paired again) until they press Join again.
- **Knockout**: seeded by the rating at sign-up in bot/model/knockout.py's standard bracket order (1 plays the
  lowest seed), byes to the top seeds when the players are not a power of two, a match as soon as both of its
  players are known (`knockout_pairs`), the final one step longer (`format_of`); the winner of the final
  wins, its loser is second, the semi-finals' losers third.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from bot.model import arena as arena_rules
from bot.model.flow import Refused
from bot.model.game_format import GameFormat
from bot.model.knockout import bracket_order
from bot.model.table import Person, Table
from engine import Side

KINDS = ("arena", "knockout")
STAGES = ("signup", "running", "over", "cancelled")
ARENA_MINUTES = (5, 15, 30, 60, 90)
START_IN = (0, 5, 15, 30, 60)  # minutes from creation to the start (0: whenever the creator presses Start)
NOW_SIGNUP = 10 * 60  # seconds a tournament "starting now" waits for its creator's Start before it starts
MIN_PLAYERS = {"arena": 3, "knockout": 4}
MAX_PLAYERS = {"arena": 300, "knockout": 64}
STREAK_AFTER = arena_rules.FIRE_AFTER  # wins in a row after which a win is worth arena_rules.STREAK_POINTS


@dataclass(frozen=True)
class Entrant:
    """A player signed up, with their rating at sign-up (the seeding and the tie-break)."""

    person: Person
    rating: float
    paused: bool = False  # an arena player not to be paired (a walkover lost); Join again resumes

    def to_json(self) -> dict[str, Any]:
        return {"p": self.person.to_json(), "r": self.rating, **({"x": 1} if self.paused else {})}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Entrant:
        return cls(Person.from_json(d["p"]), float(d["r"]), bool(d.get("x")))


@dataclass(frozen=True)
class Pairing:
    """One game (or match) of the tournament: its game id, its players (white, black user ids), its round
    (arena: 0; knockout: 1 for the first) and slot in that round, and once over its winner."""

    game: str
    players: tuple[int, int]
    round: int = 0
    slot: int = 0
    winner: int | None = None
    walkover: bool = False
    seq: int = 0  # the order results came in (1, 2, ...): an arena's streaks follow it
    after: int = 0  # how many results had come in when it was made (arena_of replays the two in order)
    score: tuple[int, int] = (1, 0)  # once over: the winner's points, the loser's (a match's score)

    @property
    def done(self) -> bool:
        return self.winner is not None

    @property
    def loser(self) -> int | None:
        if self.winner is None:
            return None
        return self.players[1] if self.winner == self.players[0] else self.players[0]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"g": self.game, "p": list(self.players), "r": self.round, "s": self.slot}
        if self.after:
            out["a"] = self.after
        if self.winner is not None:
            out.update(w=self.winner, n=self.seq, **({"wo": 1} if self.walkover else {}))
            if self.score != (1, 0):
                out["sc"] = list(self.score)
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Pairing:
        return cls(
            str(d["g"]),
            (int(d["p"][0]), int(d["p"][1])),
            int(d.get("r", 0)),
            int(d.get("s", 0)),
            None if d.get("w") is None else int(d["w"]),
            bool(d.get("wo")),
            int(d.get("n", 0)),
            int(d.get("a", 0)),
            (int(d["sc"][0]), int(d["sc"][1])) if d.get("sc") else (1, 0),
        )


@dataclass(frozen=True)
class Standing:
    """One arena player's line: points, wins, results, on fire (the next win scores double)."""

    entrant: Entrant
    points: int
    wins: int
    games: int
    on_fire: bool

    @property
    def user_id(self) -> int:
        return self.entrant.person.user_id


@dataclass(frozen=True)
class Tournament:
    """One group's tournament (see the module's docstring)."""

    id: str
    chat_id: int
    kind: str  # "arena" | "knockout"
    fmt: str  # the games' format (bot/model/game_format.py), always with a clock
    creator: Person
    lang: str  # the group card's language (the creator's)
    created_at: float
    starts_at: float  # unix time it starts by itself (a "now" tournament: NOW_SIGNUP after creation)
    minutes: int = 0  # an arena's duration
    title: str | None = None  # the group's title
    stage: str = "signup"
    version: int = 1
    entrants: tuple[Entrant, ...] = ()
    games: tuple[Pairing, ...] = ()
    ends_at: float | None = None  # an arena's end, set when it starts
    card: int | None = None  # the group card's message id
    bracket: tuple[int, ...] = ()  # a knockout's first round: user ids by slot, 0 a bye

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"tournament {self.id}: kind {self.kind!r} is not one of {KINDS}")
        if self.stage not in STAGES:
            raise ValueError(f"tournament {self.id}: stage {self.stage!r} is not one of {STAGES}")

    # ------------------------------------------------------------------ who

    @property
    def live(self) -> bool:
        """Signing up or running: the group's one tournament."""
        return self.stage in ("signup", "running")

    def entrant(self, user_id: int) -> Entrant | None:
        return next((e for e in self.entrants if e.person.user_id == user_id), None)

    def name_of(self, user_id: int) -> str:
        found = self.entrant(user_id)
        return found.person.name if found is not None else "?"

    def game(self, game_id: str) -> Pairing | None:
        return next((g for g in self.games if g.game == game_id), None)

    @property
    def running_games(self) -> tuple[Pairing, ...]:
        return tuple(g for g in self.games if not g.done)

    def busy(self) -> set[int]:
        """The players in a game now."""
        return {p for g in self.running_games for p in g.players}

    # ------------------------------------------------------------------ sign-up

    def join(self, entrant: Entrant) -> Tournament:
        """`entrant` signs up (an arena player paused after a walkover comes back)."""
        found = self.entrant(entrant.person.user_id)
        if found is not None:
            if found.paused and self.stage == "running":
                return self._with_entrant(replace(found, paused=False))
            raise Refused("You are signed up already.")
        if self.stage != "signup":
            raise Refused("This tournament is no longer open for sign-up.")
        if len(self.entrants) >= MAX_PLAYERS[self.kind]:
            raise Refused("This tournament is full.")
        return replace(self, entrants=(*self.entrants, entrant), version=self.version + 1)

    def leave(self, user_id: int) -> Tournament:
        if self.stage != "signup":
            raise Refused("This tournament is no longer open for sign-up.")
        if self.entrant(user_id) is None:
            raise Refused("You are not signed up.")
        kept = tuple(e for e in self.entrants if e.person.user_id != user_id)
        return replace(self, entrants=kept, version=self.version + 1)

    def cancel(self) -> Tournament:
        if not self.live:
            raise Refused("This tournament is no longer open for sign-up.")
        return replace(self, stage="cancelled", version=self.version + 1)

    def with_card(self, message_id: int) -> Tournament:
        """The group card is now the message `message_id`."""
        return replace(self, card=message_id, version=self.version + 1)

    def _with_entrant(self, entrant: Entrant) -> Tournament:
        uid = entrant.person.user_id
        kept = tuple(entrant if e.person.user_id == uid else e for e in self.entrants)
        return replace(self, entrants=kept, version=self.version + 1)

    # ------------------------------------------------------------------ running

    def start(self, now: float, new_id: Callable[[], str]) -> Tournament:
        """The start: Refused with too few players (the caller cancels a tournament that started by itself)."""
        if self.stage != "signup":
            raise Refused("This tournament is no longer open for sign-up.")
        least = MIN_PLAYERS[self.kind]
        if len(self.entrants) < least:
            raise Refused(
                "Not enough players to start: {count} of at least {least}.",
                count=len(self.entrants),
                least=least,
            )
        started = replace(self, stage="running", version=self.version + 1)
        if self.kind == "arena":
            started = replace(started, ends_at=now + 60 * self.minutes)
        else:
            started = replace(started, bracket=seeded_bracket(self.entrants))
        return started.step(now, new_id)

    def record(
        self, game_id: str, winner: int, walkover: bool, score: tuple[int, int] = (1, 0)
    ) -> Tournament:
        """The result of the game `game_id` (its winner's user id, `score`: theirs and the loser's); a second
        result of it changes nothing."""
        pairing = self.game(game_id)
        if pairing is None or pairing.done or winner not in pairing.players:
            return self
        seq = 1 + max((g.seq for g in self.games), default=0)
        done = replace(pairing, winner=winner, walkover=walkover, seq=seq, score=score)
        games = tuple(done if g.game == game_id else g for g in self.games)
        out = replace(self, games=games, version=self.version + 1)
        if walkover and self.kind == "arena":
            loser = out.entrant(done.loser or 0)
            if loser is not None:
                out = out._with_entrant(replace(loser, paused=True))
        return out

    def step(self, now: float, new_id: Callable[[], str]) -> Tournament:
        """What time and results make of the tournament: new pairings, the end. Unchanged: itself."""
        if self.stage != "running":
            return self
        if self.kind == "arena":
            assert self.ends_at is not None
            if now >= self.ends_at:
                if self.running_games:
                    return self
                return replace(self, stage="over", version=self.version + 1)
            pairs = arena_pairs(self)
            if not pairs:
                return self
            results = max((g.seq for g in self.games), default=0)
            made = tuple(Pairing(new_id(), pair, after=results) for pair in pairs)
            return replace(self, games=self.games + made, version=self.version + 1)
        made = tuple(Pairing(new_id(), pair, rnd, slot) for rnd, slot, pair in knockout_pairs(self))
        out = self if not made else replace(self, games=self.games + made, version=self.version + 1)
        if out.champion() is not None:
            return replace(out, stage="over", version=out.version + 1)
        return out

    # ------------------------------------------------------------------ where everyone stands

    def standings(self) -> list[Standing]:
        """An arena's standings, best first (bot/model/arena.py's tie-break)."""
        played = arena_of(self)
        by_id = {e.person.user_id: e for e in self.entrants}
        out = []
        for line in played.standings():
            sheet = played.entry(line.user_id).sheet
            wins = sum(1 for r in sheet.results if r.outcome.won)
            out.append(Standing(by_id[line.user_id], line.points, wins, line.games, line.on_fire))
        return out

    def rounds(self) -> list[list[int]]:
        """A knockout's bracket round by round: user ids by slot, 0 a bye, -1 not known yet."""
        if not self.bracket:
            return []
        out = [list(self.bracket)]
        rnd = 1
        while len(out[-1]) > 1:
            level = out[-1]
            nxt = []
            for slot in range(len(level) // 2):
                a, b = level[2 * slot], level[2 * slot + 1]
                if a == -1 or b == -1:
                    nxt.append(-1)
                elif a == 0 or b == 0:
                    nxt.append(a or b)
                else:
                    found = next((g for g in self.games if (g.round, g.slot) == (rnd, slot)), None)
                    nxt.append(-1 if found is None or found.winner is None else found.winner)
            out.append(nxt)
            rnd += 1
        return out

    def champion(self) -> int | None:
        if self.kind == "knockout":
            final = self.rounds()
            return final[-1][0] if final and final[-1][0] > 0 else None
        if self.stage != "over":
            return None
        table = self.standings()
        return table[0].user_id if table else None

    def podium(self) -> list[list[int]]:
        """The places: [[first], [second], [third(s)]] (a knockout's two semi-final losers share third)."""
        if self.kind == "arena":
            return [[s.user_id] for s in self.standings()[:3]]
        rounds = self.rounds()
        champion = self.champion()
        if champion is None:
            return []
        places = [[champion]]
        for rnd in (len(rounds) - 1, len(rounds) - 2):
            if rnd < 1:
                break
            losers = [g.loser for g in self.games if g.round == rnd and g.loser is not None]
            if losers:
                places.append([u for u in losers if u is not None])
        return places

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "chat_id": self.chat_id,
            "kind": self.kind,
            "fmt": self.fmt,
            "creator": self.creator.to_json(),
            "lang": self.lang,
            "created_at": self.created_at,
            "starts_at": self.starts_at,
            "minutes": self.minutes,
            "title": self.title,
            "stage": self.stage,
            "version": self.version,
            "entrants": [e.to_json() for e in self.entrants],
            "games": [g.to_json() for g in self.games],
            "ends_at": self.ends_at,
            "card": self.card,
            "bracket": list(self.bracket),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Tournament:
        return cls(
            id=str(d["id"]),
            chat_id=int(d["chat_id"]),
            kind=str(d["kind"]),
            fmt=str(d["fmt"]),
            creator=Person.from_json(d["creator"]),
            lang=str(d["lang"]),
            created_at=float(d["created_at"]),
            starts_at=float(d["starts_at"]),
            minutes=int(d.get("minutes", 0)),
            title=d.get("title"),
            stage=str(d["stage"]),
            version=int(d["version"]),
            entrants=tuple(Entrant.from_json(e) for e in d.get("entrants", ())),
            games=tuple(Pairing.from_json(g) for g in d.get("games", ())),
            ends_at=None if d.get("ends_at") is None else float(d["ends_at"]),
            card=None if d.get("card") is None else int(d["card"]),
            bracket=tuple(int(x) for x in d.get("bracket", ())),
        )


# ---------------------------------------------------------------------- pairing


def arena_of(t: Tournament) -> arena_rules.Arena:
    """The arena this record's games make (bot/model/arena.py): its entrants joined in sign-up order, each game
    started and scored in the order it was made and ended (times are that order: the rules only compare them),
    the paused players paused."""
    played = arena_rules.Arena()
    for i, e in enumerate(t.entrants):
        played = played.join(e.person.user_id, e.rating, float(i))
    base = float(len(t.entrants))
    events = sorted(
        [(g.after, 1, i, g) for i, g in enumerate(t.games)]
        + [(g.seq, 0, i, g) for i, g in enumerate(t.games) if g.done]
    )
    try:
        for order, kind, _, g in events:
            if kind == 1:
                played = played.start(g.game, *g.players)
            else:
                assert g.winner is not None
                played = played.record(g.game, g.winner, base + order, g.walkover)
        for e in t.entrants:
            if e.paused:
                played = played.pause(e.person.user_id)
    except arena_rules.ArenaError as err:
        raise ValueError(f"tournament {t.id}: its games do not replay as an arena: {err}") from err
    return played


def arena_pairs(t: Tournament) -> list[tuple[int, int]]:
    """The arena's free players (not paused, not playing) paired by the arena's rules (bot/model/arena.py);
    (white, black): the one who had white less often takes it."""
    whites: dict[int, int] = {}
    for g in t.games:
        whites[g.players[0]] = whites.get(g.players[0], 0) + 1
    return [(a, b) if whites.get(a, 0) <= whites.get(b, 0) else (b, a) for a, b in arena_of(t).pairings()]


def seeded_bracket(entrants: tuple[Entrant, ...]) -> tuple[int, ...]:
    """The first round's slots: entrants seeded by rating (ties: the smaller user id, as bot/model/knockout.py
    seeds) in its standard bracket order, byes (0) to the top seeds."""
    ranked = sorted(range(len(entrants)), key=lambda i: (-entrants[i].rating, entrants[i].person.user_id))
    size = 1 << max(1, math.ceil(math.log2(max(2, len(entrants)))))
    return tuple(
        entrants[ranked[s - 1]].person.user_id if s <= len(entrants) else 0 for s in bracket_order(size)
    )


def knockout_pairs(t: Tournament) -> list[tuple[int, int, tuple[int, int]]]:
    """A knockout's matches whose two players are known and that have no game yet: (round, slot, players)."""
    made = {(g.round, g.slot) for g in t.games}
    out = []
    for rnd, level in enumerate(t.rounds()[:-1], start=1):
        for slot in range(len(level) // 2):
            a, b = level[2 * slot], level[2 * slot + 1]
            if a > 0 and b > 0 and (rnd, slot) not in made:
                out.append((rnd, slot, (a, b)))
    return out


def final_length(length: int) -> int:
    """A knockout final's match length: one step longer than the rounds' (single games: a final to 3)."""
    return {1: 3, 3: 5, 5: 7}.get(length, length)


def format_of(t: Tournament, pairing: Pairing) -> str:
    """The game format of a pairing's game: the tournament's, but a knockout's final is longer."""
    if t.kind != "knockout" or pairing.round != round_count(t):
        return t.fmt
    fmt = GameFormat.parse(t.fmt)
    return str(replace(fmt, length=final_length(fmt.length)))


def round_count(t: Tournament) -> int:
    """How many rounds a knockout has (0 before the bracket is drawn)."""
    return max(0, len(t.rounds()) - 1)


# ---------------------------------------------------------------------- a tournament game's end


def result_of(table: Table) -> tuple[int, bool, tuple[int, int]] | None:
    """A finished tournament game's winner (user id), whether it was a walkover (the loser's time ran out
    before they made a single move in the first game) and the score (the winner's points, the loser's: a
    match's, or 1-0 for a single game); None while it goes on."""
    if not table.over or (table.match.is_match and not table.match.over):
        return None
    result = table.game.result
    if result is None:
        return None
    winner = table.match.winner if table.match.is_match else result.winner
    if winner is None:
        return None
    loser = Side(winner).other
    score = (table.match.score[winner], table.match.score[loser]) if table.match.is_match else (1, 0)
    return table.players[winner].user_id, is_walkover(table, loser), score


def is_walkover(table: Table, loser: Side) -> bool:
    """The loser lost on time without a move of theirs in the whole match: a walkover (not rated)."""
    timed_out = any(e.get("k") == "time" for e in table.events)
    return timed_out and table.number == 1 and not any(t.side is loser for t in table.game.history)


def lost_on_time_unrated(table: Table) -> Table:
    """A tournament game lost on time by a player who never moved (a walkover) is not recorded in the
    statistics or ratings: its `ended` records are dropped."""
    if table.tournament is None or not table.over:
        return table
    found = result_of(table)
    if found is None or not found[1]:
        return table
    return replace(table, ended=())
