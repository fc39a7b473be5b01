"""The home's JSON (bot/web/protocol.py, the home's part) without a server: a Direct Link's start parameter
read (a game, an older bare link, an invitation), the home's requests checked for shape, and what the home is
sent built as the page reads it (clocks yours first, whose turn one of three words)."""

from __future__ import annotations

import json

import pytest

from bot.web.protocol import (
    NewGame,
    ProtocolError,
    StartParam,
    game_entry,
    history_entry,
    home_clock_json,
    home_message,
    parse_invite,
    parse_new_game,
    parse_open,
    parse_start_param,
    rating_json,
)
from engine import Side


def test_a_start_parameter_names_a_game_or_an_invitation() -> None:
    assert parse_start_param("gAbc_12-x") == StartParam("game", "Abc_12-x")
    assert parse_start_param("iTok3n") == StartParam("invite", "Tok3n")
    assert parse_start_param("Xyz1") == StartParam("game", "Xyz1")  # a group board's link before prefixes
    assert parse_start_param("g") == StartParam("game", "g")


@pytest.mark.parametrize("text", ["", "a/b", "a b", "<script>", "x" * 65, "ä"])
def test_a_start_parameter_telegram_could_not_give_is_refused(text: str) -> None:
    with pytest.raises(ProtocolError, match="start parameter"):
        parse_start_param(text)


def test_the_homes_requests_are_read() -> None:
    assert parse_new_game('{"format": "short.5c", "level": "expert"}') == NewGame("short.5c", "expert")
    assert parse_open(b'{"start": "iAbc"}') == StartParam("invite", "Abc")


@pytest.mark.parametrize(
    "text",
    [
        "nope",
        "[1]",
        '{"format": "short"}',
        '{"format": 5, "level": "expert"}',
        '{"format": "", "level": "x"}',
    ],
)
def test_a_new_game_of_another_shape_is_refused(text: str) -> None:
    with pytest.raises(ProtocolError):
        parse_new_game(text)


def test_a_request_longer_than_a_message_is_refused() -> None:
    with pytest.raises(ProtocolError, match="bytes"):
        parse_open(json.dumps({"start": "g1", "pad": "x" * 9000}))


def test_a_clock_is_yours_first_in_whole_seconds() -> None:
    assert home_clock_json((90.7, 30.2), Side.BLACK, Side.BLACK) == {"you": 30, "them": 90, "running": "you"}
    assert home_clock_json((90.7, 30.2), Side.BLACK, Side.WHITE) == {"you": 90, "them": 30, "running": "them"}
    assert home_clock_json((5.0, 6.0), None, Side.WHITE)["running"] is None


def test_a_game_entry_says_whose_turn_in_one_of_three_words() -> None:
    entry = game_entry("G1", "Short nardy", "<b>Bob</b>", "them", (1, 2), 3)
    assert entry == {
        "game": "G1",
        "title": "Short nardy",
        "opponent": "<b>Bob</b>",
        "turn": "them",
        "score": [1, 2],
        "match_to": 3,
        "clock": None,
    }
    with pytest.raises(ValueError, match="G1"):
        game_entry("G1", "Short nardy", "Bob", "mine")


def test_a_home_is_json_with_its_direction() -> None:
    home = home_message(
        "fa", "Ali", {"title": "x"}, [], [("short", "S")], [("expert", "E")], ["a"], [], 5.0, True
    )
    assert json.loads(json.dumps(home)) == home
    assert home["dir"] == "rtl" and home["formats"] == [{"id": "short", "name": "S"}]
    assert home["levels"] == [{"id": "expert", "name": "E"}] and home["type"] == "home"


def test_a_finished_game_on_the_home_carries_its_key_for_the_review() -> None:
    assert history_entry("G1/2", "<b>Bob</b>: won") == {"key": "G1/2", "line": "<b>Bob</b>: won"}


def test_a_rating_chart_is_whole_times_and_tenths() -> None:
    chart = rating_json(
        "long",
        "Long nardy",
        1512.46,
        [(1.4, 1500.0), (90000.6, 1512.46)],
        (0.0, 1e5, 1480.0, 1530.0),
        [1480.0, 1500.0],
    )
    assert chart == {
        "variant": "long",
        "title": "Long nardy",
        "rating": 1512,
        "points": [[1, 1500.0], [90001, 1512.5]],
        "span": [0, 100000, 1480.0, 1530.0],
        "ticks": [1480.0, 1500.0],
    }


def test_an_invitation_request_names_a_format() -> None:
    assert parse_invite(b'{"format": "short.3"}') == "short.3"
    for bad in (b'{"variant": "short"}', b'{"format": ""}', b"[]", b'{"format": 3}'):
        with pytest.raises(ProtocolError):
            parse_invite(bad)
