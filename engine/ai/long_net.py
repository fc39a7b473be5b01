"""Long nardy evaluation by a small neural network trained by TD(λ) self-play (engine/ai/train.py).

Convention. The network judges a position *with the side to move* (X of a `Position`, as in GNU
Backgammon) and gives three probabilities for that side: P(win), P(win a mars), P(lose a mars). Its
equity for the side to move is  P(win)·1 + P(win a mars)·1 − P(lose)·1 − P(lose a mars)·1, that is
2·P(win) − 1 + P(win a mars) − P(lose a mars)  (long nardy's default scoring: oin 1, mars 2; the
home_mars and koks options are ignored). `LongNetEvaluator` follows the `Evaluator` protocol: the
position after a play is judged from the opponent, who is to move there, and the mover's score is
minus the opponent's equity. So the score of a position for one side is exactly minus its score for
the other, the antisymmetry `LookaheadEvaluator` needs.

Inputs (`encode`): for side S against side T, each in its own numbering (`side_inputs`, 117 values):
- per point 1..24 a truncated unary code of S's checkers (gnubg style): n ≥ 1, n ≥ 2, n ≥ 3 and
  (n − 3)/4 beyond three (96 values; point 24 is the head, so its count is the head's);
- S's checkers borne off /15, home or off /15, pip count /360;
- S's checkers behind a run of 3, 4 and 5+ points of T ahead of them (on the way to S's home) /15:
  the checkers that cannot yet pass T's block (a six-run would be a full prime);
- S's checkers that still have a T checker ahead of them (not yet past the whole T army) /15, and
  S's rearmost checker's point /24;
- the 13 hand-made features of `long_eval.feature_matrix` (pips, head, points held per quarter, runs
  and the longest run along T's path, the trap, stacking, off, home, mobility), scaled to about 0..1:
  they are today's evaluator's proven summary, and with them even an untrained net starts sensible.
The input vector is  side_inputs(X, O) ‖ side_inputs(O, X) ‖ race flag  (235 values): the opponent's
primes, blocks and trapped checkers are its half's features, and swapping the sides swaps the halves
(the symmetry tests/ai/test_long_net.py pins).

Network: 235 inputs → `hidden` tanh units → 3 sigmoid outputs; numpy only. The shipped weights live in
`long_net.npz` next to this module (arrays w1, b1, w2, b2 and `games`: the self-play games trained), a copy
of the newest named net, `long_net_v2.npz`: 160 hidden units after 110,041 TD(λ) self-play games (λ 0.7,
Adam): `long_net_v1.npz` (80 units, 19,561 games on one core) widened to 160 units and trained on for
90,480 games by 15 self-play processes (`python -m engine.ai.train --workers 15 --init ...`,
engine/ai/train_pool.py; about 12 minutes on a 16-core machine), the best of its evaluations against
long_net_v1. Every shipped net stays in the package under its name as the next one's baseline.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np

from engine.ai.long_eval import FEATURES, feature_matrix
from engine.position import Position
from engine.rules import Rules

OUTPUTS: tuple[str, ...] = ("win", "win_mars", "lose_mars")
# Long nardy: T's point q is S's point _MIRROR[q], the same map both ways.
_MIRROR = np.array([0] + [q + 12 if q <= 12 else q - 12 for q in range(1, 25)])
_POINTS = np.arange(26, dtype=np.float64)
_POINTS[25] = 0.0  # long nardy has no bar
# Divisors that bring long_eval's features to about 0..1 (pips/10, head, points per quarter, runs, ...).
_FEATURE_SCALE = np.array([36.0, 15.0, 6.0, 6.0, 6.0, 5.0, 10.0, 8.0, 10.0, 15.0, 15.0, 15.0, 15.0])
SIDE_INPUTS = 96 + 3 + 3 + 2 + len(FEATURES)
INPUTS = 2 * SIDE_INPUTS + 1
WEIGHTS_FILE = "long_net.npz"


def _ahead(held: np.ndarray) -> np.ndarray:
    """For N rows of T's held points in S's numbering (N×24 booleans, column p-1 = point p): N×4×24 flags,
    for S's points 1..24, of a run of T's points of length ≥ 3, ≥ 4, ≥ 5 ahead of it (on lower points),
    and of any T point ahead of it. Vectorised over the rows: 24 column steps whatever N is."""
    n = held.shape[0]
    bests = np.zeros((n, 24), dtype=np.int64)  # the longest run of T points below each point
    run = np.zeros(n, dtype=np.int64)
    best = np.zeros(n, dtype=np.int64)
    for p in range(24):
        bests[:, p] = best
        run = (run + 1) * held[:, p]
        np.maximum(best, run, out=best)
    seen = np.zeros((n, 24), dtype=bool)  # any T point below each point
    seen[:, 1:] = np.logical_or.accumulate(held[:, :-1], axis=1)
    return np.stack([bests >= 3, bests >= 4, bests >= 5, seen], axis=1).astype(np.float64)


def side_inputs(s: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The inputs (N×SIDE_INPUTS) of side S against side T for N positions: rows of 26 counts each,
    each side in its own numbering."""
    n = s.shape[0]
    out = np.empty((n, SIDE_INPUTS))
    pts = s[:, 1:25]
    out[:, 0:24] = pts >= 1
    out[:, 24:48] = pts >= 2
    out[:, 48:72] = pts >= 3
    out[:, 72:96] = np.maximum(pts - 3, 0) / 4.0
    out[:, 96] = s[:, 0] / 15.0
    out[:, 97] = s[:, 0:7].sum(axis=1) / 15.0
    out[:, 98] = s @ _POINTS / 360.0
    flags = _ahead(t[:, _MIRROR[1:25]] > 0)  # T's held points in S's numbering → N × 4 × 24 flags
    out[:, 99:103] = (flags * pts[:, None, :]).sum(axis=2) / 15.0
    occupied = pts > 0
    rearmost = np.where(occupied.any(axis=1), 24 - np.argmax(occupied[:, ::-1], axis=1), 0)
    out[:, 103] = rearmost / 24.0
    out[:, 104:] = feature_matrix(s, t) / _FEATURE_SCALE
    return out


