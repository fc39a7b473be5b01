"""Training long nardy's network (engine/ai/long_net.py) by TD(λ) self-play, TD-Gammon style.

    .venv/bin/python -m engine.ai.train --game long --games 100000 --seed 1 \\
        --checkpoint /tmp/longnet/ckpt.npz --curve /tmp/longnet/curve.png --eval-every 5000 --eval-games 100

Method. The net plays both sides of a game, choosing greedily at 1 ply: the play whose resulting
position (the opponent to move) has the lowest equity for the opponent; during the first
`explore_games` games a play is chosen at random with probability `explore` (a little exploration
while the net knows nothing). Every position s_t of the game (each from its side to move) gets the
λ-return target, computed backwards from the end:
    G_last = the result for the last mover: (1, 1 if mars, 0);
    G_t    = flip((1 − λ)·V(s_t+1) + λ·G_t+1),  flip(win, win mars, lose mars) = (1 − win, lose mars, win mars)
(s_t+1 is seen by the other side, hence the flip). The weights then take one Adam step on
Σ_t ½‖G_t − V(s_t)‖² over the game: the offline, forward view of TD(λ), equivalent to TD-Gammon's
eligibility traces with the weights held for one game, and much faster in numpy (one batched
forward and backward pass per game instead of one per move). The learning rate decays as
lr / (1 + games / lr_decay_games).

Why TD(λ) self-play and no supervised start: long nardy has no strong program to learn from, and
TD-Gammon showed self-play alone reaches expert play. The net's inputs include today's 13 hand-made
features (long_eval), so it starts from a sensible summary and is past today's 1-ply heuristic
within a few thousand games; a supervised fit to the linear evaluation would only teach it the
linear evaluator's mistakes, which TD then has to unlearn.

Runs are seeded and reproducible (same seed and options → same weights; the dice and the exploration
draw from one random.Random, the initial weights from numpy's generator of the same seed; run it with
OMP_NUM_THREADS=1 for bit-exact BLAS). A checkpoint (weights, Adam state, the random state, games
done, the learning curve) is written every `--checkpoint-every` seconds and after each evaluation;
`--resume` continues from it. Every K games (`--eval-every`) the net (1 ply, greedy) plays M mirrored
games (`--eval-games`: M/2 dice sequences, each played once with each side starting; the same
sequences every time) against the frozen long expert `long_v1` (the linear evaluator with the
21-roll lookahead on its 3 best plays, as engine/ai/levels.py built it before the net); the points
per game and their 95 % interval are printed and drawn in the `--curve` PNG. The best net so far by
that measure is saved to `--best` in the shipped format (engine/ai/long_net.npz).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.ai.curve import CurvePoint, draw_curve
from engine.ai.levels import long_v1, player_for
from engine.ai.long_net import LongNet, LongNetEvaluator, encode_counts
from engine.ai.player import Player, SearchPlayer
from engine.ai.selfplay import SelfPlayGame, mirrored_points, points_interval, self_play_game
from engine.ai.train_pool import PoolPlan, train_pool
from engine.rules import Rules, find_rules


@dataclass(frozen=True)
class TrainConfig:
    """The training options (defaults: the shipped net's run)."""

    hidden: int = 80
    lam: float = 0.7
    lr: float = 1e-3
    lr_decay_games: float = 50_000.0
    explore: float = 0.02
    explore_games: int = 2_000
    seed: int = 1

    def __post_init__(self) -> None:
        if self.hidden < 1:
            raise ValueError(f"train config: hidden must be at least 1, got {self.hidden}")
        if not 0.0 <= self.lam <= 1.0:
            raise ValueError(f"train config: lam must be in 0..1, got {self.lam}")
        if self.lr <= 0.0:
            raise ValueError(f"train config: lr must be positive, got {self.lr}")


_ADAM_B1, _ADAM_B2, _ADAM_EPS = 0.9, 0.999, 1e-8
_PARAMS = ("w1", "b1", "w2", "b2")


def _fresh_moments(params: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Adam's first and second moments of a run that starts now: zeros shaped like each parameter."""
    return {f"{m}_{k}": np.zeros_like(v) for k, v in params.items() for m in ("m", "v")}


@dataclass
class Trainer:
    """The state of a training run: weights, Adam moments, the random source, games done, the curve."""

    config: TrainConfig
    params: dict[str, np.ndarray]
    moments: dict[str, np.ndarray]
    rng: random.Random
    games: int = 0
    steps: int = 0
    curve: list[CurvePoint] = field(default_factory=list)
    rounds: int = 0  # rounds of a parallel run (engine/ai/train_pool.py)
    rules: Rules = field(default_factory=lambda: find_rules("long"))

    @classmethod
    def new(cls, config: TrainConfig) -> Trainer:
        net = LongNet.initial(config.hidden, np.random.default_rng(config.seed))
        params = {k: getattr(net, k).copy() for k in _PARAMS}
        return cls(config, params, _fresh_moments(params), random.Random(config.seed))

    @classmethod
    def warm(cls, config: TrainConfig, start: LongNet) -> Trainer:
        """A run that starts from a trained net (its games counted, for the learning rate's decay), widened
        to `config.hidden` units if that is more than it has: the new units get small random input weights
        and zero output weights, so the widened net judges every position exactly as `start` does."""
        if config.hidden < start.hidden:
            raise ValueError(
                f"train config: hidden {config.hidden} is fewer than the start net's {start.hidden}"
            )
        fresh = LongNet.initial(config.hidden, np.random.default_rng(config.seed))
        w1, b1, w2 = fresh.w1.copy(), np.zeros(config.hidden), np.zeros((config.hidden, 3))
        w1[:, : start.hidden] = start.w1
        b1[: start.hidden] = start.b1
        w2[: start.hidden] = start.w2
        params = {"w1": w1, "b1": b1, "w2": w2, "b2": start.b2.copy()}
        return cls(config, params, _fresh_moments(params), random.Random(config.seed), games=start.games)

    def net(self) -> LongNet:
        """The current weights as a LongNet (a copy)."""
        p = self.params
        return LongNet(p["w1"].copy(), p["b1"].copy(), p["w2"].copy(), p["b2"].copy(), games=self.games)

    def _forward(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        hidden = np.tanh(inputs @ self.params["w1"] + self.params["b1"])
        return hidden, 1.0 / (1.0 + np.exp(-(hidden @ self.params["w2"] + self.params["b2"])))

    @property
    def seed(self) -> int:
        return self.config.seed

    def explore_now(self) -> float:
        """The chance of a random play in the next game (exploration only in the first games)."""
        return self.config.explore if self.games < self.config.explore_games else 0.0

    def play_game(self) -> tuple[int, float]:
        """One self-play game and its learning step: (turns, mean squared TD error of the game)."""
        game = self_play_game(
            self.rules, lambda inputs: self._forward(inputs)[1], self.rng, self.explore_now()
        )
        return game.turns, self.learn(game)

    def learn(self, game: SelfPlayGame) -> float:
        """One Adam step towards the λ-returns of a game whose last mover (xs[-1]) won."""
        xs, mars = game.xs, game.mars
        inputs = encode_counts(game.xs, game.os)
        hidden, outputs = self._forward(inputs)
        lam = self.config.lam
        targets = np.empty_like(outputs)
        target = np.array([1.0, 1.0 if mars else 0.0, 0.0])
        for t in range(len(xs) - 1, -1, -1):
            targets[t] = target
            if t:
                mixed = (1.0 - lam) * outputs[t] + lam * target
                target = np.array([1.0 - mixed[0], mixed[2], mixed[1]])
        error = outputs - targets
        dz2 = error * outputs * (1.0 - outputs)
        dh = (dz2 @ self.params["w2"].T) * (1.0 - hidden**2)
        grads = {"w1": inputs.T @ dh, "b1": dh.sum(axis=0), "w2": hidden.T @ dz2, "b2": dz2.sum(axis=0)}
        self.steps += 1
        lr = self.config.lr / (1.0 + self.games / self.config.lr_decay_games)
        correction1 = 1.0 - _ADAM_B1**self.steps
        correction2 = 1.0 - _ADAM_B2**self.steps
        for k, g in grads.items():
            m, v = self.moments[f"m_{k}"], self.moments[f"v_{k}"]
            m *= _ADAM_B1
            m += (1.0 - _ADAM_B1) * g
            v *= _ADAM_B2
            v += (1.0 - _ADAM_B2) * g * g
            self.params[k] -= lr * (m / correction1) / (np.sqrt(v / correction2) + _ADAM_EPS)
        self.games += 1
        return float((error**2).mean())

    # ----- checkpoints ----------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Everything a resumed run needs, written atomically (a temporary file, then a rename)."""
        path = Path(path)
        version, state, gauss = self.rng.getstate()
        c = self.config
        arrays: dict[str, np.ndarray] = {
            **self.params,
            **self.moments,
            "config": np.array(
                [c.hidden, c.lam, c.lr, c.lr_decay_games, c.explore, c.explore_games, c.seed],
                dtype=np.float64,
            ),
            "rng_version": np.array(version),
            "rng_state": np.array(state, dtype=np.uint64),
            "rng_gauss": np.array(np.nan if gauss is None else gauss),
            "counters": np.array([self.games, self.steps, self.rounds]),
            "curve": np.array([[p.games, p.ppg, p.half] for p in self.curve]).reshape(-1, 3),
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        savez: Any = np.savez  # numpy's stubs do not take ** arrays
        with open(tmp, "wb") as file:
            savez(file, **arrays)
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> Trainer:
        with np.load(path) as data:
            hidden, lam, lr, decay, explore, explore_games, seed = (float(v) for v in data["config"])
            config = TrainConfig(int(hidden), lam, lr, decay, explore, int(explore_games), int(seed))
            gauss = float(data["rng_gauss"])
            rng = random.Random()
            state = tuple(int(v) for v in data["rng_state"])
            rng.setstate((int(data["rng_version"]), state, None if math.isnan(gauss) else gauss))
            games, steps, *rounds = (int(v) for v in data["counters"])
            curve = [CurvePoint(int(g), float(p), float(h)) for g, p, h in data["curve"]]
            params = {k: data[k].copy() for k in _PARAMS}
            moments = {f"{m}_{k}": data[f"{m}_{k}"].copy() for k in _PARAMS for m in ("m", "v")}
        return cls(config, params, moments, rng, games, steps, curve, rounds=rounds[0] if rounds else 0)


def match(rules: Rules, a: Player, b: Player, games: int, seed: int) -> tuple[float, float]:
    """A's points per game against B and the 95 % half-width over `games` mirrored games: games/2 dice
    sequences, each played with A starting and with B starting."""
    return points_interval(mirrored_points(rules, a, b, range(max(1, games // 2)), seed))


class Progress:
    """A small progress bar on stderr: redrawn in place on a terminal, a line every 30 s otherwise."""

    def __init__(self, total: int, done: int) -> None:
        self.total, self.start_done = total, done
        self.started = self.last = time.monotonic()
        self.tty = sys.stderr.isatty()

    def update(self, done: int, note: str = "", force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < (0.5 if self.tty else 30.0):
            return
        self.last = now
        rate = (done - self.start_done) / max(now - self.started, 1e-9)
        eta = (self.total - done) / rate if rate > 0 else float("inf")
        filled = int(30 * done / max(self.total, 1))
        bar = "#" * filled + "." * (30 - filled)
        eta_text = f"{eta / 3600:.1f} h" if eta != float("inf") else "?"
        line = f"[{bar}] {done}/{self.total} games {rate:.1f} g/s eta {eta_text} {note}"
        sys.stderr.write(("\r" + line) if self.tty else (line + "\n"))
        sys.stderr.flush()


def train(
    trainer: Trainer,
    games: int,
    *,
    eval_every: int = 0,
    eval_games: int = 100,
    eval_opponent: Player | None = None,
    checkpoint: Path | None = None,
    checkpoint_every: float = 300.0,
    curve_path: Path | None = None,
    best_path: Path | None = None,
    progress: bool = True,
) -> Trainer:
    """Train until `trainer.games == games`, evaluating, checkpointing and drawing as configured."""
    bar = Progress(games, trainer.games) if progress else None
    opponent = eval_opponent if eval_opponent is not None else (long_v1() if eval_every else None)
    saved = time.monotonic()
    best = max((p.ppg for p in trainer.curve), default=-math.inf)
    errors: list[float] = []
    while trainer.games < games:
        errors.append(trainer.play_game()[1])
        if bar:
            bar.update(trainer.games, f"td-mse {statistics.fmean(errors[-500:]):.4f}")
        if eval_every and opponent is not None and trainer.games % eval_every == 0:
            net = trainer.net()
            started = time.monotonic()
            ppg, half = match(trainer.rules, SearchPlayer(LongNetEvaluator(net)), opponent, eval_games, 1)
            trainer.curve.append(CurvePoint(trainer.games, ppg, half))
            print(
                f"curve: games {trainer.games} ppg {ppg:+.3f} ± {half:.3f} vs long_v1 "
                f"({eval_games} mirrored games, {time.monotonic() - started:.0f} s)",
                flush=True,
            )
            if curve_path is not None:
                draw_curve(trainer.curve, curve_path, "long nardy net (1 ply) vs long_v1: points per game")
            if best_path is not None and ppg > best:
                best = ppg
                net.save(best_path)
            if checkpoint is not None:
                trainer.save(checkpoint)
                saved = time.monotonic()
        if checkpoint is not None and time.monotonic() - saved > checkpoint_every:
            trainer.save(checkpoint)
            saved = time.monotonic()
    if bar:
        bar.update(trainer.games, force=True)
        sys.stderr.write("\n")
    if checkpoint is not None:
        trainer.save(checkpoint)
    return trainer


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", choices=("long",), required=True, help="long nardy (short uses bgsage)")
    parser.add_argument("--games", type=int, default=100_000, help="train until this many games in all")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hidden", type=int, default=TrainConfig.hidden)
    parser.add_argument("--lam", type=float, default=TrainConfig.lam)
    parser.add_argument("--lr", type=float, default=TrainConfig.lr)
    parser.add_argument("--checkpoint", type=Path, help="checkpoint file (.npz)")
    parser.add_argument("--checkpoint-every", type=float, default=300.0, help="seconds between checkpoints")
    parser.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    parser.add_argument("--eval-every", type=int, default=5_000, help="games between evaluations (0: none)")
    parser.add_argument("--eval-games", type=int, default=100, help="mirrored games per evaluation")
    parser.add_argument("--curve", type=Path, help="learning-curve PNG")
    parser.add_argument("--best", type=Path, help="the best net so far, in the shipped .npz format")
    parser.add_argument("--out", type=Path, help="the final net, in the shipped .npz format")
    parser.add_argument("--init", type=Path, help="start from this net (.npz), widened to --hidden units")
    parser.add_argument(
        "--workers", type=int, default=1, help="self-play processes (more than 1: train_pool)"
    )
    parser.add_argument("--per-actor", type=int, default=8, help="games per worker a round (--workers > 1)")
    parser.add_argument(
        "--checkpoint-games", type=int, default=5_000, help="games between drains (--workers > 1)"
    )
    parser.add_argument(
        "--eval-against", default="long_v1", help="the frozen opponent of the curve (a level)"
    )
    parser.add_argument("--seconds", type=float, default=math.inf, help="stop at the first drain after this")
    args = parser.parse_args(argv)
    for path in (args.checkpoint, args.curve, args.best, args.out):
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
    if args.resume:
        if args.checkpoint is None or not args.checkpoint.exists():
            parser.error(f"--resume needs an existing --checkpoint, got {args.checkpoint}")
        trainer = Trainer.load(args.checkpoint)
        print(f"resumed {args.checkpoint} at {trainer.games} games", flush=True)
    else:
        config = TrainConfig(hidden=args.hidden, lam=args.lam, lr=args.lr, seed=args.seed)
        trainer = Trainer.warm(config, LongNet.load(args.init)) if args.init else Trainer.new(config)
    if args.workers > 1:
        plan = PoolPlan(
            args.workers,
            args.per_actor,
            args.checkpoint_games,
            args.eval_every,
            args.eval_games,
            args.eval_against,
        )
        train_pool(
            trainer,
            args.games,
            plan,
            seconds=args.seconds,
            checkpoint=args.checkpoint,
            curve_path=args.curve,
            best_path=args.best,
        )
    else:
        train(
            trainer,
            args.games,
            eval_every=args.eval_every,
            eval_games=args.eval_games,
            eval_opponent=player_for("long", args.eval_against) if args.eval_every else None,
            checkpoint=args.checkpoint,
            checkpoint_every=args.checkpoint_every,
            curve_path=args.curve,
            best_path=args.best,
        )
    for point in trainer.curve:
        print(f"{point.games}\t{point.ppg:+.3f}\t±{point.half:.3f}")
    if args.out is not None:
        trainer.net().save(args.out)


if __name__ == "__main__":
    main()
