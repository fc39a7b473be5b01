"""The shared machinery of every computer player: a Player protocol and a search over evaluated plays.

A game supplies an `Evaluator` (how good the position after a play is for the side that just moved);
`SearchPlayer` turns it into a player: 0-ply choice of the best play, optional noise for the weaker
levels, and an optional deeper evaluator for the best few candidates (`LookaheadEvaluator`: the
opponent's best reply to each of its 21 rolls; short nardy uses bgsage's own 2-ply search). Its
`decide` returns the choice with the scores behind it (`Decision`): `choose` plays it, and the
analysis (analysis.py) judges plays by the expert's own decisions.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Protocol

from engine.dice import ALL_ROLLS, Dice, roll_weight
from engine.moves import Play
from engine.position import Position
from engine.rules import Rules

# A finished game outranks any estimate: WIN_VALUE + the points won.
WIN_VALUE = 1000.0


class Player(Protocol):
    """Anything that picks one of `rules.legal_plays(position, dice)`."""

    def choose(self, rules: Rules, position: Position, dice: Dice, rng: random.Random) -> Play:
        """The chosen play (deterministic for a given rng state)."""
        ...


class Evaluator(Protocol):
    """Scores positions after a play, from the side that just moved (larger is better for it)."""

    def values(self, rules: Rules, before: Position, after: Sequence[Position]) -> list[float]:
        """One score per position in `after` (each still seen from the mover, game not over)."""
        ...


def win_value(rules: Rules, after: Position) -> float | None:
    """WIN_VALUE + points when the mover has borne off everything, else None."""
    if after.x[0] == 15:
        return WIN_VALUE + rules.score_loser(after.o).points
    return None


def score_plays(rules: Rules, evaluator: Evaluator, before: Position, plays: Sequence[Play]) -> list[float]:
    """The evaluator's score of each play's result, a won game scored above everything."""
    return score_positions(rules, evaluator, before, [play.position for play in plays])


def score_positions(
    rules: Rules, evaluator: Evaluator, before: Position, after: Sequence[Position]
) -> list[float]:
    """The evaluator's score of each position a play leads to, a won game scored above everything."""
    scores: list[float | None] = [win_value(rules, position) for position in after]
    open_index = [i for i, s in enumerate(scores) if s is None]
    if open_index:
        values = evaluator.values(rules, before, [after[i] for i in open_index])
        for i, v in zip(open_index, values):
            scores[i] = v
    return [float(s) for s in scores]  # type: ignore[arg-type]


class OverBudget(Exception):
    """A lookahead would have judged more reply positions than its budget allows (`LookaheadEvaluator`)."""


def reply_value(
    rules: Rules, evaluator: Evaluator, after: Position, limit: float = math.inf
) -> tuple[float, int]:
    """The mover's expected score after the opponent's best reply, averaged over the 21 rolls, and the
    number of reply positions judged for it.

    Needs an antisymmetric evaluator (the opponent's score is minus ours). Raises OverBudget as soon as
    the replies generated pass `limit` positions (before any is judged)."""
    won = win_value(rules, after)
    if won is not None:
        return won, 0
    theirs = after.swapped()
    replies: list[Position] = []
    ends: list[int] = []
    for dice in ALL_ROLLS:
        replies.extend(rules.legal_outcomes(theirs, dice))  # positions only: the search's fast path
        ends.append(len(replies))
        if len(replies) > limit:
            raise OverBudget(f"more than {limit} replies")
    values = score_positions(rules, evaluator, theirs, replies)  # one batch for all 21 rolls
    total = 0.0
    start = 0
    for dice, end in zip(ALL_ROLLS, ends):
        total += roll_weight(dice) * max(values[start:end])
        start = end
    return -total / 36.0, len(replies)


@dataclass(frozen=True)
class LookaheadEvaluator:
    """An evaluator one roll deeper: the mover's score after the opponent's best reply to each of its
    21 rolls, the replies judged by `base` (which must be antisymmetric).

    `budget` bounds the work of one `values` call: the reply positions generated for all the positions
    asked about together; past it the call raises OverBudget (a player then keeps its first impression:
    the bound is counted in positions, not seconds, so a decision is the same on any machine)."""

    base: Evaluator
    budget: int | None = None

    def values(self, rules: Rules, before: Position, after: Sequence[Position]) -> list[float]:
        left = math.inf if self.budget is None else float(self.budget)
        out: list[float] = []
        for p in after:
            value, used = reply_value(rules, self.base, p, left)
            out.append(value)
            left -= used
        return out

    def unbounded(self) -> LookaheadEvaluator:
        """The same lookahead with no budget (to judge a play the player did not look at: analysis.py)."""
        return replace(self, budget=None)