def encode_counts(x: np.ndarray, o: np.ndarray) -> np.ndarray:
    """The network inputs (N×INPUTS) of N positions given as count arrays (N×26): x = the side to move."""
    x = np.asarray(x, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    n = x.shape[0]
    out = np.empty((n, INPUTS))
    both = side_inputs(np.concatenate([x, o]), np.concatenate([o, x]))  # one pass for both halves
    out[:, :SIDE_INPUTS] = both[:n]
    out[:, SIDE_INPUTS : 2 * SIDE_INPUTS] = both[n:]
    out[:, -1] = ~(x[:, 13:25].any(axis=1) | o[:, 13:25].any(axis=1))
    return out


def encode(positions: Sequence[Position]) -> np.ndarray:
    """The network inputs (N×INPUTS) of positions, each from its side to move (X)."""
    if not positions:
        return np.empty((0, INPUTS))
    return encode_counts(np.array([p.x for p in positions]), np.array([p.o for p in positions]))


def equity(outputs: np.ndarray) -> np.ndarray:
    """Expected points for the side to move from the N×3 outputs (P(win), P(win mars), P(lose mars))."""
    return 2.0 * outputs[:, 0] - 1.0 + outputs[:, 1] - outputs[:, 2]


@dataclass(frozen=True, eq=False)
class LongNet:
    """The network's weights: inputs → tanh hidden layer (w1, b1) → 3 sigmoid outputs (w2, b2)."""

    w1: np.ndarray  # INPUTS × hidden
    b1: np.ndarray  # hidden
    w2: np.ndarray  # hidden × 3
    b2: np.ndarray  # 3
    games: int = 0  # self-play games trained

    def __post_init__(self) -> None:
        hidden = self.b1.shape[0]
        shapes = {"w1": (INPUTS, hidden), "b1": (hidden,), "w2": (hidden, 3), "b2": (3,)}
        for name, shape in shapes.items():
            if getattr(self, name).shape != shape:
                raise ValueError(f"long net: {name} has shape {getattr(self, name).shape}, expected {shape}")

    @property
    def hidden(self) -> int:
        return int(self.b1.shape[0])

    @classmethod
    def initial(cls, hidden: int, rng: np.random.Generator) -> LongNet:
        """Small random weights (an untrained net)."""
        w1 = rng.normal(0.0, 1.0 / np.sqrt(INPUTS), (INPUTS, hidden))
        w2 = rng.normal(0.0, 1.0 / np.sqrt(hidden), (hidden, 3))
        return cls(w1, np.zeros(hidden), w2, np.zeros(3))

    def forward(self, inputs: np.ndarray) -> np.ndarray:
        """The N×3 outputs for N encoded positions."""
        hidden = np.tanh(inputs @ self.w1 + self.b1)
        return 1.0 / (1.0 + np.exp(-(hidden @ self.w2 + self.b2)))

    def probabilities(self, positions: Sequence[Position]) -> np.ndarray:
        """The N×3 outputs (OUTPUTS order) for positions, each for its side to move."""
        return self.forward(encode(positions))

    def save(self, path: str | Path) -> None:
        """The weights as an .npz file (float32: the shipped file stays small)."""
        savez: Any = np.savez_compressed  # numpy's stubs do not take ** arrays
        with open(path, "wb") as file:
            savez(file, **self.arrays())

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "w1": self.w1.astype(np.float32),
            "b1": self.b1.astype(np.float32),
            "w2": self.w2.astype(np.float32),
            "b2": self.b2.astype(np.float32),
            "games": np.array(self.games),
        }

    @classmethod
    def from_arrays(cls, data: dict[str, np.ndarray] | np.lib.npyio.NpzFile, where: str) -> LongNet:
        missing = {"w1", "b1", "w2", "b2"} - set(data.keys())
        if missing:
            raise ValueError(f"long net weights {where}: missing arrays {sorted(missing)}")
        games = int(data["games"]) if "games" in data else 0
        w1, b1, w2, b2 = (np.asarray(data[k], dtype=np.float64) for k in ("w1", "b1", "w2", "b2"))
        try:
            return cls(w1, b1, w2, b2, games=games)
        except ValueError as error:
            raise ValueError(f"{error} (in {where})") from None

    @classmethod
    def load(cls, path: str | Path) -> LongNet:
        with np.load(path) as data:
            return cls.from_arrays(data, str(path))


