"""The JSON the board page and the server exchange over one WebSocket (/app/ws), as plain values.

Page -> server: first `{"type": "hello", "game": ID, "initData": TEXT}`, then presses
`{"type": "press", "version": 17, "action": "move", "src": 13, "die": 6}` (the other actions carry no src
and die). Server -> page: `welcome` once the hello is accepted (the page's words in its person's language,
which way the language runs, the server's time: the page measures its clock's offset from it), `state` (the
board as render.view's BoardView, the legal single steps of the player now, the actions offered, a live
game's clocks), `refused` (a press had no effect: its text is shown) and `error` (a fatal one ends the
page's connection: it does not reconnect).

Pure: no I/O, no aiohttp; the server and the page's stub server in testkit/browser/ build their messages here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine import BAR, OFF, Move, Side, to_absolute
from render.view import BoardView, check_view

ACTIONS = ("move", "undo", "done", "roll", "double", "take", "pass", "resign", "hint", "rematch")
MAX_MESSAGE = 8192  # bytes of one page -> server message (initData is about 1 KB)
MAX_GAME_ID = 64
MAX_INIT_DATA = 4096


class ProtocolError(ValueError):
    """A page's message that is not JSON of the protocol's shape (what was wrong, and the text's start)."""


@dataclass(frozen=True)
class Hello:
    """The first message of a page: the game it shows and Telegram's initData ('' outside Telegram)."""

    game: str
    init_data: str


@dataclass(frozen=True)
class Press:
    """A button or a checker pressed on the page, against the board `version` the page shows."""

    version: int
    action: str
    src: int | None = None  # "move" only: the step's src and die, as the state gave them
    die: int | None = None


def view_json(view: BoardView, score: tuple[int, int] = (0, 0), match_to: int = 1) -> dict[str, Any]:
    """The board as the page draws it: `view`'s fields (sides as 0/1, pips resolved) with the match score."""
    checked = check_view(view)
    view = checked.view
    return {
        "game": view.game,
        "points": list(view.points),
        "bar": list(view.bar),
        "off": list(view.off),
        "viewer": int(checked.viewer),
        "names": list(view.names),
        "to_move": _side(checked.to_move),
        "dice": list(view.dice),
        "dice_used": list(view.dice_used),
        "last_mover": _side(checked.last_mover),
        "last_move": [{"src": m.src, "dst": m.dst, "hit": m.hit} for m in view.last_move],
        "pips": list(checked.pips),
        "status": view.status,
        "winner": _side(checked.winner),
        "cube": view.cube,
        "cube_owner": _side(view.cube_owner),
        "cube_offered": view.cube_offered,
        "score": list(score),
        "match_to": match_to,
    }


def _side(side: Side | int | None) -> int | None:
    return None if side is None else int(side)


def step_json(game: str, side: Side, move: Move) -> dict[str, Any]:
    """One legal single step of `side` (a Move in its own numbering) with its points made absolute."""
    return {
        "from": "bar" if move.src == BAR else to_absolute(game, side, move.src),
        "to": "off" if move.dst == OFF else to_absolute(game, side, move.dst),
        "src": move.src,
        "die": move.die,
    }


def steps_json(game: str, side: Side, moves: Iterable[Move]) -> list[dict[str, Any]]:
    return [step_json(game, side, m) for m in moves]


def welcome_message(lang: str, direction: str, words: Mapping[str, str], now: float) -> dict[str, Any]:
    """The answer to an accepted hello: the page's `words` in `lang` (bot/web/words.py), its `direction`
    ("ltr" or "rtl") and the server's time `now` (unix seconds), which the page's clocks count from."""
    if direction not in ("ltr", "rtl"):
        raise ValueError(f"direction {direction!r} of language {lang!r} is neither ltr nor rtl")
    return {"type": "welcome", "lang": lang, "dir": direction, "words": dict(words), "now": round(now, 3)}


def clock_json(
    reserves: tuple[float, float], running: Side | None, delay: float, at: float
) -> dict[str, Any]:
    """A live game's clocks as of the server's time `at` (the save the state shows): each side's reserve
    left, the side whose time runs (None: stopped) and what is left of its delay for this decision. The page
    counts down from these with its own clock, corrected by the offset the welcome's `now` gave it."""
    return {
        "left": [round(reserves[0], 3), round(reserves[1], 3)],
        "running": _side(running),
        "delay": round(delay, 3),
        "at": round(at, 3),
    }


def state_message(
    game_id: str,
    version: int,
    lang: str,
    you: Side | None,
    view: dict[str, Any],
    steps: Sequence[dict[str, Any]] = (),
    actions: Sequence[str] = (),
    message: str = "",
    clock: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A `state`: `view` from view_json, the steps and actions of `you` now (none for a watcher, you=None),
    and a live game's `clock` (clock_json)."""
    unknown = [a for a in actions if a not in ACTIONS]
    if unknown:
        raise ValueError(f"unknown actions {unknown} for game {game_id!r}")
    out: dict[str, Any] = {
        "type": "state",
        "game": game_id,
        "version": version,
        "lang": lang,
        "you": _side(you),
        "view": view,
        "steps": list(steps) if you is not None else [],
        "actions": list(actions) if you is not None else [],
    }
    if message:
        out["message"] = message
    if clock is not None:
        out["clock"] = clock
    return out


def refused_message(text: str) -> dict[str, Any]:
    return {"type": "refused", "text": text}


def error_message(text: str, fatal: bool = True) -> dict[str, Any]:
    return {"type": "error", "text": text, "fatal": fatal}


def _int(data: dict[str, Any], key: str, low: int, high: int, text: str) -> int:
    value = data.get(key)
    if type(value) is not int or not low <= value <= high:
        raise ProtocolError(f"{key} must be an integer {low}..{high}, got {value!r:.40} in {text[:80]!r}")
    return value


def parse_client_message(text: str | bytes) -> Hello | Press:
    """A page's message, checked for shape only (whether it may act is the server's question)."""
    if len(text) > MAX_MESSAGE:
        raise ProtocolError(f"message of {len(text)} bytes, more than {MAX_MESSAGE}")
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        raise ProtocolError(f"not JSON: {text[:80]!r}") from None
    if not isinstance(data, dict):
        raise ProtocolError(f"not a JSON object: {text[:80]!r}")
    kind = data.get("type")
    if kind == "hello":
        game, init_data = data.get("game"), data.get("initData", "")
        if not isinstance(game, str) or not 0 < len(game) <= MAX_GAME_ID:
            raise ProtocolError(f"hello without a game id: {text[:80]!r}")
        if not isinstance(init_data, str) or len(init_data) > MAX_INIT_DATA:
            raise ProtocolError(f"hello's initData is not a string of at most {MAX_INIT_DATA}: {text[:80]!r}")
        return Hello(game, init_data)
    if kind == "press":
        version = _int(data, "version", 0, 2**53, text)
        action = data.get("action")
        if action not in ACTIONS:
            raise ProtocolError(f"unknown action {action!r:.40} in {text[:80]!r}")
        if action != "move":
            return Press(version, action)
        return Press(version, action, _int(data, "src", 1, 25, text), _int(data, "die", 1, 6, text))
    raise ProtocolError(f"unknown message type {kind!r:.40} in {text[:80]!r}")
