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

import numpy as np

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
    "mobility",  # Σ over our occupied points of the dice 1..6 that can move a checker from there
)
# Long nardy: O's point q is X's point mirror(q), the same map both ways.
_MIRROR = np.array([0] + [q + 12 if q <= 12 else q - 12 for q in range(1, 25)])
_POINTS = np.arange(26, dtype=np.float64)
_POINTS[25] = 0.0  # long nardy has no bar


_BITS = 1 << np.arange(24, dtype=np.int64)


@cache
def _runs(mask: int) -> tuple[int, int]:
    """(Σ over runs of 3+ adjacent set bits of (length − 2), the longest run) of a 24-bit mask."""
    runs = longest = run = 0
    for q in range(25):
        if q < 24 and mask >> q & 1:
            run += 1
            longest = max(longest, run)
        else:
            runs += max(0, run - 2)
            run = 0
    return runs, longest


def _window6(flags: np.ndarray) -> np.ndarray:
    """For columns q = 1..24 of an N×25 array (column 0 unused): Σ flags[q-6 .. q-1] (points >= 1)."""
    c = np.zeros((flags.shape[0], 25), dtype=np.int32)
    np.cumsum(flags[:, 1:25], axis=1, out=c[:, 1:25])
    q = np.arange(1, 25)
    return c[:, q - 1] - c[:, np.maximum(q - 7, 0)]


def feature_matrix(s: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Features (N×len(FEATURES)) of side S against side T for N positions: rows of 26 counts each."""
    n = s.shape[0]
    out = np.empty((n, len(FEATURES)))
    occupied = s[:, 1:24] > 0
    out[:, 0] = s @ _POINTS / 10.0
    out[:, 1] = s[:, 24]
    out[:, 2] = occupied[:, 0:6].sum(axis=1)
    out[:, 3] = occupied[:, 6:12].sum(axis=1)
    out[:, 4] = occupied[:, 12:18].sum(axis=1)
    out[:, 5] = occupied[:, 18:23].sum(axis=1)
    # S's points seen in T's numbering (T moves from its point q to q - d).
    held = np.zeros((n, 25), dtype=np.int32)
    held[:, 1:25] = s[:, _MIRROR[1:25]] > 0
    masks = held[:, 1:25] @ _BITS
    out[:, 6:8] = [_runs(int(m)) for m in masks]
    out[:, 8] = (t[:, 1:25] * _window6(held)).sum(axis=1) / 6.0
    out[:, 9] = np.maximum(s[:, 1:24] - 3, 0).sum(axis=1)
    out[:, 10] = s[:, 0]
    out[:, 11] = s[:, 0:7].sum(axis=1)
    free = np.zeros((n, 25), dtype=np.int32)
    free[:, 1:25] = t[:, _MIRROR[1:25]] == 0
    out[:, 12] = ((s[:, 1:25] > 0) * _window6(free)).sum(axis=1) / 6.0
    return out


def features(s: Sequence[int], t: Sequence[int]) -> list[float]:
    """The feature values for side S (counts `s`) against side T (counts `t`), in FEATURES order."""
    return [float(v) for v in feature_matrix(np.array([s]), np.array([t]))[0]]


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
    """A weight set from long_weights.json ("expert": hand-set, then hill-climbed by self-play)."""
    data = json.loads(resources.files("engine.ai").joinpath("long_weights.json").read_text(encoding="utf-8"))
    if name not in data:
        raise ValueError(f"long_weights.json has no weight set {name!r}; it has {sorted(data)}")
    return LongWeights.from_json(data[name])


def is_race(position: Position) -> bool:
    """Every checker of both sides is in its own last twelve points: no blocking is left."""
    return not any(position.x[13:25]) and not any(position.o[13:25])


def scores(weights: LongWeights, positions: Sequence[Position]) -> list[float]:
    """The score of each position for its X, the side that just moved."""
    if not positions:
        return []
    x = np.array([p.x for p in positions])
    o = np.array([p.o for p in positions])
    diff = feature_matrix(x, o) - feature_matrix(o, x)
    race = ~(x[:, 13:25].any(axis=1) | o[:, 13:25].any(axis=1))
    values = np.where(race, diff @ np.array(weights.race), diff @ np.array(weights.contact))
    return [float(v) for v in values]


def score(weights: LongWeights, position: Position) -> float:
    """The score of one position for X, the side that just moved."""
    return scores(weights, [position])[0]


@dataclass(frozen=True)
class LinearEvaluator:
    """The Evaluator protocol over `scores`."""

    weights: LongWeights

    def values(self, rules: Rules, before: Position, after: Sequence[Position]) -> list[float]:
        return scores(self.weights, after)
