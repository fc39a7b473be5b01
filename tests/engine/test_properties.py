"""Property tests (hypothesis) over positions reached by random play in both games, and random valid positions.

A played example is a seed and a number of turns: both sides play random legal plays from the start
(a finished game starts over), and the properties are checked on the position reached and the roll
then drawn. Random valid positions (bar, bear-off and odd spreads) come from hypothesis draws for
short nardy and from a drawn seed for long nardy (testkit/random_play.py).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import BAR, Dice, Game, LongNardy, Options, Phase, Play, Position, Rules, find_rules
from testkit import reference_long
from testkit.random_play import (
    both_colours_on_a_point,
    random_dice,
    random_long_position,
    random_play_positions,
)

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SHORT = find_rules("short")
LONG = find_rules("long")
assert isinstance(LONG, LongNardy)
Case = tuple[Rules, Position, Dice, random.Random]


@st.composite
def played_positions(draw: st.DrawFn, game: str) -> Case:
    """(rules, position, dice, rng): a position reached by seeded random play and the next roll."""
    rules = find_rules(game)
    seed = draw(st.integers(0, 2**32 - 1), label="seed")
    turns = draw(st.integers(0, 220), label="turns")
    rng = random.Random(seed)
    position, dice = rules.start_position(), Dice(1, 2)
    for position, dice in random_play_positions(rules, rng, turns + 1):  # noqa: B007 - the last one is kept
        pass
    return rules, position, dice, rng


@st.composite
def short_positions(draw: st.DrawFn) -> Position:
    """A random valid short position: X anywhere (bar and off included) or bearing off, O only where X is not."""
    x_range = st.integers(0, 6) if draw(st.booleans(), label="x bearing off") else st.integers(0, 25)
    x_slots = draw(st.lists(x_range, min_size=15, max_size=15), label="x checkers")
    x = [0] * 26
    for slot in x_slots:
        x[slot] += 1
    free = [0, BAR] + [q for q in range(1, 25) if not x[25 - q]]
    o_slots = draw(st.lists(st.sampled_from(free), min_size=15, max_size=15), label="o checkers")
    o = [0] * 26
    for slot in o_slots:
        o[slot] += 1
    if x[0] == 15:
        x[0], x[BAR] = 14, 1
    if o[0] == 15:
        o[0], o[BAR] = 14, 1
    return Position(tuple(x), tuple(o))


@st.composite
def long_positions(draw: st.DrawFn) -> Case:
    """(rules, position, dice, rng) for a random valid long position (heads, homes, first-turn flags)."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1), label="seed"))
    return LONG, random_long_position(rng), random_dice(rng), rng


DICE = st.builds(Dice, st.integers(1, 6), st.integers(1, 6))
ANY_POSITION = st.one_of(
    played_positions("short"),
    played_positions("long"),
    st.tuples(st.just(SHORT), short_positions(), DICE, st.builds(random.Random, st.integers(0, 2**32 - 1))),
    long_positions(),
)


def assert_valid(rules: Rules, position: Position) -> None:
    assert len(position.x) == len(position.o) == 26
    assert sum(position.x) == sum(position.o) == 15, position.describe()
    assert not both_colours_on_a_point(rules.name, position), position.describe()
    if rules.name == "long":
        assert position.x[BAR] == position.o[BAR] == 0, position.describe()


def sample(plays: list[Play], rng: random.Random, k: int) -> list[Play]:
    return plays if len(plays) <= k else rng.sample(plays, k)


def picker_outcomes(rules: Rules, position: Position, dice: Dice) -> set[Position]:
    """Every full turn the move picker lets a player build, one next move at a time.

    Fails if the picker ever offers a move after which the turn can neither end nor go on."""
    finals: set[Position] = set()
    seen: set[tuple[Position, tuple[int, ...]]] = set()

    def walk(moves: tuple[Any, ...]) -> None:
        step = rules.turn_step(position, dice, moves)
        key = (step.position, step.dice_left)
        if key in seen:
            return
        seen.add(key)
        assert step.moves_made == moves
        if step.can_finish:
            assert step.play is not None and step.play.moves == moves
            finals.add(step.play.position)
        assert step.can_finish or step.next_moves, (
            f"dead end after {moves} with {dice} in {position.describe()}"
        )
        for move in step.next_moves:
            walk(moves + (move,))

    walk(())
    return finals


