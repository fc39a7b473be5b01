"""A knockout tournament's bracket, pure: seeding, byes, the matches ready to play, results, the winner.

No Redis, no Telegram, no clock, no randomness. What is stored is small: the players in seed order, the
settings, and the results by match; the bracket itself (who meets whom in each round) is worked out from
them every time, so it can never disagree with them.

- **Seeding** by rating (the higher first; equal ratings: the smaller user id first). The bracket has the
  next power of two places (4 to 64 players: 4 to 64 places) in the standard order, so that the two best
  seeds can meet only in the final, the best four only from the semi-finals (1 v 16, 8 v 9, 5 v 12, 4 v 13,
  ... for 16 places). The places past the last player are byes: they fall to the top seeds, who go through
  the first round without playing.
- **Match lengths**: every round is played to `length` points, the final to `final_length` (longer, often).
- **Results**: a match is decided once, by `record` (winner, score, walkover or not). The same result again
  is a no-op, so a retried record is harmless; a different result for a decided match is a
  `KnockoutError`, as is a result for a match not ready to be played.
- **Runners-up**: the final's loser is second; the semi-finals' losers share third.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from engine.match import LENGTHS

MIN_PLAYERS = 4
MAX_PLAYERS = 64


class KnockoutError(ValueError):
    """A change a knockout cannot make: a bad field, an unknown match, a match decided otherwise."""


@dataclass(frozen=True)
class Seeded:
    """A player as the bracket seeds them."""

    user_id: int
    rating: float


@dataclass(frozen=True)
class KnockoutSettings:
    length: int = 1  # each round's match length (1: single games)
    final_length: int | None = None  # the final's, when it differs

    def __post_init__(self) -> None:
        for value in (self.length, self.final_length):
            if value is not None and value not in LENGTHS:
                raise KnockoutError(f"match length {value} is not one of {LENGTHS}")

    def length_of(self, round_: int, rounds: int) -> int:
        """The match length of round `round_` (0: the first) of a bracket of `rounds` rounds."""
        final = round_ == rounds - 1
        return self.final_length if final and self.final_length is not None else self.length


@dataclass(frozen=True)
class Decided:
    """How a match ended: who won, the score (winner's points, loser's), whether by walkover."""

    winner: int
    score: tuple[int, int]
    walkover: bool = False

    def to_json(self) -> list[Any]:
        return [self.winner, list(self.score), self.walkover]

    @classmethod
    def from_json(cls, d: list[Any]) -> Decided:
        winner, score, walkover = d
        return cls(int(winner), (int(score[0]), int(score[1])), bool(walkover))


@dataclass(frozen=True)
class BracketMatch:
    """One place of the bracket: round `round` (0: the first), match `slot` of it (0: the top).

    `top` and `bottom` are user ids, None while the match before has not been decided or for a bye;
    `top_seed`/`bottom_seed` their seeds (1: the best). A bye (`bye`: one side is no player at all) is
    decided at once for the player who is there."""

    round: int
    slot: int
    length: int
    top: int | None
    bottom: int | None
    top_seed: int | None
    bottom_seed: int | None
    bye: bool = False
    decided: Decided | None = None

    @property
    def match_id(self) -> str:
        return match_id(self.round, self.slot)

    @property
    def ready(self) -> bool:
        """Both players known, not a bye, not decided: it can be played now."""
        return self.top is not None and self.bottom is not None and self.decided is None and not self.bye

    @property
    def winner(self) -> int | None:
        if self.decided is not None:
            return self.decided.winner
        if self.bye:
            return self.top if self.top is not None else self.bottom
        return None

    @property
    def loser(self) -> int | None:
        if self.decided is None:
            return None
        return self.bottom if self.decided.winner == self.top else self.top


def match_id(round_: int, slot: int) -> str:
    """A match's id within its knockout: "r<round>m<slot>", e.g. "r0m3"."""
    return f"r{round_}m{slot}"


