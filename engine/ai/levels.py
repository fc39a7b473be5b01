"""Which player each (game, level) gets: one table per game, no game checks elsewhere."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import resources
from io import BytesIO

import numpy as np

from engine.ai.baselines import GreedyPlayer, RandomPlayer
from engine.ai.long_eval import LinearEvaluator, shipped_weights
from engine.ai.long_net import LongNet, LongNetEvaluator
from engine.ai.player import LookaheadEvaluator, Player, SearchPlayer
from engine.ai.short_net import NetEvaluator

LEVELS: tuple[str, ...] = ("beginner", "intermediate", "expert")
# Extra opponents for bench/strength.py, never offered to users ("greedy" and "long_v1" are long nardy's):
# long_v1 is the long nardy expert of before the neural network (the linear evaluator of long_eval.py with a
# lookahead over the opponent's 21 rolls), kept so that every future net is measured against it.
# long_net_v1 is the first self-play network as it was shipped (long_net_v1.npz, never retrained): the previous
# net that the next one is measured against.
BENCH_LEVELS: tuple[str, ...] = ("random", "greedy", "long_v1", "long_net_v1", "long_net_v2")
# The shipped networks, each frozen under its name: long_net_vN plays as the plain net at 1 ply.
NAMED_NETS: dict[str, str] = {"long_net_v1": "long_net_v1.npz", "long_net_v2": "long_net_v2.npz"}
# The long expert's look one roll deeper (engine/ai/player.py LookaheadEvaluator): on its two best plays
# when the net rates them within LOOKAHEAD_MARGIN points of each other, and only while the opponent's
# replies to both number at most LOOKAHEAD_BUDGET positions (else the net's first impression stands):
# the bound keeps a decision within about 100 ms on the 2-core development machine.
LOOKAHEAD_CANDIDATES = 2
LOOKAHEAD_MARGIN = 0.1
LOOKAHEAD_BUDGET = 3_000


def long_v1() -> Player:
    """The long nardy expert of before the neural network: a named baseline."""
    linear = LinearEvaluator(shipped_weights("expert"))
    return SearchPlayer(linear, deep=LookaheadEvaluator(linear), candidates=3)


def _short(level: str) -> Player:
    net = NetEvaluator()
    return {
        "beginner": SearchPlayer(net, noise=0.15),
        "intermediate": SearchPlayer(net, noise=0.05),
        "expert": SearchPlayer(net, deep=NetEvaluator(plies=2), candidates=4, margin=0.12),
    }[level]


INTERMEDIATE_NET = "long_net_intermediate.npz"  # a network trained the same way, 2,500 self-play games only


@cache
def packaged_net(name: str) -> LongNet:
    """A network shipped next to this module (`name`: its .npz file), loaded once."""
    raw = resources.files("engine.ai").joinpath(name).read_bytes()
    with np.load(BytesIO(raw)) as data:
        return LongNet.from_arrays(data, f"engine/ai/{name}")


def _long(level: str) -> Player:
    """Long nardy, three players a person recognises, each a step below the one above it (docs/computer.md):
    the expert plays the newest self-play network (long_net_v2) and, when its two best plays are close,
    looks one roll deeper at both (bounded: LOOKAHEAD_BUDGET); the intermediate a network trained the same
    way for 2,500 self-play games only (seed 7): it knows the game and misjudges positions as a club player
    does, mostly by a little; the beginner plays by the rules of thumb a beginner is taught (race, leave the
    head, make points: the hand-made evaluation of long_eval.py) one move deep, its small noise only
    breaking near-ties. None of them blunders at random."""
    return {
        "beginner": SearchPlayer(LinearEvaluator(shipped_weights("expert")), noise=0.1),
        "intermediate": SearchPlayer(LongNetEvaluator(packaged_net(INTERMEDIATE_NET))),
        "expert": SearchPlayer(
            LongNetEvaluator(),
            deep=LookaheadEvaluator(LongNetEvaluator(), budget=LOOKAHEAD_BUDGET),
            candidates=LOOKAHEAD_CANDIDATES,
            margin=LOOKAHEAD_MARGIN,
        ),
    }[level]


_GAMES: dict[str, Callable[[str], Player]] = {"short": _short, "long": _long}


@cache
def player_for(game: str, level: str) -> Player:
    """The player for `level` ("beginner", "intermediate", "expert", or a BENCH_LEVELS name) in `game`."""
    if game not in _GAMES:
        raise ValueError(f"no computer player for game {game!r}; games: {', '.join(_GAMES)}")
    if level == "random":
        return RandomPlayer()
    if level == "long_v1":
        if game != "long":
            raise ValueError(f"long_v1 is a long nardy player, not a {game!r} one")
        return long_v1()
    if level in NAMED_NETS:
        if game != "long":
            raise ValueError(f"{level} is a long nardy player, not a {game!r} one")
        return SearchPlayer(LongNetEvaluator(packaged_net(NAMED_NETS[level])))
    if level == "greedy":
        if game != "long":
            raise ValueError(f"the greedy benchmark player plays long nardy only, not {game!r}")
        return GreedyPlayer()
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS + BENCH_LEVELS)}")
    return _GAMES[game](level)
