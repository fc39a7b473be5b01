"""Which player each (game, level) gets: one table per game, no game checks elsewhere."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from engine.ai.baselines import GreedyPlayer, RandomPlayer
from engine.ai.long_eval import LinearEvaluator, shipped_weights
from engine.ai.player import LookaheadEvaluator, Player, SearchPlayer
from engine.ai.short_net import NetEvaluator

LEVELS: tuple[str, ...] = ("beginner", "intermediate", "expert")
# Extra opponents for bench/strength.py, never offered to users ("greedy" and "long_v1" are long nardy's):
# long_v1 is the long nardy expert of before the neural network (the linear evaluator of long_eval.py with a
# lookahead over the opponent's 21 rolls), kept so that every future net is measured against it.
BENCH_LEVELS: tuple[str, ...] = ("random", "greedy", "long_v1")


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


def _long(level: str) -> Player:
    return {
        "beginner": SearchPlayer(LinearEvaluator(shipped_weights("expert")), noise=0.5),
        "intermediate": SearchPlayer(LinearEvaluator(shipped_weights("expert")), noise=0.15),
        "expert": SearchPlayer(
            LinearEvaluator(shipped_weights("expert")),
            deep=LookaheadEvaluator(LinearEvaluator(shipped_weights("expert"))),
            candidates=3,
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
    if level == "greedy":
        if game != "long":
            raise ValueError(f"the greedy benchmark player plays long nardy only, not {game!r}")
        return GreedyPlayer()
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS + BENCH_LEVELS)}")
    return _GAMES[game](level)