@dataclass(frozen=True, slots=True, repr=False)
class Decision:
    """What `SearchPlayer.decide` found: `chosen`, the index of the play it picks; `screen`, every play's
    score by the first-pass evaluator (noise included, as the choice saw them); `deep`, the deeper
    evaluator's score of each candidate it re-scored, by play index (empty when no deep pass ran: no deep
    evaluator, a single play, a won game on the board, or a single candidate within the margin)."""

    chosen: int
    screen: tuple[float, ...]
    deep: Mapping[int, float] = field(default_factory=lambda: MappingProxyType({}), hash=False)

    def __post_init__(self) -> None:
        if not 0 <= self.chosen < len(self.screen):
            raise ValueError(f"decision: chosen play {self.chosen} is not one of {len(self.screen)} plays")
        if not set(self.deep) <= set(range(len(self.screen))):
            raise ValueError(f"decision: deep scores for plays {sorted(self.deep)} of {len(self.screen)}")
        if not isinstance(self.deep, MappingProxyType):
            object.__setattr__(self, "deep", MappingProxyType(dict(self.deep)))

    def __repr__(self) -> str:
        return f"Decision(chosen={self.chosen}, screen={self.screen!r}, deep={dict(self.deep)!r})"

    @property
    def score(self) -> float:
        """The chosen play's score at the depth it was chosen: deep when a deep pass ran, else screen."""
        return self.deep[self.chosen] if self.deep else self.screen[self.chosen]


@dataclass(frozen=True)
class SearchPlayer:
    """Best play by `evaluator`, blurred by Gaussian `noise` (in score units). With a `deep` evaluator,
    the best `candidates` plays of that first pass (those within `margin` of the best) are scored
    again by `deep`, and the best of them is played."""

    evaluator: Evaluator
    noise: float = 0.0
    deep: Evaluator | None = None
    candidates: int = 3
    margin: float = float("inf")

    def choose(self, rules: Rules, position: Position, dice: Dice, rng: random.Random) -> Play:
        plays = rules.legal_plays(position, dice)
        if len(plays) == 1:
            return plays[0]  # nothing to decide (decide would score it, for a hint's figures)
        return plays[self.decide(rules, position, plays, rng).chosen]

    def decide(self, rules: Rules, position: Position, plays: Sequence[Play], rng: random.Random) -> Decision:
        """The decision among `plays` (the legal plays in `position`, in the rules' order), with the scores
        behind it; `choose` plays `plays[decision.chosen]`. A single play is scored but not blurred (the
        rng is not touched); ties go to the earlier play (`best_index`)."""
        if not plays:
            raise ValueError(f"no plays to decide among in position {rules.position_id(position)}")
        scores = score_plays(rules, self.evaluator, position, plays)
        if len(plays) == 1:
            return Decision(0, tuple(scores))
        if self.noise > 0.0:
            scores = [s + rng.gauss(0.0, self.noise) for s in scores]
        top = max(scores)
        if self.deep is None or top >= WIN_VALUE:
            return Decision(best_index(scores), tuple(scores))
        ranked = sorted(range(len(plays)), key=lambda i: (-scores[i], i))[: self.candidates]
        ranked = [i for i in ranked if scores[i] >= top - self.margin]
        if len(ranked) == 1:
            return Decision(ranked[0], tuple(scores))
        try:
            deep = self.deep.values(rules, position, [plays[i].position for i in ranked])
        except OverBudget:  # too much work for a bounded lookahead: the first impression stands
            return Decision(ranked[0], tuple(scores))
        return Decision(ranked[best_index(deep)], tuple(scores), dict(zip(ranked, deep)))


def best_index(scores: Sequence[float]) -> int:
    """The index of the first highest score."""
    return max(range(len(scores)), key=lambda i: (scores[i], -i))