@SETTINGS
@given(ANY_POSITION)
def test_every_outcome_keeps_15_checkers_a_side_and_one_colour_a_point(case: Case) -> None:
    rules, position, dice, _ = case
    assert_valid(rules, position)
    plays = rules.legal_plays(position, dice)
    assert plays
    assert len({p.position for p in plays}) == len(plays)
    for play in plays:
        assert_valid(rules, play.position)
        assert_valid(rules, play.position.swapped())


@SETTINGS
@given(played_positions("long"))
def test_long_never_hits_never_exceeds_the_head_limit_never_blocks_six(case: Case) -> None:
    rules, position, dice, _ = case
    assert isinstance(rules, LongNardy)
    head_limit = 2 if position.x_first_turn and dice.is_double else 1
    for play in rules.legal_plays(position, dice):
        assert play.position.o == position.o, f"{play} moved O's checkers"
        assert not any(move.hit for move in play.moves)
        assert sum(move.src == 24 for move in play.moves) <= head_limit, f"{play} from {position.describe()}"
        assert position.x[24] - play.position.x[24] <= head_limit
        assert not rules._holds_illegal_block(play.position.x, play.position.o), f"{play} with {dice}"
        assert play.position.x_first_turn is False
        assert play.position.o_first_turn is position.o_first_turn


LONG_OPTIONS = [
    Options(block_rule=rule, block_timing=timing, head_exception=head)
    for rule in ("ahead", "opponent_home", "none")
    for timing in ("per_step", "end_of_turn")
    for head in ("principle", "fixed_663", "seed001_list")
]


@pytest.mark.parametrize(
    "options", LONG_OPTIONS, ids=[f"{o.block_rule}-{o.block_timing}-{o.head_exception}" for o in LONG_OPTIONS]
)
def test_long_outcomes_equal_a_literal_reading_of_the_rules(options: Options) -> None:
    """testkit/reference_long.py, written from RULES.md alone, on random play and random valid positions."""
    rules = find_rules("long", options)
    rng = random.Random(repr(options))
    cases = list(random_play_positions(rules, rng, 100))
    cases += [(random_long_position(rng, options.block_rule), random_dice(rng)) for _ in range(100)]
    for position, dice in cases:
        longest, expected = reference_long.outcomes(position, dice, options)
        plays = rules.legal_plays(position, dice)
        assert {play.position.x for play in plays} == expected, f"{position!r} with {dice}"
        assert all(len(play.moves) == longest for play in plays)
        assert rules.max_dice_used(position, dice) == longest


@SETTINGS
@given(ANY_POSITION)
def test_every_plays_moves_replay_through_turn_step_to_its_position(case: Case) -> None:
    rules, position, dice, rng = case
    for play in sample(rules.legal_plays(position, dice), rng, 8):
        step = rules.turn_step(position, dice, play.moves)
        assert step.can_finish, f"{play} with {dice} in {position.describe()}"
        assert step.play is not None and step.play.position == play.position
        assert step.position.x == play.position.x and step.position.o == play.position.o
        assert step.next_moves == ()
        for i in range(len(play.moves)):
            partial = rules.turn_step(position, dice, play.moves[:i])
            assert play.moves[i] in partial.next_moves, f"{play.moves[i]} missing after {play.moves[:i]}"


@settings(SETTINGS, max_examples=12)
@given(ANY_POSITION)
def test_turn_step_offers_exactly_the_moves_that_lead_to_legal_outcomes(case: Case) -> None:
    rules, position, dice, _ = case
    assert picker_outcomes(rules, position, dice) == {p.position for p in rules.legal_plays(position, dice)}


@SETTINGS
@given(ANY_POSITION)
def test_play_text_parses_back_to_the_same_outcome(case: Case) -> None:
    rules, position, dice, rng = case
    for play in sample(rules.legal_plays(position, dice), rng, 6):
        assert rules.parse_play(position, dice, str(play)).position == play.position, f"{play} with {dice}"


