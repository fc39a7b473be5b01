"""The knockout bracket (bot/model/knockout.py): seeding, byes, results once, the champion."""

from __future__ import annotations

import pytest

from bot.model.knockout import Knockout, KnockoutError, KnockoutSettings, Seeded, bracket_order


def knockout_of(count: int, settings: KnockoutSettings | None = None) -> Knockout:
    """`count` players, user ids 1..count, rated so that user 1 is seed 1."""
    return Knockout.seed(
        [Seeded(user_id, 2000.0 - user_id) for user_id in range(1, count + 1)], settings or KnockoutSettings()
    )


def play_out(knockout: Knockout) -> Knockout:
    """Every match won by the better seed, until the champion."""
    while not knockout.finished:
        for match in knockout.ready():
            assert match.top_seed is not None and match.bottom_seed is not None
            winner = match.top if match.top_seed < match.bottom_seed else match.bottom
            assert winner is not None
            knockout = knockout.record(match.match_id, winner, (match.length, 0))
    return knockout


def test_the_standard_order_puts_one_against_the_last_seed() -> None:
    assert bracket_order(8) == (1, 8, 4, 5, 2, 7, 3, 6)


def test_five_players_give_the_top_three_seeds_a_bye() -> None:
    first = knockout_of(5).bracket()[0]
    assert [(m.top_seed, m.bottom_seed, m.bye) for m in first] == [
        (1, None, True),
        (4, 5, False),
        (2, None, True),
        (3, None, True),
    ]
    assert [m.match_id for m in knockout_of(5).ready()] == ["r0m1", "r1m1"]  # 4 v 5, and 2 v 3


def test_the_better_seeds_win_and_the_first_is_champion() -> None:
    done = play_out(knockout_of(8))
    assert done.champion == 1
    assert done.runners_up() == (2, (4, 3))


def test_a_result_recorded_twice_is_a_no_op_and_a_different_one_an_error() -> None:
    knockout = knockout_of(4)
    once = knockout.record("r0m0", 1, (1, 0))
    assert once.record("r0m0", 1, (1, 0)) == once
    with pytest.raises(KnockoutError, match="already decided"):
        once.record("r0m0", 4, (1, 0))


def test_the_knockout_survives_a_json_round_trip() -> None:
    knockout = knockout_of(13, KnockoutSettings(3, 5)).record("r0m1", 9, (3, 1), walkover=True)
    assert Knockout.from_json(knockout.to_json()) == knockout
