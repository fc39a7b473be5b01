"""Long nardy evaluation: a linear score of hand-made features, weights tuned by self-play.

Each feature is computed for one side S against the other side T (S's counts in S's numbering, T's in
T's); the score of a position for the side that just moved is  Σ w·(f(x, o) − f(o, x)), so it is
antisymmetric: what one side gains the other loses. Contact and race positions have separate
weights. The weights live in `long_weights.json` next to this module.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from engine.position import Position
from engine.rules import Rules

FEATURES: tuple[str, ...] = (
    "pips",  # pip count / 10
    "head",  # checkers still on the head (point 24)
    "points_home",  # occupied points 1..6
    "points_outer",  # occupied points 7..12
    "points_far",  # occupied points 13..18 (the opponent's home)
    "points_start",  # occupied points 19..23 (the head's quarter)
    "runs",  # Σ over runs of 3+ adjacent points along the opponent's path of (length − 2)
    "longest_run",  # the longest such run
    "trap",  # Σ over the opponent's checkers of the share of dice 1..6 whose landing point we hold
    "stacking",  # Σ over points 1..23 of checkers beyond the third
    "off",  # checkers borne off
    "home",  # checkers home or borne off
)
# Long nardy: O's point q is X's point mirror(q), the same map both ways.
_MIRROR: tuple[int, ...] = (0,) + tuple(q + 12 if q <= 12 else q - 12 for q in range(1, 25))


def features(s: Sequence[int], t: Sequence[int]) -> list[float]:
    """The feature values for side S (counts `s`) against side T (counts `t`), in FEATURES order."""
    mirror = _MIRROR
    pips = 0
    stacking = 0
    points = [0, 0, 0, 0]
    for p in range(1, 24):
        n = s[p]
        if n:
            pips += p * n
            points[(p - 1) // 6] += 1
            if n > 3:
                stacking += n - 3
    pips += 24 * s[24]
    # S's occupancy seen in T's numbering: T moves from its point q to q - d.
    held = [False] * 25
    for q in range(1, 25):
        held[q] = s[mirror[q]] > 0
    runs = 0
    longest = 0
    run = 0
    for q in range(1, 25):
        if held[q]:
            run += 1
            if run > longest:
                longest = run
        else:
            if run >= 3:
                runs += run - 2
            run = 0
    if run >= 3:
        runs += run - 2
    trap = 0
    for q in range(2, 25):
        n = t[q]
        if n:
            blocked = 0
            for d in range(1, 7 if q > 6 else q):
                if held[q - d]:
                    blocked += 1
            trap += n * blocked
    home = s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6]
    return [
        pips / 10.0,
        float(s[24]),
        float(points[0]),
        float(points[1]),
        float(points[2]),
        float(points[3]),
        float(runs),
        float(longest),
        trap / 6.0,
        float(stacking),
        float(s[0]),
        float(home),
    ]


@dataclass(frozen=True)
class LongWeights:
    """One weight per feature, for contact positions and for races."""

    contact: tuple[float, ...]
    race: tuple[float, ...]

    @classmethod
    def from_json(cls, data: Mapping[str, Mapping[str, float]]) -> LongWeights:
        for part in ("contact", "race"):
            unknown = set(data[part]) - set(FEATURES)
            if unknown:
                raise ValueError(f"long nardy weights: unknown features {sorted(unknown)} in {part!r}")
        return cls(
            tuple(float(data["contact"].get(f, 0.0)) for f in FEATURES),
            tuple(float(data["race"].get(f, 0.0)) for f in FEATURES),
        )

    def to_json(self) -> dict[str, dict[str, float]]:
        return {
            "contact": {f: round(w, 4) for f, w in zip(FEATURES, self.contact)},
            "race": {f: round(w, 4) for f, w in zip(FEATURES, self.race)},
        }


@cache
def shipped_weights(name: str = "expert") -> LongWeights:
    """A weight set from long_weights.json ("expert" = tuned by self-play, "beginner" = simple)."""
    data = json.loads(resources.files("engine.ai").joinpath("long_weights.json").read_text(encoding="utf-8"))
    if name not in data:
        raise ValueError(f"long_weights.json has no weight set {name!r}; it has {sorted(data)}")
    return LongWeights.from_json(data[name])


def is_race(position: Position) -> bool:
    """Every checker of both sides is in its own last twelve points: no blocking is left."""
    return not any(position.x[13:25]) and not any(position.o[13:25])


def score(weights: LongWeights, position: Position) -> float:
    """The score of `position` for X, the side that just moved."""
    w = weights.race if is_race(position) else weights.contact
    mine = features(position.x, position.o)
    theirs = features(position.o, position.x)
    return sum(wi * (a - b) for wi, a, b in zip(w, mine, theirs))


@dataclass(frozen=True)
class LinearEvaluator:
    """The Evaluator protocol over `score`."""

    weights: LongWeights

    def values(self, rules: Rules, before: Position, after: Sequence[Position]) -> list[float]:
        weights = self.weights
        return [score(weights, p) for p in after]
