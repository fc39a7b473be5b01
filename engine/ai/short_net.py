"""Short nardy (= backgammon) evaluation by bgsage's neural network (MPL-2.0), raw 1-ply.

bgsage's board is a list of 26 ints from the point of view of one player ("the player"):
index 1..24 = the player's own points (1 = deepest home point), positive for the player's
checkers, negative for the opponent's; index 25 = the player's bar and index 0 = the
opponent's bar, both as positive counts; borne-off checkers are implied. Our Position counts
each side in its own numbering, and in short nardy O's point q is X's point 25 - q.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from engine.position import Position
from engine.rules import Rules


def bgsage_board(position: Position) -> list[int]:
    """The position as a bgsage board, from the side to move (X) in `position`."""
    x, o = position.x, position.o
    board = [0] * 26
    for point in range(1, 25):
        board[point] = x[point] - o[25 - point]
    board[25] = x[25]
    board[0] = o[25]
    return board


def position_from_bgsage(board: Sequence[int]) -> Position:
    """The inverse of bgsage_board (X = the board's player)."""
    x = [0] * 26
    o = [0] * 26
    for point in range(1, 25):
        if board[point] > 0:
            x[point] = board[point]
        elif board[point] < 0:
            o[25 - point] = -board[point]
    x[25] = board[25]
    o[25] = board[0]
    x[0] = 15 - sum(x)
    o[0] = 15 - sum(o)
    return Position(tuple(x), tuple(o))


@cache
def _strategy() -> Any:
    """bgsage's production network (loaded once, on first use; about 60 ms)."""
    import bgbot_cpp
    from bgsage.weights import default_weights

    weights = default_weights()
    return bgbot_cpp.create_strategy(
        weights.strategy_type, weights.weight_paths_list, weights.hidden_sizes_list
    )


@cache
def _strategy_2ply() -> Any:
    """bgsage's 2-ply search (one opponent roll deeper than the raw net), single-threaded."""
    import bgbot_cpp
    from bgsage.weights import default_weights

    weights = default_weights()
    return bgbot_cpp.create_multipy(
        weights.strategy_type,
        weights.weight_paths_list,
        weights.hidden_sizes_list,
        n_plies=2,
        filter_max_moves=5,
        filter_threshold=0.08,
        parallel_evaluate=False,
        parallel_threads=0,
    )


def net_probabilities(before: Position, after: Position) -> list[float]:
    """[win, win gammon, win backgammon, lose gammon, lose backgammon] for the side that just moved."""
    result = _strategy().evaluate_board(bgsage_board(after), bgsage_board(before))
    return [float(p) for p in result["probs"]]


class NetEvaluator:
    """Cubeless money equity of the position after a play (mars 2, koks 3), for the mover: the raw
    network, or with `plies=2` bgsage's search over the opponent's next roll."""

    def __init__(self, plies: int = 1) -> None:
        if plies not in (1, 2):
            raise ValueError(f"NetEvaluator plies must be 1 or 2, not {plies}")
        self.plies = plies

    def __repr__(self) -> str:
        return f"NetEvaluator(plies={self.plies})"

    def values(self, rules: Rules, before: Position, after: Sequence[Position]) -> list[float]:
        strategy = _strategy() if self.plies == 1 else _strategy_2ply()
        pre = bgsage_board(before)
        return [float(strategy.evaluate_board(bgsage_board(p), pre)["equity"]) for p in after]