@SETTINGS
@given(ANY_POSITION)
def test_position_ids_round_trip(case: Case) -> None:
    rules, position, dice, _ = case
    for p in [position] + [play.position for play in rules.legal_plays(position, dice)]:
        for seen_from in (p, p.swapped()):
            assert rules.position_from_id(rules.position_id(seen_from)) == seen_from


GAME_OPTIONS = [
    Options(),
    Options(opening_dice_are_first_roll=False, resign_scoring="single", full_pip_rule=True),
    Options(opening_dice_are_first_roll=True, head_exception="seed001_list", koks_3=True, home_mars_3=True),
    Options(block_rule="opponent_home", block_timing="end_of_turn", head_exception="fixed_663", koks_3=True),
]


@st.composite
def random_games(draw: st.DrawFn) -> Game:
    """A game of either kind, default or drawn house rules, played with random dice and random legal plays
    and stopped at a random point (sometimes by a resignation)."""
    game = Game.new(
        draw(st.sampled_from(["short", "long"])), draw(st.sampled_from(GAME_OPTIONS), label="options")
    )
    rng = random.Random(draw(st.integers(0, 2**32 - 1), label="seed"))
    actions = draw(st.integers(0, 250), label="actions")
    for _ in range(actions):
        if game.phase is Phase.OPENING:
            game = game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase is Phase.ROLL:
            game = game.roll(rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase is Phase.MOVE:
            play = rng.choice(game.legal_plays())
            game = game.play(str(play) if rng.random() < 0.3 else play)
        else:
            break
    if game.phase is not Phase.OVER and draw(st.booleans(), label="resign"):
        game = game.resign(game.turn if rng.random() < 0.5 else game.turn.other)
    return game


@SETTINGS
@given(random_games())
def test_game_json_round_trips(game: Game) -> None:
    data = json.loads(json.dumps(game.to_json()))
    loaded = Game.from_json(data)
    assert loaded == game
    assert loaded.to_json() == data
    assert loaded.board() == game.board()


@SETTINGS
@given(random_games())
def test_game_replays_from_its_record(game: Game) -> None:
    record = json.loads(json.dumps(game.record()))
    replayed = Game.replay(record)
    assert replayed == game
    assert replayed.to_json() == game.to_json()


def test_replay_keeps_a_pending_roll() -> None:
    """A roll not yet played is part of the game: replaying the record must not let the dice be rolled again."""
    game = Game.new("short").opening_roll(3, 1).play("8/5 6/5").roll(3, 4)
    replayed = Game.replay(json.loads(json.dumps(game.record())))
    assert (replayed.phase, replayed.dice) == (Phase.MOVE, Dice(3, 4))
    assert replayed == game


@SETTINGS
@given(random_games())
def test_game_state_matches_its_position(game: Game) -> None:
    assert_valid(game.rules, game.position)
    white, black = game.pip_counts()
    board = game.board()
    assert sum(n for n in board.points if n > 0) + board.bar[0] + board.off[0] == 15
    assert -sum(n for n in board.points if n < 0) + board.bar[1] + board.off[1] == 15
    assert white + black == sum(game.position.pips())
    if game.game == "long" and game.phase in (Phase.ROLL, Phase.MOVE):
        played = {side: sum(t.side is side for t in game.history) for side in (game.turn, game.turn.other)}
        assert game.position.x_first_turn is (played[game.turn] == 0)
        assert game.position.o_first_turn is (played[game.turn.other] == 0)
    if game.phase is Phase.OVER:
        assert game.result is not None
        if game.result.resigned:
            loser = game.position.x if game.turn is game.result.winner.other else game.position.o
        else:
            assert game.position.x[0] == 15 and game.result.winner is game.turn is game.last_side
            loser = game.position.o
        expected = expected_points(game.game, game.rules.options, loser)
        if game.result.resigned and game.rules.options.resign_scoring == "single":
            expected = 1
        assert game.result.points == expected


def expected_points(game: str, options: Options, loser: tuple[int, ...]) -> int:
    """RULES.md §5.6 and §6.8: what a win is worth against the loser's counts (his own numbering)."""
    if loser[0]:
        return 1
    if game == "short":
        return 3 if loser[BAR] or any(loser[19:25]) else 2
    if options.koks_3 and loser[24]:
        return 3
    if options.home_mars_3 and sum(loser[1:7]) == 15:
        return 3
    return 2
