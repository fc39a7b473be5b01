"""The step-by-step view a move picker uses, and play notation."""

from __future__ import annotations

import random

import pytest

from engine import Dice, IllegalPlayError, InvalidMoveError, Move, Options, Position, Rules, find_rules
from testkit.random_play import random_play_positions

SHORT = find_rules("short")
LONG = find_rules("long")


def test_picker_offers_moves_that_complete_a_legal_turn_only() -> None:
    start = SHORT.start_position()
    step = SHORT.turn_step(start, (6, 1))
    offered = {str(m) for m in step.next_moves}
    assert offered == {"24/18", "13/7", "8/2", "24/23", "8/7", "6/5"}
    assert not step.can_finish and step.play is None


def test_picker_finishes_after_a_full_turn_and_undo_is_a_shorter_list() -> None:
    start = SHORT.start_position()
    step = SHORT.turn_step(start, (6, 1), [(13, 6)])
    assert {str(m) for m in step.next_moves} == {"24/23", "8/7", "7/6", "6/5"}
    assert step.dice_left == (1,)
    done = SHORT.turn_step(start, (6, 1), [(13, 6), (8, 1)])
    assert done.can_finish and done.next_moves == ()
    assert done.play is not None and done.play in set(SHORT.legal_plays(start, (6, 1)))
    assert SHORT.turn_step(start, (6, 1), [(13, 6)]) == step


def test_picker_enforces_the_larger_die_when_only_one_die_can_be_played() -> None:
    position = Position.from_counts({12: 1, 1: 14}, {23: 2, 6: 13})  # S1
    step = SHORT.turn_step(position, (6, 4))
    assert [str(m) for m in step.next_moves] == ["12/6"]
    assert SHORT.turn_step(position, (6, 4), [(12, 6)]).can_finish


def test_picker_rejects_a_move_that_cannot_complete_the_turn() -> None:
    position = Position.from_counts({24: 14, 21: 1}, {24: 12, 23: 1, 5: 1, 2: 1})  # L8
    step = LONG.turn_step(position, (6, 4))
    assert {str(m) for m in step.next_moves} == {"21/15", "24/20"}
    with pytest.raises(IllegalPlayError, match="24 with die 6"):
        LONG.turn_step(position, (6, 4), [(24, 6)])


def test_picker_on_a_pass_can_finish_at_once() -> None:
    position = Position.from_counts({25: 1, 13: 2, 6: 12}, {6: 2, 4: 2, 1: 11})  # S5b
    step = SHORT.turn_step(position, (6, 4))
    assert step.next_moves == () and step.can_finish and step.play is not None and step.play.is_pass


def test_picker_marks_hits_and_bar_entries() -> None:
    position = Position.from_counts({25: 1, 13: 2, 6: 12}, {6: 2, 1: 13})  # S4
    step = SHORT.turn_step(position, (6, 4))
    assert [str(m) for m in step.next_moves] == ["bar/21"]
    hit = SHORT.turn_step(Position.from_counts({13: 1, 1: 14}, {17: 1, 6: 14}), (5, 3))  # S3
    assert {str(m) for m in hit.next_moves} == {"13/8*", "13/10"}


def test_doubles_picker_walks_one_checker_four_times() -> None:
    position = Position.from_counts({24: 15}, {24: 15}, x_first_turn=True, o_first_turn=True)
    moves: list[Move] = []
    for _ in range(4):
        step = LONG.turn_step(position, (5, 5), moves)
        assert len(step.next_moves) == 1
        moves.append(step.next_moves[0])
    final = LONG.turn_step(position, (5, 5), moves)
    assert final.can_finish and str(final.play) == "24/19 19/14 14/9 9/4"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("13/7 8/7", "13/7 8/7"), ("13/6", "13/7 7/6"), ("8/7 13/7", "13/7 8/7"), ("13/7/6", "13/7 7/6")],
)
def test_play_text_parses_in_the_usual_notation(text: str, expected: str) -> None:
    play = SHORT.parse_play(SHORT.start_position(), (6, 1), text)
    assert play == SHORT.parse_play(SHORT.start_position(), (6, 1), expected)


