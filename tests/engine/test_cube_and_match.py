"""The doubling cube (short nardy) and matches to N points: cube values, ownership, the Crawford game,
the dead cube, Jacoby, the cube's effect on scoring, and records that replay with cube actions."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Cube, CubeError, Game, Match, Phase, Result, Side, WinKind, WrongPhaseError
from testkit.random_play import random_game


def short_cube_game(cube: Cube | None = None) -> Game:
    """A short game past its opening roll with white to roll next (white won the opening 6-1, played it)."""
    game = Game.new("short", cube=cube or Cube()).opening_roll(6, 1)
    game = game.play(game.legal_plays()[0])  # white plays the opening 6-1; black to roll
    game = game.roll(3, 1)
    return game.play(game.legal_plays()[0])  # black plays; white to roll


def test_a_double_offered_and_taken_doubles_the_cube_and_gives_it_to_the_taker() -> None:
    game = short_cube_game()
    assert game.phase is Phase.ROLL and game.turn is Side.WHITE and game.may_double()
    offered = game.double()
    assert offered.phase is Phase.CUBE and offered.deciding is Side.BLACK
    taken = offered.take()
    assert taken.phase is Phase.ROLL and taken.turn is Side.WHITE
    assert taken.cube is not None and taken.cube.value == 2 and taken.cube.owner is Side.BLACK
    assert not taken.may_double()  # white no longer owns the cube


def test_only_the_cube_owner_may_redouble() -> None:
    game = short_cube_game().double().take().roll(2, 1)
    game = game.play(game.legal_plays()[0])  # black on turn now, owning the cube at 2
    assert game.turn is Side.BLACK and game.may_double()
    redoubled = game.double().take()
    assert redoubled.cube == Cube(value=4, owner=Side.WHITE)


def test_a_pass_ends_the_game_for_the_cube_value_before_the_double() -> None:
    game = short_cube_game().double().take().roll(2, 1)
    game = game.play(game.legal_plays()[0]).double().drop()
    assert game.phase is Phase.OVER and game.result == Result(Side.BLACK, 2, WinKind.OIN, dropped=True)


def test_a_win_counts_its_points_times_the_cube() -> None:
    game = short_cube_game().double().take()
    assert Game.new("short").opening_roll(6, 1).resign(Side.BLACK).result == Result(
        Side.WHITE, 3, WinKind.KOKS, resigned=True
    )  # black's back checkers are in white's home: a koks, 3 points without a cube
    assert game.resign(Side.BLACK).result == Result(Side.WHITE, 3 * 2, WinKind.KOKS, resigned=True)


def test_the_jacoby_rule_counts_a_mars_single_while_the_cube_was_not_turned() -> None:
    game = short_cube_game(Cube(jacoby=True))
    assert game.resign(Side.BLACK).result == Result(Side.WHITE, 1, WinKind.KOKS, resigned=True)
    turned = game.double().take()
    assert turned.resign(Side.BLACK).result == Result(Side.WHITE, 6, WinKind.KOKS, resigned=True)


def test_no_doubling_in_the_crawford_game() -> None:
    game = short_cube_game(Cube(crawford=True, needs=(1, 3)))
    assert not game.may_double()
    with pytest.raises(CubeError, match="Crawford"):
        game.double()


def test_no_double_past_what_the_match_needs() -> None:
    """White needs 2 and the cube is at 2: a single game already wins white the match."""
    game = short_cube_game(Cube(needs=(2, 4)))
    black_owned = game.double().take()  # white doubled to 2, black owns it
    assert black_owned.cube is not None and black_owned.cube.value == 2
    assert Cube(value=2, owner=Side.WHITE, needs=(2, 4)).may_double(Side.WHITE) is False
    assert Cube(value=2, owner=Side.BLACK, needs=(2, 4)).may_double(Side.BLACK) is True


def test_long_nardy_has_no_cube() -> None:
    with pytest.raises(CubeError, match="long nardy is played without"):
        Game.new("long", cube=Cube())
    game = Game.new("long").opening_roll(6, 1).roll(3, 1)
    assert not game.may_double()


def test_cube_actions_in_the_wrong_phase_say_what_was_wrong() -> None:
    game = short_cube_game()
    with pytest.raises(WrongPhaseError, match="cannot take in phase roll"):
        game.take()
    with pytest.raises(CubeError, match="without the cube"):
        short_cube_without_cube().double()


def short_cube_without_cube() -> Game:
    game = Game.new("short").opening_roll(6, 1)
    return game.play(game.legal_plays()[0])


def test_a_record_with_cube_actions_replays_to_the_same_game() -> None:
    game = short_cube_game().double().take().roll(2, 1)
    game = game.play(game.legal_plays()[0]).double()
    pending = Game.replay(game.record())
    assert pending.phase is Phase.CUBE and pending.cube == game.cube
    dropped = game.drop()
    again = Game.replay(dropped.record())
    assert again.result == dropped.result and again.cube_actions == dropped.cube_actions
    assert Game.from_json(dropped.to_json()).cube == dropped.cube


def test_a_record_with_a_cube_action_by_the_wrong_side_is_refused() -> None:
    record = short_cube_game().double().record()
    record["cube_actions"][0][1] = "black"
    with pytest.raises(Exception, match="wrong side"):
        Game.replay(record)


# ---------------------------------------------------------------------- matches


def test_match_scores_add_each_games_points_and_the_first_to_the_length_wins() -> None:
    match = Match(length=3)
    match = match.after(Result(Side.WHITE, 2, WinKind.MARS))
    assert match.score == (2, 0) and not match.over and match.needs() == (1, 3)
    match = match.after(Result(Side.BLACK, 1, WinKind.OIN))
    match = match.after(Result(Side.WHITE, 1, WinKind.OIN))
    assert match.over and match.winner is Side.WHITE and match.score == (3, 1)
    with pytest.raises(WrongPhaseError, match="the match is over at 3-1"):
        match.after(Result(Side.BLACK, 1, WinKind.OIN))


def test_the_crawford_game_is_the_one_after_a_player_first_reaches_match_point() -> None:
    match = Match(length=5, cube=True).after(Result(Side.WHITE, 4, WinKind.MARS))
    assert match.crawford
    cube = match.game_cube()
    assert cube is not None and cube.crawford and not cube.may_double(Side.BLACK)
    post = match.after(Result(Side.BLACK, 1, WinKind.OIN))
    assert not post.crawford and post.crawford_done
    post_cube = post.game_cube()
    assert post_cube is not None and post_cube.may_double(Side.BLACK)
    assert not post_cube.may_double(Side.WHITE) or post_cube.needs == (1, 4)
    assert not post.after(Result(Side.BLACK, 1, WinKind.OIN)).crawford  # only once


def test_single_games_never_end_their_series() -> None:
    match = Match(length=1, cube=True, jacoby=True)
    for _ in range(5):
        match = match.after(Result(Side.WHITE, 4, WinKind.MARS))
    assert not match.over and match.winner is None and match.score == (20, 0)
    cube = match.game_cube()
    assert cube is not None and cube.jacoby and cube.needs is None


def test_a_match_keeps_its_games_records_and_round_trips() -> None:
    game = random_game("short", random.Random(3))
    assert game.result is not None
    match = Match(length=3).after(game.result, game.to_json())
    again = Match.from_json(match.to_json())
    assert again == match and Game.from_json(again.games[0]).result == game.result


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from((3, 5, 7)),
    st.lists(st.tuples(st.sampled_from(list(Side)), st.sampled_from((1, 2, 3, 4, 6, 8))), min_size=30),
)
def test_a_match_always_ends_with_one_winner_whose_score_reaches_the_length(
    length: int, results: list[tuple[Side, int]]
) -> None:
    match = Match(length=length, cube=True)
    crawford_games = 0
    for winner, points in results:
        if match.over:
            break
        crawford_games += match.crawford
        match = match.after(Result(winner, points, WinKind.OIN))
    assert match.over  # every game scores at least a point: 30 games end any match to 7
    assert match.winner is not None
    assert match.score[match.winner] >= length > match.score[match.winner.other]
    assert crawford_games <= 1


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_random_cube_games_replay_and_score_a_multiple_of_the_cube(seed: int) -> None:
    """Random short games where each side doubles, takes and passes at random: the record replays, and
    the result is the cube's value times 1, 2 or 3 (or the cube's value for a pass)."""
    rng = random.Random(seed)
    game = Game.new("short", cube=Cube(needs=(rng.randint(1, 7), rng.randint(1, 7))) if seed % 2 else Cube())
    while not game.is_over:
        if game.phase is Phase.OPENING:
            game = game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase is Phase.CUBE:
            game = game.take() if rng.random() < 0.8 else game.drop()
        elif game.phase is Phase.ROLL:
            game = (
                game.double()
                if game.may_double() and rng.random() < 0.1
                else game.roll(rng.randint(1, 6), rng.randint(1, 6))
            )
        else:
            game = game.play(rng.choice(game.legal_plays()))
    assert game.result is not None and game.cube is not None
    if game.result.dropped:
        assert game.result.points == game.cube.value
    else:
        assert game.result.points == game.cube.value * game.result.kind.points
    assert Game.replay(game.record()).result == game.result
