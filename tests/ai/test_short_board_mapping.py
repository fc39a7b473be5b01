"""The bgsage board mapping, pinned on known positions and cross-checked against bgsage's own move
generator and gnubg's network (a wrong orientation would make the strong net play terribly)."""

from __future__ import annotations

import random

import bgbot_cpp
import gnubg_nn
import pytest
from bgsage import STARTING_BOARD

from engine import Position, find_rules
from engine.ai.short_net import bgsage_board, net_probabilities, position_from_bgsage

SHORT = find_rules("short")


def _random_positions(seed: int, count: int) -> list[Position]:
    """Positions (side to move's view) met in random games, bar and bear-off included."""
    rng = random.Random(seed)
    found: list[Position] = []
    position = SHORT.start_position()
    while len(found) < count:
        plays = SHORT.legal_plays(position, (rng.randint(1, 6), rng.randint(1, 6)))
        play = plays[rng.randrange(len(plays))]
        if play.position.x[0] == 15:
            position = SHORT.start_position()
            continue
        position = play.position.swapped()
        found.append(position)
    return found


def test_start_position_is_bgsage_starting_board() -> None:
    assert bgsage_board(SHORT.start_position()) == STARTING_BOARD


def test_bar_checkers_map_to_index_25_for_the_mover_and_0_for_the_opponent() -> None:
    position = Position.from_counts({25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, {25: 2, 13: 5, 8: 3, 6: 5})
    board = bgsage_board(position)
    assert board[25] == 1 and board[0] == 2
    assert board[24] == 1 and board[1] == 0
    assert bgbot_cpp.pip_counts(board) == position.pips()


def test_race_position_maps_points_and_opponent_counts_negative() -> None:
    position = Position.from_counts({6: 4, 5: 4, 2: 2}, {3: 3, 1: 2})  # missing checkers are off
    board = bgsage_board(position)
    assert board[6] == 4 and board[5] == 4 and board[2] == 2
    assert board[22] == -3 and board[24] == -2
    assert bgbot_cpp.is_race(board)
    assert bgbot_cpp.pip_counts(board) == position.pips()


def test_mapping_round_trips_and_flips_like_swapped() -> None:
    for position in _random_positions(seed=11, count=300):
        board = bgsage_board(position)
        assert position_from_bgsage(board) == position
        assert bgbot_cpp.flip_board(board) == bgsage_board(position.swapped())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bgsage_move_generator_agrees_with_the_engine_through_the_mapping(seed: int) -> None:
    rng = random.Random(seed)
    for position in _random_positions(seed, 150):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        ours = {tuple(bgsage_board(p.position)) for p in SHORT.legal_plays(position, dice)}
        theirs = {tuple(b) for b in bgbot_cpp.possible_moves(bgsage_board(position), *dice)}
        if not theirs:  # bgsage answers a pass with no boards, the engine with the unchanged position
            theirs = {tuple(bgsage_board(position))}
        assert ours == theirs, f"{SHORT.describe(position)} with {dice}"


def test_net_win_chances_agree_with_gnubg_after_random_plays() -> None:
    rng = random.Random(5)
    gaps = []
    for before in _random_positions(seed=5, count=60):
        plays = SHORT.legal_plays(before, (rng.randint(1, 6), rng.randint(1, 6)))
        after = plays[rng.randrange(len(plays))].position
        if after.x[0] == 15:
            continue
        ours = net_probabilities(before, after)[0]
        opponent = after.swapped()  # gnubg evaluates for the side on roll
        gnubg_win = 1.0 - gnubg_nn.probabilities([list(opponent.o[1:26]), list(opponent.x[1:26])], 0)[0]
        gaps.append(abs(ours - gnubg_win))
    assert max(gaps) < 0.25
    assert sum(gaps) / len(gaps) < 0.05


def test_a_big_race_lead_is_a_near_certain_win_for_the_mover() -> None:
    ahead = Position.from_counts({1: 3, 2: 3}, {6: 5, 5: 5, 4: 5})
    assert net_probabilities(ahead, ahead)[0] > 0.97
    assert net_probabilities(ahead.swapped(), ahead.swapped())[0] < 0.03
