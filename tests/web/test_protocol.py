"""The socket's JSON (bot/web/protocol.py) without a browser: what the page sends is checked for shape,
what the server sends is built from the engine's values (absolute points, the mover's src and die)."""

from __future__ import annotations

import json

import pytest

from bot.web.protocol import (
    Hello,
    Press,
    ProtocolError,
    parse_client_message,
    state_message,
    steps_json,
    view_json,
)
from engine import Game, Side
from render.view import BoardView, MoveMark


def test_a_hello_and_presses_are_read() -> None:
    assert parse_client_message('{"type": "hello", "game": "Ab_1", "initData": "x=1"}') == Hello(
        "Ab_1", "x=1"
    )
    assert parse_client_message('{"type": "hello", "game": "Ab_1"}') == Hello("Ab_1", "")
    move = '{"type": "press", "version": 17, "action": "move", "src": 25, "die": 6}'
    assert parse_client_message(move) == Press(17, "move", 25, 6)
    undo = b'{"type": "press", "version": 3, "action": "undo", "src": 99}'
    assert parse_client_message(undo) == Press(3, "undo")  # src and die only for a move


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[1, 2]",
        '{"type": "hi"}',
        '{"type": "hello", "game": ""}',
        '{"type": "hello", "game": 5}',
        '{"type": "hello", "game": "g", "initData": 1}',
        '{"type": "press", "version": "1", "action": "undo"}',
        '{"type": "press", "version": true, "action": "undo"}',
        '{"type": "press", "version": -1, "action": "undo"}',
        '{"type": "press", "version": 1, "action": "cheat"}',
        '{"type": "press", "version": 1, "action": "move", "src": 13}',
        '{"type": "press", "version": 1, "action": "move", "src": 26, "die": 1}',
        '{"type": "press", "version": 1, "action": "move", "src": 13, "die": 7}',
        '{"type": "hello", "game": "g", "initData": "' + "x" * 9000 + '"}',
    ],
)
def test_a_message_of_another_shape_is_refused(text: str) -> None:
    with pytest.raises(ProtocolError):
        parse_client_message(text)


def test_steps_are_absolute_with_the_movers_press() -> None:
    short = Game.new("short", starter=Side.BLACK).roll(6, 1)
    steps = steps_json("short", Side.BLACK, short.turn_step().next_moves)
    assert {"from": 1, "to": 7, "src": 24, "die": 6} in steps  # black's 24 is A1, its 18 is A7
    long_game = Game.new("long", starter=Side.BLACK).roll(5, 3)
    steps = steps_json("long", Side.BLACK, long_game.turn_step().next_moves)
    assert sorted((s["from"], s["to"], s["die"]) for s in steps) == [(12, 7, 5), (12, 9, 3)]


def test_a_state_carries_the_view_and_nothing_to_press_for_a_watcher() -> None:
    view = BoardView(
        game="short",
        points=Game.new("short").board().points,
        viewer=Side.BLACK,
        to_move=Side.WHITE,
        dice=(6, 1),
        dice_used=(6,),
        last_mover=Side.WHITE,
        last_move=(MoveMark(13, 7),),
        cube=2,
        cube_owner=Side.BLACK,
    )
    body = view_json(view, (1, 2), 5)
    assert body["viewer"] == 1 and body["to_move"] == 0 and body["cube_owner"] == 1
    assert body["pips"] == [167, 167]  # computed when the view has none
    assert body["last_move"] == [{"src": 13, "dst": 7, "hit": False}]
    assert (body["score"], body["match_to"]) == ([1, 2], 5)
    steps = [{"from": 13, "to": 7, "src": 13, "die": 6}]
    state = state_message("g", 4, "ru", None, body, steps, ["undo"], "Alice resigned")
    assert (state["steps"], state["actions"], state["you"]) == ([], [], None)
    assert state["message"] == "Alice resigned"
    json.dumps(state)  # plain JSON
    with pytest.raises(ValueError, match="unknown actions"):
        state_message("g", 4, "en", Side.WHITE, body, steps, ["fly"])
