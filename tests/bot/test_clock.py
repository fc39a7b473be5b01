"""The clock of a live game as a pure value: times are passed in, nothing reads a clock."""

from __future__ import annotations

import asyncio

import pytest

from bot.model import flow, waiting
from bot.model.clock import TIME_CONTROLS, Clock, clock_text, time_control
from bot.model.flow import ScriptedDice, engine_computer
from bot.model.table import Person, Table
from engine import Side

LIVE = TIME_CONTROLS["live"]  # 2 minutes a point, 12 s a decision


def test_a_decision_within_the_delay_uses_no_reserve() -> None:
    clock = Clock.start(LIVE, 1).switch(1000.0, Side.WHITE)
    assert clock.left(1011.9) == (120.0, 120.0)
    done = clock.switch(1011.9, Side.BLACK)
    assert done.reserves == (120.0, 120.0)
    assert done.running is Side.BLACK and done.since == 1011.9
    assert done.used == ((1, 0, 11.9),)


def test_a_decision_past_the_delay_comes_off_the_reserve() -> None:
    clock = Clock.start(LIVE, 3).switch(0.0, Side.BLACK)
    assert clock.reserves == (360.0, 360.0)
    assert clock.left(30.0) == (360.0, 342.0)
    done = clock.switch(30.0, Side.WHITE)
    assert done.reserves == (360.0, 342.0)
    assert done.delay_left(31.0) == 11.0 and done.delay_left(50.0) == 0.0


def test_the_flag_falls_when_the_delay_and_the_reserve_are_used_up() -> None:
    clock = Clock(LIVE, (5.0, 100.0)).switch(10.0, Side.WHITE)
    assert clock.deadline() == 10.0 + 12.0 + 5.0
    assert clock.flagged(26.9) is None
    assert clock.flagged(27.0) is Side.WHITE
    assert clock.left(40.0) == (0.0, 100.0), "never below zero"


def test_a_stopped_clock_runs_for_nobody() -> None:
    clock = Clock.start(LIVE, 1).switch(0.0, Side.WHITE).switch(50.0, None)
    assert clock.running is None and clock.deadline() is None and clock.flagged(10_000.0) is None
    assert clock.reserves == (82.0, 120.0)
    assert clock.left(10_000.0) == (82.0, 120.0)


def test_a_clock_round_trips_through_json() -> None:
    clock = Clock.start(TIME_CONTROLS["blitz"], 5).switch(1.5, Side.WHITE).switch(9.0, Side.BLACK)
    assert Clock.from_json(clock.to_json()) == clock


def test_time_the_clock_ran_while_nobody_could_press_is_given_back_once() -> None:
    clock = Clock(LIVE, (5.0, 100.0)).switch(10.0, Side.WHITE)  # the flag falls at 27
    outages = [(15.0, 40.0), (20.0, 35.0)]  # one outage, noted by two workers
    excused = clock.excuse(outages, 45.0)
    assert excused.since == 10.0 + 25.0 and excused.excused_to == 40.0
    assert excused.flagged(45.0) is None and excused.deadline() == 27.0 + 25.0
    assert excused.excuse(outages, 50.0) == excused, "given back once"
    assert Clock.from_json(excused.to_json()) == excused


def test_an_outage_before_the_decision_began_gives_nothing_back() -> None:
    clock = Clock(LIVE, (5.0, 100.0)).switch(50.0, Side.WHITE)
    assert clock.excuse([(15.0, 40.0)], 60.0) is clock
    assert clock.excuse([(45.0, 55.0)], 60.0).since == 55.0  # the part after it began
    assert Clock(LIVE, (5.0, 5.0)).excuse([(0.0, 10.0)], 20.0).flagged(1e9) is None  # no clock running


def test_reserves_read_as_minutes_and_seconds_rounded_up() -> None:
    assert [clock_text(s) for s in (0.0, 0.2, 9.0, 59.01, 60.0, 125.5)] == [
        "0:00",
        "0:01",
        "0:09",
        "1:00",
        "1:00",
        "2:06",
    ]


def test_an_unknown_time_control_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no time control 'bullet'"):
        time_control("bullet")


# ---------------------------------------------------------------------- a game's clock through the flow


def _live_game(fmt: str = "short-live") -> Table:
    alice, bob = Person(1, "Alice", "en"), Person(2, "Bob", "en")
    dice = ScriptedDice([6, 1])  # Alice (white) starts with 6-1
    table = asyncio.run(
        flow.start_table("g1", "friend", fmt, alice, bob, "en", dice, engine_computer(seed=1))
    )
    return waiting.tick(table, 1000.0)


def _done(table: Table, user: int, now: float, dice: ScriptedDice) -> Table:
    """The mover plays the first legal play and presses Done at `now`."""
    play = table.game.legal_plays()[0]
    moves = tuple((m.src, m.die) for m in play.moves)
    moved = flow.press_play(table, user, table.version, moves)
    done = asyncio.run(flow.press_done(moved, user, moved.version, dice, engine_computer(seed=1)))
    return waiting.tick(done, now)


def test_a_live_game_starts_the_movers_clock_and_a_game_against_the_computer_has_none() -> None:
    table = _live_game()
    assert table.clock is not None and table.clock.running is Side.WHITE and table.clock.since == 1000.0
    assert table.clock.reserves == (120.0, 120.0)
    match = _live_game("long.5-blitz")
    assert match.clock is not None and match.clock.reserves == (150.0, 150.0)
    anna, computer = Person(3, "Anna", "en"), Person(0, "computer", "en", level="beginner")
    solo = asyncio.run(
        flow.start_table(
            "g2", "computer", "short-live", anna, computer, "en", ScriptedDice([6, 1]), engine_computer()
        )
    )
    assert solo.clock is None


def test_moves_within_a_turn_keep_one_decision_and_done_passes_the_clock() -> None:
    table = _live_game()
    dice = ScriptedDice([3, 2])
    one = waiting.tick(flow.press_move(table, 1, table.version, 13, 6), 1005.0)
    assert one.clock == table.clock, "a single move is part of the same decision"
    after = _done(table, 1, 1030.0, dice)  # 30 s: 18 s past the delay
    assert after.clock is not None and after.clock.running is Side.BLACK and after.clock.since == 1030.0
    assert after.clock.reserves == (102.0, 120.0)
    assert after.clock.used == ((1, 0, 30.0),)


def test_a_press_after_the_flag_fell_loses_the_game_as_a_resignation() -> None:
    table = _live_game()
    assert waiting.flagged(table, 1131.9) is None
    assert waiting.flagged(table, 1132.0) is Side.WHITE  # 12 s delay + 120 s reserve
    lost = waiting.time_out(table, 1500.0)
    assert lost.over and lost.game.result is not None and lost.game.result.winner is Side.BLACK
    assert lost.events[-1] == {"k": "time", "s": 0}
    assert lost.ended and lost.ended[-1]["how"] == "time"
    assert lost.clock is not None and lost.clock.running is None and lost.clock.reserves[0] == 0.0
    assert lost.version == table.version + 1


def test_running_out_of_time_in_a_match_loses_the_match() -> None:
    table = _live_game("short.3-live")
    lost = waiting.time_out(table, 1000.0 + 12 + 360)
    assert lost.match.over and lost.match.winner is Side.BLACK
    assert not flow.match_goes_on(lost)
