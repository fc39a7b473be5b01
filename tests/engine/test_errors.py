"""Bad input raises the right ValueError subclass, and the message says what was wrong and where."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from engine import (
    Dice,
    Game,
    GameRecordError,
    IllegalPlayError,
    InvalidDiceError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    NardyError,
    Phase,
    Play,
    Position,
    Side,
    WrongPhaseError,
    find_rules,
)

SHORT = find_rules("short")
LONG = find_rules("long")
START = SHORT.start_position()
START_ID = "4HPwATDgc/ABMA"


def raised(error: type[NardyError], action: Callable[[], object]) -> str:
    """The message of the `error` that `action` raises (which must be a ValueError)."""
    with pytest.raises(error) as info:
        action()
    assert isinstance(info.value, ValueError)
    return str(info.value)


def names_position(message: str, *marks: str) -> bool:
    return any(mark in message for mark in marks)


# ----- impossible positions ----------------------------------------------------------------------


def test_sixteen_checkers_is_an_invalid_position_named_by_its_counts() -> None:
    position = Position.from_counts({24: 2, 13: 5, 8: 3, 6: 6}, {24: 2, 13: 5, 8: 3, 6: 5})
    message = raised(InvalidPositionError, lambda: SHORT.legal_plays(position, (6, 1)))
    assert "16 checkers" in message
    assert "{24:2, 13:5, 8:3, 6:6}" in message


def test_sixteen_checkers_in_long_nardy_is_an_invalid_position() -> None:
    position = Position.from_counts({24: 16}, {24: 15}, x_first_turn=True, o_first_turn=True)
    message = raised(InvalidPositionError, lambda: LONG.legal_plays(position, (6, 1)))
    assert "16 checkers" in message and "{24:16}" in message


@pytest.mark.parametrize(
    "game, x, o, point",
    [
        ("short", {24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 19: 1, 13: 5, 8: 3, 6: 4}, "6"),  # O's 19 = X-point 6
        ("long", {24: 14, 12: 1}, {24: 15}, "12"),  # O's head (24) = X-point 12
    ],
)
def test_both_colours_on_a_point_is_an_invalid_position_named_by_its_id(
    game: str, x: dict[int, int], o: dict[int, int], point: str
) -> None:
    rules = find_rules(game)
    position = Position.from_counts(x, o)
    message = raised(InvalidPositionError, lambda: rules.legal_plays(position, (6, 1)))
    assert rules.position_id(position) in message
    assert f"point {point}" in message


def test_a_bar_in_long_nardy_is_an_invalid_position() -> None:
    position = Position.from_counts({25: 1, 24: 14}, {24: 15})
    message = raised(InvalidPositionError, lambda: LONG.legal_plays(position, (6, 1)))
    assert "bar" in message and "25:1" in message


def test_long_checkers_off_with_others_outside_home_is_an_invalid_position() -> None:
    position = Position.from_counts({24: 14, 0: 1}, {24: 15})
    message = raised(InvalidPositionError, lambda: LONG.legal_plays(position, (6, 1)))
    assert "outside home" in message and "{24:14, 0:1}" in message


def test_invalid_position_is_rejected_by_turn_step_and_parse_play_too() -> None:
    position = Position.from_counts({24: 2, 13: 5, 8: 3, 6: 6}, {24: 2, 13: 5, 8: 3, 6: 5})
    raised(InvalidPositionError, lambda: SHORT.turn_step(position, (6, 1)))
    raised(InvalidPositionError, lambda: SHORT.parse_play(position, (6, 1), "13/7 8/7"))


@pytest.mark.parametrize("bad", [(6.5, 3), ("6", "3"), [[6], 3]])
def test_turn_step_refuses_a_move_that_is_no_legal_src_and_die_every_time(bad: Any) -> None:
    for _ in range(2):  # turn_step is memoised: the second call must refuse the same way
        message = raised(IllegalPlayError, lambda: SHORT.turn_step(START, (3, 1), [bad]))
        assert "is not legal" in message and "3-1" in message


@pytest.mark.parametrize("bad", [(6, 3, 3), (8, 5, 3, False), (6,)])
def test_turn_step_does_not_guess_at_a_move_of_the_wrong_shape(bad: Any) -> None:
    for _ in range(2):
        with pytest.raises(ValueError, match="values to unpack"):
            SHORT.turn_step(START, (3, 1), [bad])


@pytest.mark.parametrize(
    "text, error_part",
    [
        ("4HPwATDgc/AB", "14 characters"),  # too short
        ("4HPwATDgc/AB!!", "base64"),
        ("//////////////", "truncated"),  # all one-bits: the unary code never ends
        ("AAAAAAAAAAAAAA", "AAAAAAAAAAAAAA"),  # both sides all off
    ],
)
def test_bad_short_position_id_is_an_invalid_position_naming_the_id(text: str, error_part: str) -> None:
    message = raised(InvalidPositionError, lambda: SHORT.position_from_id(text))
    assert text in message and error_part in message


@pytest.mark.parametrize("text", ["4HPwATDgc/ABMA", "L", "Lzzz", "L!!!!"])
def test_bad_long_position_id_is_an_invalid_position_naming_the_id(text: str) -> None:
    message = raised(InvalidPositionError, lambda: LONG.position_from_id(text))
    assert text[1:] in message


# ----- dice --------------------------------------------------------------------------------------


@pytest.mark.parametrize("die", [0, 7, "x", 1.0, True, None])
def test_die_out_of_range_is_invalid_dice_naming_the_value(die: Any) -> None:
    message = raised(InvalidDiceError, lambda: Dice(die, 3))
    assert repr(die) in message


@pytest.mark.parametrize("dice", [(0, 1), (7, 1), ("x", 1), "x-1", "7-1", (1, 2, 3), "61"])
def test_dice_out_of_range_passed_to_the_rules_are_invalid_dice(dice: Any) -> None:
    raised(InvalidDiceError, lambda: SHORT.legal_plays(START, dice))
    raised(InvalidDiceError, lambda: SHORT.turn_step(START, dice))
    raised(InvalidDiceError, lambda: SHORT.parse_play(START, dice, "13/7 8/7"))


@pytest.mark.parametrize("dice", [(0, 1), (7, 1), ("x", 1)])
def test_dice_error_from_the_rules_names_the_position(dice: Any) -> None:
    message = raised(InvalidDiceError, lambda: SHORT.legal_plays(START, dice))
    assert names_position(message, START_ID, START.describe()), message


@pytest.mark.parametrize("a, b", [(0, 1), (7, 1), ("x", 1)])
def test_game_roll_out_of_range_is_invalid_dice_and_keeps_the_game(a: Any, b: Any) -> None:
    game = Game.new("short", starter=Side.WHITE)
    raised(InvalidDiceError, lambda: game.roll(a, b))
    raised(InvalidDiceError, lambda: Game.new("long").opening_roll(a, b))
    assert game.phase is Phase.ROLL and game.dice is None


# ----- illegal plays -----------------------------------------------------------------------------


def test_illegal_play_text_is_an_illegal_play_naming_the_position() -> None:
    message = raised(IllegalPlayError, lambda: SHORT.parse_play(START, (6, 1), "13/7 13/7"))
    assert "13/7 13/7" in message and START_ID in message and "6-1" in message


def test_illegal_play_text_in_a_game_is_an_illegal_play() -> None:
    game = Game.new("short").opening_roll(6, 1)
    message = raised(IllegalPlayError, lambda: game.play("24/18 24/17"))
    assert START_ID in message


def test_illegal_play_object_in_a_game_is_an_illegal_play_naming_the_position() -> None:
    game = Game.new("short").opening_roll(6, 1)
    after = Position.from_counts({24: 2, 13: 3, 7: 2, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    play = Play((Move(13, 7, 6), Move(13, 7, 6)), after)
    message = raised(IllegalPlayError, lambda: game.play(play))
    assert START_ID in message and "6-1" in message


def test_play_object_whose_moves_do_not_reach_its_position_is_an_illegal_play() -> None:
    """A legal outcome with moves that do not lead to it must not be recorded (its record would not replay)."""
    game = Game.new("short").opening_roll(6, 1)
    legal = next(p for p in game.legal_plays() if str(p) == "13/7 8/7")
    with pytest.raises(IllegalPlayError):
        game.play(Play((), legal.position))
    with pytest.raises(IllegalPlayError):
        game.play(Play((Move(24, 18, 6), Move(24, 23, 1)), legal.position))


def test_play_object_with_a_wrong_destination_or_hit_mark_is_an_illegal_play() -> None:
    """Its record would say something that did not happen (and would not replay)."""
    game = Game.new("short").opening_roll(6, 1)
    legal = next(p for p in game.legal_plays() if str(p) == "13/7 8/7")
    assert game.play(Play(legal.moves, legal.position)).history[-1].play == "13/7 8/7"
    wrong: list[tuple[Any, ...]] = [
        (Move(13, 7, 6), Move(8, 6, 1)),  # a wrong destination
        (Move(13, 7, 6, True), Move(8, 7, 1)),  # a hit that was not
        ((13, 6), (8, 1)),  # bare (src, die) pairs instead of moves
    ]
    for moves in wrong:
        with pytest.raises(IllegalPlayError) as info:
            game.play(Play(moves, legal.position))
        assert "13/7 8/7" in str(info.value) and START_ID in str(info.value)


def test_illegal_move_in_the_picker_is_an_illegal_play_naming_the_position() -> None:
    message = raised(IllegalPlayError, lambda: SHORT.turn_step(START, (6, 1), [(24, 5)]))
    assert START_ID in message
    message = raised(IllegalPlayError, lambda: SHORT.turn_step(START, (6, 1), [(13, 6), (13, 6)]))
    assert START_ID in message


def test_a_long_play_breaking_the_head_rule_is_an_illegal_play() -> None:
    start = LONG.start_position()
    message = raised(IllegalPlayError, lambda: LONG.parse_play(start, (6, 5), "24/18 24/19"))
    assert LONG.position_id(start) in message


@pytest.mark.parametrize("text", ["hello", "24/30", "13-7", "7/13", "bar", "24/18 xx", "13/7(x)"])
def test_garbage_play_text_is_an_invalid_move_quoting_the_text(text: str) -> None:
    message = raised(InvalidMoveError, lambda: SHORT.parse_play(START, (6, 1), text))
    assert repr(text) in message or repr(text.split()[-1]) in message


def test_garbage_play_text_names_the_position() -> None:
    message = raised(InvalidMoveError, lambda: SHORT.parse_play(START, (6, 1), "hello"))
    assert names_position(message, START_ID, START.describe()), message


# ----- game records ------------------------------------------------------------------------------


def _stored_game() -> Game:
    return Game.new("short").opening_roll(6, 1).play("13/7 8/7").roll(1, 1).play("8/7(2) 6/5(2)").roll(5, 2)


STORED = json.loads(json.dumps(_stored_game().to_json()))


def _without(data: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    data = copy.deepcopy(data)
    holder = data
    for key in path[:-1]:
        holder = holder[key]
    del holder[path[-1]]
    return data


def _with(data: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    holder = data
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    return data


def test_stored_game_loads() -> None:
    assert Game.from_json(STORED) == _stored_game()


@pytest.mark.parametrize(
    "path",
    [
        ("format",),
        ("game",),
        ("state",),
        ("turns",),
        ("opening_rolls",),
        ("state", "position"),
        ("state", "phase"),
        ("state", "turn"),
    ],
)
def test_record_with_a_missing_key_is_a_game_record_error_naming_it(path: tuple[str, ...]) -> None:
    message = raised(GameRecordError, lambda: Game.from_json(_without(STORED, path)))
    assert path[-1] in message


@pytest.mark.parametrize(
    "path, value",
    [
        (("game",), 3),
        (("game",), "chess"),
        (("turns",), "13/7 8/7"),
        (("turns",), [["white", "6-1"]]),
        (("opening_rolls",), 61),
        (("options",), {"block_rule": "sometimes"}),
        (("options",), {"colour": "red"}),
        (("state",), []),
        (("state", "phase"), "flying"),
        (("state", "turn"), "green"),
        (("state", "turn"), 0),
        (("state", "dice"), "9-1"),
        (("state", "position"), 12),
        (("state", "last_moves"), [[13, "x", 6, 0]]),
        (("state", "result"), {"winner": "white"}),
    ],
)
def test_record_with_a_wrong_type_or_value_is_a_game_record_error(path: tuple[str, ...], value: Any) -> None:
    raised(GameRecordError, lambda: Game.from_json(_with(STORED, path, value)))


@pytest.mark.parametrize("text", ["!!!!", "4HPwATDgc/AB", "AAAAAAAAAAAAAA", "LAACA_z8AAMD_3wA"])
def test_record_with_an_unparseable_position_id_is_a_game_record_error_naming_the_id(text: str) -> None:
    message = raised(GameRecordError, lambda: Game.from_json(_with(STORED, ("state", "position"), text)))
    assert text in message


@pytest.mark.parametrize("record", [None, [], "game", 1])
def test_record_that_is_not_an_object_is_a_game_record_error(record: Any) -> None:
    raised(GameRecordError, lambda: Game.from_json(record))
    raised(GameRecordError, lambda: Game.replay(record))


@pytest.mark.parametrize("version", [2, 99])
def test_future_format_version_is_a_game_record_error_naming_the_version(version: int) -> None:
    record = _with(STORED, ("format",), version)
    for load in (Game.from_json, Game.replay):
        message = raised(GameRecordError, partial(load, record))
        assert str(version) in message and "newer" in message


@pytest.mark.parametrize("version", [0, -1, "1", 1.5, None])
def test_unknown_or_mistyped_format_version_is_a_game_record_error(version: Any) -> None:
    raised(GameRecordError, lambda: Game.from_json(_with(STORED, ("format",), version)))


def test_record_whose_turn_is_illegal_does_not_replay_and_names_the_position() -> None:
    record = _stored_game().record()
    record["turns"][1][2] = "24/20(2) 13/9(2)"
    message = raised(GameRecordError, lambda: Game.replay(record))
    assert "24/20(2) 13/9(2)" in message
    before = Game.new("short").opening_roll(6, 1).play("13/7 8/7").roll(1, 1)
    assert before.position_id() in message


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r["turns"][1].__setitem__(1, "9-1"),  # dice out of range
        lambda r: r["turns"][1].__setitem__(0, "white"),  # the same side twice
        lambda r: r["turns"][1].__setitem__(1, "2-2"),  # a roll the recorded play does not fit
        lambda r: r["opening_rolls"].__setitem__(0, [6, 6]),  # a tie never starts a game
        lambda r: r.__setitem__("resigned", "purple"),
    ],
)
def test_record_with_a_broken_turn_does_not_replay(change: Callable[[dict[str, Any]], None]) -> None:
    record = copy.deepcopy(_stored_game().record())
    change(record)
    raised(GameRecordError, lambda: Game.replay(record))


# ----- actions in the wrong phase ----------------------------------------------------------------


def _game_in(phase: Phase) -> Game:
    game = Game.new("short")
    if phase is Phase.OPENING:
        return game
    game = game.opening_roll(6, 1)
    if phase is Phase.MOVE:
        return game
    game = game.play("13/7 8/7")
    if phase is Phase.ROLL:
        return game
    return game.resign(Side.BLACK)


WRONG_PHASE: list[tuple[Phase, str, Callable[[Game], object]]] = [
    (Phase.OPENING, "roll", lambda g: g.roll(3, 1)),
    (Phase.OPENING, "play", lambda g: g.play("13/7 8/7")),
    (Phase.OPENING, "legal_plays", lambda g: g.legal_plays()),
    (Phase.OPENING, "turn_step", lambda g: g.turn_step()),
    (Phase.OPENING, "rematch", lambda g: g.rematch()),
    (Phase.MOVE, "roll", lambda g: g.roll(3, 1)),
    (Phase.MOVE, "opening_roll", lambda g: g.opening_roll(3, 1)),
    (Phase.MOVE, "rematch", lambda g: g.rematch()),
    (Phase.ROLL, "play", lambda g: g.play("13/7 8/7")),
    (Phase.ROLL, "legal_plays", lambda g: g.legal_plays()),
    (Phase.ROLL, "opening_roll", lambda g: g.opening_roll(3, 1)),
    (Phase.OVER, "roll", lambda g: g.roll(3, 1)),
    (Phase.OVER, "play", lambda g: g.play("13/7 8/7")),
    (Phase.OVER, "resign", lambda g: g.resign(Side.WHITE)),
    (Phase.OVER, "opening_roll", lambda g: g.opening_roll(3, 1)),
]


@pytest.mark.parametrize(
    "phase, name, action", WRONG_PHASE, ids=[f"{p.value}-{n}" for p, n, _ in WRONG_PHASE]
)
def test_action_in_the_wrong_phase_is_a_wrong_phase_error_naming_the_phase(
    phase: Phase, name: str, action: Callable[[Game], object]
) -> None:
    game = _game_in(phase)
    message = raised(WrongPhaseError, lambda: action(game))
    assert phase.value in message


@pytest.mark.parametrize("phase", [Phase.OPENING, Phase.MOVE, Phase.ROLL])
def test_wrong_phase_error_names_the_position(phase: Phase) -> None:
    game = _game_in(phase)
    action = (lambda g: g.play("13/7 8/7")) if phase is not Phase.MOVE else (lambda g: g.roll(3, 1))
    message = raised(WrongPhaseError, lambda: action(game))
    assert names_position(message, game.position_id(), game.position.describe()), message
