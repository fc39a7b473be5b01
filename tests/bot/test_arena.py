"""The arena's rules (bot/model/arena.py): scoring with streaks, the standings' tie-break, pairing."""

from __future__ import annotations

import pytest

from bot.model.arena import (
    Arena,
    ArenaError,
    Candidate,
    Outcome,
    Sheet,
    pair_free,
)


def sheet_of(*outcomes: str) -> Sheet:
    sheet = Sheet()
    for at, code in enumerate(outcomes):
        sheet = sheet.add(opponent=99, outcome=Outcome(code), at=float(at), opponent_rating=1500.0)
    return sheet


def arena_of(*user_ids: int, rating: float = 1500.0) -> Arena:
    arena = Arena()
    for user_id in user_ids:
        arena = arena.join(user_id, rating, at=0.0)
    return arena


def test_a_win_scores_two_and_the_third_win_in_a_row_scores_four() -> None:
    assert [r.points for r in sheet_of("w", "w", "w", "w").results] == [2, 2, 4, 4]


def test_a_loss_ends_the_streak() -> None:
    assert [r.points for r in sheet_of("w", "w", "w", "l", "w", "w", "w").results] == [2, 2, 4, 0, 2, 2, 4]


def test_a_walkover_win_scores_two_and_neither_builds_nor_breaks_a_streak() -> None:
    assert [r.points for r in sheet_of("ww", "ww", "w", "w", "ww", "w").results] == [2, 2, 2, 2, 2, 4]


def test_never_moving_scores_nothing_and_ends_the_streak() -> None:
    assert [r.points for r in sheet_of("w", "w", "wl", "w").results] == [2, 2, 0, 2]


def test_a_result_recorded_twice_is_scored_once() -> None:
    arena = arena_of(1, 2).start("g1", 1, 2)
    once = arena.record("g1", winner=1, at=10.0)
    assert once.record("g1", winner=2, at=11.0) == once
    assert once.entry(1).sheet.points == 2 and once.free() == (1, 2)


def test_a_game_between_busy_or_paused_players_is_refused() -> None:
    arena = arena_of(1, 2, 3).start("g1", 1, 2)
    with pytest.raises(ArenaError, match="user 2 is not free"):
        arena.start("g2", 3, 2)
    with pytest.raises(ArenaError, match="user 3 is not free"):
        arena.pause(3).start("g2", 3, 4)


def test_equal_points_are_ranked_by_performance_then_fewer_games() -> None:
    arena = arena_of(1, 2, 3, 4)
    arena = arena.start("a", 1, 2).record("a", winner=1, at=1.0)
    arena = arena.start("b", 3, 4).record("b", winner=3, at=2.0)
    assert [s.user_id for s in arena.standings()] == [1, 3, 2, 4]  # same points: the earlier to reach them


def test_a_pair_is_never_the_last_opponent_when_another_is_free() -> None:
    free = [
        Candidate(1, 1, 1500, last_opponent=2),
        Candidate(2, 2, 1500, last_opponent=1),
        Candidate(3, 3, 1500),
    ]
    assert pair_free(free) in (((1, 3),), ((2, 3),))


def test_the_last_two_free_players_meet_again() -> None:
    free = [Candidate(1, 1, 1500, last_opponent=2), Candidate(2, 2, 1500, last_opponent=1)]
    assert pair_free(free) == ((1, 2),)


def test_the_arena_survives_a_json_round_trip() -> None:
    arena = arena_of(1, 2, 3).start("g1", 1, 2).record("g1", winner=2, at=5.0).pause(3).start("g2", 1, 2)
    assert Arena.from_json(arena.to_json()) == arena