def bracket_order(size: int) -> tuple[int, ...]:
    """The seeds (1 the best) in bracket order for `size` places, a power of two: 8 -> 1 8 4 5 2 7 3 6."""
    if size < 1 or size & (size - 1):
        raise KnockoutError(f"a bracket has a power of two places, not {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for s in order for seed in (s, total - s)]
    return tuple(order)


@dataclass(frozen=True)
class Knockout:
    """The players in seed order (`seeds[0]` is seed 1), the settings, and the results by match id."""

    seeds: tuple[int, ...]
    settings: KnockoutSettings = KnockoutSettings()
    results: tuple[tuple[str, Decided], ...] = ()  # (match id, result), in the order they were recorded

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= len(self.seeds) <= MAX_PLAYERS:
            raise KnockoutError(
                f"a knockout has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(self.seeds)}"
            )
        if len(set(self.seeds)) != len(self.seeds):
            raise KnockoutError("a player is seeded twice")

    @classmethod
    def seed(cls, players: Iterable[Seeded], settings: KnockoutSettings = KnockoutSettings()) -> Knockout:
        """A new knockout of `players`, seeded by rating (ties: the smaller user id first)."""
        ranked = sorted(players, key=lambda p: (-p.rating, p.user_id))
        return cls(tuple(p.user_id for p in ranked), settings)

    @property
    def size(self) -> int:
        """The places in the first round: the next power of two."""
        size = MIN_PLAYERS
        while size < len(self.seeds):
            size *= 2
        return size

    @property
    def rounds(self) -> int:
        return self.size.bit_length() - 1

    def seed_of(self, user_id: int) -> int:
        try:
            return self.seeds.index(user_id) + 1
        except ValueError:
            raise KnockoutError(f"user {user_id} is not in this knockout") from None

    def result(self, match: str) -> Decided | None:
        for key, decided in self.results:
            if key == match:
                return decided
        return None

    def bracket(self) -> tuple[tuple[BracketMatch, ...], ...]:
        """Every round's matches, the first round first, as the results so far make them."""
        places: list[int | None] = [
            self.seeds[s - 1] if s <= len(self.seeds) else None for s in bracket_order(self.size)
        ]
        rounds: list[tuple[BracketMatch, ...]] = []
        feeding: list[BracketMatch] | None = None
        for r in range(self.rounds):
            length = self.settings.length_of(r, self.rounds)
            matches = []
            for slot in range(self.size >> (r + 1)):
                if feeding is None:
                    top, bottom = places[2 * slot], places[2 * slot + 1]
                    bye = top is None or bottom is None
                else:
                    top, bottom = feeding[2 * slot].winner, feeding[2 * slot + 1].winner
                    bye = False
                matches.append(
                    BracketMatch(
                        round=r,
                        slot=slot,
                        length=length,
                        top=top,
                        bottom=bottom,
                        top_seed=None if top is None else self.seed_of(top),
                        bottom_seed=None if bottom is None else self.seed_of(bottom),
                        bye=bye,
                        decided=None if bye else self.result(match_id(r, slot)),
                    )
                )
            rounds.append(tuple(matches))
            feeding = matches
        return tuple(rounds)

    def match(self, match: str) -> BracketMatch:
        for round_ in self.bracket():
            for m in round_:
                if m.match_id == match:
                    return m
        raise KnockoutError(f"no match {match!r} in a knockout of {self.rounds} rounds")

    def ready(self) -> tuple[BracketMatch, ...]:
        """The matches that can be played now (both players known, not decided), by round then slot."""
        return tuple(m for round_ in self.bracket() for m in round_ if m.ready)

    def record(self, match: str, winner: int, score: tuple[int, int], walkover: bool = False) -> Knockout:
        """The knockout with `match` decided for `winner` (`score`: the winner's points, the loser's).

        The same result again is a no-op; another result for a decided match, or a result for a match
        not ready, is a KnockoutError."""
        decided = Decided(winner, (int(score[0]), int(score[1])), walkover)
        if min(decided.score) < 0:
            raise KnockoutError(f"match {match}: a score cannot be negative ({score})")
        played = self.match(match)
        if played.decided is not None:
            if played.decided == decided:
                return self
            raise KnockoutError(f"match {match} is already decided: {played.decided}, not {decided}")
        if not played.ready:
            raise KnockoutError(f"match {match} is not ready to be played ({played.top} v {played.bottom})")
        if winner not in (played.top, played.bottom):
            raise KnockoutError(f"match {match}: user {winner} does not play in it")
        return replace(self, results=(*self.results, (match, decided)))

    @property
    def final(self) -> BracketMatch:
        return self.bracket()[-1][0]

    @property
    def finished(self) -> bool:
        return self.final.decided is not None

    @property
    def champion(self) -> int | None:
        return self.final.winner

    def runners_up(self) -> tuple[int | None, tuple[int, ...]]:
        """The final's loser (None until it is played) and the semi-finals' losers (sharing third)."""
        rounds = self.bracket()
        semis = rounds[-2] if len(rounds) > 1 else ()
        return self.final.loser, tuple(m.loser for m in semis if m.loser is not None)

    def champion_path(self) -> tuple[str, ...]:
        """The ids of the matches the champion won on the way (byes included), first round first."""
        champion = self.champion
        if champion is None:
            return ()
        return tuple(m.match_id for round_ in self.bracket() for m in round_ if m.winner == champion)

    def to_json(self) -> dict[str, Any]:
        return {
            "seeds": list(self.seeds),
            "length": self.settings.length,
            "final_length": self.settings.final_length,
            "results": [[key, decided.to_json()] for key, decided in self.results],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Knockout:
        final_length = d.get("final_length")
        return cls(
            seeds=tuple(int(s) for s in d["seeds"]),
            settings=KnockoutSettings(int(d["length"]), None if final_length is None else int(final_length)),
            results=tuple((str(key), Decided.from_json(decided)) for key, decided in d["results"]),
        )
