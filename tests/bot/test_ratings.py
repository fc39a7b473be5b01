"""The FIBS rating formula (bot/model/ratings.py), pinned by figures worked out by hand."""

from __future__ import annotations

import math

import pytest

from bot.model.ratings import START_RATING, Rated, experience_factor, rate, win_probability


def test_two_new_players_of_equal_rating_move_ten_points_in_a_single_game() -> None:
    # P = 1/2; stake 4 * sqrt(1) = 4; change 4 * 1/2 = 2, times the new player's factor 5 = 10
    update = rate(Rated(), Rated(), 1)
    assert START_RATING == 1500
    assert update.winner == Rated(1510.0, 1) and update.loser == Rated(1490.0, 1)
    assert (update.winner_change, update.loser_change) == (10.0, -10.0)


def test_the_underdog_who_wins_gains_the_favourites_win_probability() -> None:
    # D = 20, N = 1: P_underdog = 1 / (10 ** 0.01 + 1) = 1 / 2.0232929922807541 = 0.4942437916
    # the underdog won: gain = 4 * (1 - 0.4942437916) * factor(1) = 4 * 0.5057562084 * 4.99 = 10.0948939
    update = rate(Rated(1490.0, 1), Rated(1510.0, 1), 1)
    assert update.winner_change == pytest.approx(10.0948939199, abs=1e-9)
    assert update.loser_change == pytest.approx(-10.0948939199, abs=1e-9)
    assert update.winner.rating == pytest.approx(1500.0948939199, abs=1e-9)


def test_a_match_weighs_sqrt_n_in_the_odds_and_in_the_stake() -> None:
    # 1600 v 1500 in a match to 5, both experienced (factor 1): D * sqrt(5) / 2000 = 0.1118033989,
    # 10 ** 0.1118033989 = 1.2936101035, P_underdog = 1 / 2.2936101035 = 0.4359938939
    assert win_probability(1500, 1600, 5) == pytest.approx(0.4359938939, abs=1e-9)
    assert win_probability(1600, 1500, 5) == pytest.approx(0.5640061061, abs=1e-9)
    # the favourite wins: 4 * sqrt(5) * 0.4359938939 = 8.9442719100 * 0.4359938939 = 3.8996479378
    favourite = rate(Rated(1600.0, 400), Rated(1500.0, 1000), 5)
    assert favourite.winner_change == pytest.approx(3.8996479378, abs=1e-9)
    assert favourite.loser_change == pytest.approx(-3.8996479378, abs=1e-9)
    assert (favourite.winner.experience, favourite.loser.experience) == (405, 1005)
    # the underdog wins: 4 * sqrt(5) * 0.5640061061 = 5.0446239722
    underdog = rate(Rated(1500.0, 400), Rated(1600.0, 400), 5)
    assert underdog.winner_change == pytest.approx(5.0446239722, abs=1e-9)


def test_a_longer_match_makes_the_favourite_surer() -> None:
    # D = 400: N = 1: 1 / (10 ** 0.2 + 1) = 0.3868631798; N = 7: 1 / (10 ** (0.2 * sqrt 7) + 1) = 0.2282157646
    assert win_probability(1100, 1500, 1) == pytest.approx(0.3868631798, abs=1e-9)
    assert win_probability(1100, 1500, 7) == pytest.approx(0.2282157646, abs=1e-9)


def test_the_experience_factor_falls_from_five_to_one_over_400_points() -> None:
    found = [experience_factor(x) for x in (0, 1, 50, 100, 250, 399, 400, 401, 10_000)]
    assert found == pytest.approx([5.0, 4.99, 4.5, 4.0, 2.5, 1.01, 1.0, 1.0, 1.0], abs=1e-12)


def test_each_player_is_multiplied_by_their_own_factor() -> None:
    # equal ratings, N = 1: the base change is 2; the new winner x5, the experienced loser x1
    update = rate(Rated(1500.0, 0), Rated(1500.0, 1000), 1)
    assert (update.winner_change, update.loser_change) == (10.0, -2.0)


def test_bad_lengths_and_experience_say_what_was_wrong() -> None:
    with pytest.raises(ValueError, match="at least 1, not 0"):
        rate(Rated(), Rated(), 0)
    with pytest.raises(ValueError, match="experience -1 is negative"):
        experience_factor(-1)
    assert math.isclose(win_probability(1500, 1500, 3), 0.5)