def test_notation_prints_bar_off_hits_and_repeats_parse() -> None:
    assert (
        str(Move(25, 22, 3)) == "bar/22"
        and str(Move(6, 0, 6)) == "6/off"
        and str(Move(13, 11, 2, True)) == "13/11*"
    )
    bearoff = Position.from_counts({6: 2, 0: 13}, {1: 15})
    assert str(SHORT.parse_play(bearoff, (6, 6), "6/off(2)")) == "6/off 6/off"
    enter = Position.from_counts({25: 1, 6: 14}, {6: 15})
    assert str(SHORT.parse_play(enter, (3, 1), "bar/22 22/21")).startswith("bar/22")
    with pytest.raises(InvalidMoveError, match="13-7"):
        SHORT.parse_play(SHORT.start_position(), (6, 1), "13-7")
    with pytest.raises(IllegalPlayError, match="13/12"):
        SHORT.parse_play(SHORT.start_position(), (6, 1), "13/12 13/7")


def test_position_ids_are_gnubg_for_short_and_round_trip_for_long() -> None:
    assert SHORT.position_id(SHORT.start_position()) == "4HPwATDgc/ABMA"
    assert SHORT.position_from_id("4HPwATDgc/ABMA") == SHORT.start_position()
    long_start = LONG.start_position()
    text = LONG.position_id(long_start)
    assert text.startswith("L") and LONG.position_from_id(text) == long_start
    moved = LONG.legal_plays(long_start, (6, 5))[0].position.swapped()
    assert LONG.position_from_id(LONG.position_id(moved)) == moved


def test_str_and_repr_help_a_reader_of_a_failed_test() -> None:
    start = SHORT.start_position()
    assert "X {24:2, 13:5, 8:3, 6:5}" in str(start)
    assert eval(repr(start), {"Position": Position}) == start
    assert "x5" in SHORT.diagram(start) and "o5" in SHORT.diagram(start)


def test_hit_marks_choose_between_plays_and_ambiguous_text_is_refused() -> None:
    from engine import AmbiguousMoveError

    position = Position.from_counts({13: 15}, {13: 1, 24: 14})  # O's blot on X-point 12
    quiet = SHORT.parse_play(position, (6, 1), "13/6")
    assert str(quiet) == "13/7 7/6"
    assert "*" in str(SHORT.parse_play(position, (6, 1), "13/12*/6"))
    with pytest.raises(AmbiguousMoveError, match="fits 2 plays"):
        SHORT.parse_play(position, (6, 1), "13/6*")


def test_parsed_play_keeps_the_moves_as_written_so_records_replay_verbatim() -> None:
    start = SHORT.start_position()
    assert str(SHORT.parse_play(start, (6, 1), "8/7 13/7")) == "8/7 13/7"
    assert str(SHORT.parse_play(start, (6, 1), "13/6")) == "13/7 7/6"


def _endings_by_walking(
    rules: Rules, position: Position, dice: Dice, moves: tuple[tuple[int, int], ...]
) -> set[Position]:
    """Every position a turn can end in after `moves`, by trying every order of taps through turn_step."""
    step = rules.turn_step(position, dice, moves)
    found = {step.play.position} if step.can_finish and step.play is not None else set()
    for move in step.next_moves:
        found |= _endings_by_walking(rules, position, dice, moves + ((move.src, move.die),))
    return found


@pytest.mark.parametrize(
    "rules",
    [
        SHORT,
        LONG,
        find_rules("long", Options(block_rule="opponent_home")),
        find_rules("long", Options(block_timing="end_of_turn")),
        find_rules("short", Options(full_pip_rule=True)),
    ],
    ids=["short", "long", "long-block-in-opponent-home", "long-block-at-end-of-turn", "short-full-pip"],
)
def test_turn_endings_are_the_positions_every_order_of_taps_can_reach(rules: Rules) -> None:
    rng = random.Random(11)
    checked = single = 0
    for position, dice in random_play_positions(rules, rng, 150):
        moves: tuple[tuple[int, int], ...] = ()
        while True:
            endings = rules.turn_endings(position, dice, moves)
            assert endings == _endings_by_walking(rules, position, dice, moves), (
                position.describe(),
                dice,
                moves,
            )
            assert endings <= {p.position for p in rules.legal_plays(position, dice)}
            checked += 1
            single += len(endings) == 1
            capped = rules.turn_endings(position, dice, moves, at_most=1)
            assert capped <= endings and len(capped) == min(2, len(endings))
            step = rules.turn_step(position, dice, moves)
            if not step.next_moves:
                break
            move = rng.choice(step.next_moves)
            moves += ((move.src, move.die),)
    assert checked > 300 and single > 50


def test_turn_endings_refuse_moves_that_are_not_legal() -> None:
    with pytest.raises(IllegalPlayError):
        SHORT.turn_endings(SHORT.start_position(), (6, 1), [(24, 2)])