@cache
def shipped_net() -> LongNet:
    """The trained network shipped in long_net.npz (loaded once)."""
    raw = resources.files("engine.ai").joinpath(WEIGHTS_FILE).read_bytes()
    with np.load(BytesIO(raw)) as data:
        return LongNet.from_arrays(data, f"engine/ai/{WEIGHTS_FILE}")


@dataclass(frozen=True)
class LongNetEvaluator:
    """The Evaluator protocol over a LongNet (the shipped one by default): the score of a position after
    a play is minus the equity of the opponent, who is to move there. Antisymmetric."""

    net: LongNet | None = None

    def values(self, rules: Rules, before: Position, after: Sequence[Position]) -> list[float]:
        if not after:
            return []
        return [float(-v) for v in equity(self._opponents(after))]

    def win_chances(self, after: Sequence[Position]) -> list[float]:
        """The mover's chance to win after each play: 1 − the net's P(win) for the opponent, to move there."""
        if not after:
            return []
        return [float(1.0 - p) for p in self._opponents(after)[:, 0]]

    def _opponents(self, after: Sequence[Position]) -> np.ndarray:
        """The net's N×3 outputs for the opponent, who is to move in each position after a play."""
        net = self.net if self.net is not None else shipped_net()
        # after.swapped(): the opponent is to move; its x is our o.
        return net.forward(encode_counts(np.array([p.o for p in after]), np.array([p.x for p in after])))
