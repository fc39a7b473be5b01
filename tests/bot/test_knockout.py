"""The knockout bracket (bot/model/knockout.py): seeding, byes, results once, the champion."""

from __future__ import annotations

import json
import random

import pytest

from bot.model.knockout import Decided, Knockout, KnockoutError, KnockoutSettings, Seeded, bracket_order


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


@pytest.mark.parametrize(
    ("count", "size", "byes"), [(4, 4, 0), (5, 8, 3), (8, 8, 0), (13, 16, 3), (64, 64, 0)]
)
def test_the_bracket_has_the_next_power_of_two_places_and_the_byes_go_to_the_top_seeds(
    count: int, size: int, byes: int
) -> None:
    knockout = knockout_of(count)
    first = knockout.bracket()[0]
    assert knockout.size == size and len(first) == size // 2 and len(knockout.bracket()) == knockout.rounds
    with_bye = sorted(m.top_seed or 0 for m in first if m.bye)
    assert with_bye == list(range(1, byes + 1))
    assert all(m.bottom is None for m in first if m.bye)  # a bye never meets another bye


@pytest.mark.parametrize("count", [4, 5, 8, 13, 64])
def test_played_out_by_seed_the_top_seed_wins_and_every_player_plays_until_beaten(count: int) -> None:
    done = play_out(knockout_of(count))
    assert done.champion == 1 and done.runners_up() == (2, (4, 3))  # the semi-finals: 1 v 4, 2 v 3

    losers = [m.loser for round_ in done.bracket() for m in round_ if m.loser is not None]
    assert sorted(losers) == list(range(2, count + 1))
    assert not done.ready()


def test_seed_one_meets_the_last_seed_and_seeds_one_and_two_only_in_the_final() -> None:
    knockout = knockout_of(16)
    assert [(m.top_seed, m.bottom_seed) for m in knockout.bracket()[0]][:2] == [(1, 16), (8, 9)]
    final = play_out(knockout).final
    assert (final.top_seed, final.bottom_seed) == (1, 2)


def test_the_seeds_go_by_rating_and_equal_ratings_by_user_id() -> None:
    knockout = Knockout.seed([Seeded(5, 1500.0), Seeded(3, 1500.0), Seeded(9, 1800.0), Seeded(1, 1400.0)])
    assert knockout.seeds == (9, 3, 5, 1)


def test_five_players_with_a_bye_and_a_walkover_find_their_champion() -> None:
    knockout = knockout_of(5, KnockoutSettings(length=3, final_length=5))
    knockout = knockout.record("r0m1", 5, (0, 0), walkover=True)  # seed 4 never moved
    semi = knockout.match("r1m0")
    assert (semi.top, semi.bottom, semi.length) == (1, 5, 3)
    knockout = knockout.record("r1m0", 5, (3, 2)).record("r1m1", 2, (4, 1))
    final = knockout.match("r2m0")
    assert (final.top, final.bottom, final.length, final.ready) == (5, 2, 5, True)
    knockout = knockout.record("r2m0", 5, (5, 3))
    assert knockout.champion == 5 and knockout.runners_up() == (2, (1, 3))
    assert knockout.champion_path() == ("r0m1", "r1m0", "r2m0")
    assert knockout.match("r0m1").decided == Decided(5, (0, 0), walkover=True)


def test_the_champion_path_includes_a_bye() -> None:
    assert play_out(knockout_of(5)).champion_path() == ("r0m0", "r1m0", "r2m0")


def test_a_match_not_ready_or_a_winner_not_in_it_is_refused() -> None:
    knockout = knockout_of(8)
    with pytest.raises(KnockoutError, match="r1m0 is not ready"):
        knockout.record("r1m0", 1, (1, 0))
    with pytest.raises(KnockoutError, match="user 2 does not play in it"):
        knockout.record("r0m0", 2, (1, 0))
    with pytest.raises(KnockoutError, match="no match 'r9m0'"):
        knockout.record("r9m0", 1, (1, 0))
    with pytest.raises(KnockoutError, match="negative"):
        knockout.record("r0m0", 1, (1, -1))
    with pytest.raises(KnockoutError, match="r0m0 is not ready"):
        knockout_of(5).record("r0m0", 1, (1, 0))  # seed 1's bye


def test_three_or_sixty_five_players_and_bad_lengths_are_refused() -> None:
    with pytest.raises(KnockoutError, match="4 to 64 players, not 3"):
        knockout_of(3)
    with pytest.raises(KnockoutError, match="not 65"):
        knockout_of(65)
    with pytest.raises(KnockoutError, match="match length 2"):
        KnockoutSettings(length=2)


@pytest.mark.parametrize("seed", range(12))
def test_any_results_lead_to_one_champion_and_everyone_else_beaten_once(seed: int) -> None:
    rng = random.Random(seed)
    count = rng.randint(4, 64)
    knockout = knockout_of(
        count, KnockoutSettings(length=rng.choice([1, 3]), final_length=rng.choice([None, 5, 7]))
    )
    while not knockout.finished:
        match = rng.choice(knockout.ready())
        assert match.top is not None and match.bottom is not None
        winner = rng.choice([match.top, match.bottom])
        walkover = rng.random() < 0.1
        knockout = knockout.record(
            match.match_id, winner, (0, 0) if walkover else (match.length, 1), walkover
        )
        knockout = Knockout.from_json(json.loads(json.dumps(knockout.to_json())))
    beaten = [m.loser for r in knockout.bracket() for m in r if m.loser is not None]
    assert len(beaten) == len(set(beaten)) == count - 1
    assert knockout.champion not in beaten and knockout.champion in knockout.seeds
    assert len(knockout.results) == count - 1
    assert knockout.final.length == (knockout.settings.final_length or knockout.settings.length)
