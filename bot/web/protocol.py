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
import re
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
    review: str | None = None,
) -> dict[str, Any]:
    """A `state`: `view` from view_json, the steps and actions of `you` now (none for a watcher, you=None),
    a live game's `clock` (clock_json) and the finished game the page may open the review of, `review`
    ("GAME/N", bot/service/records.py named_game)."""
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
    if review is not None:
        out["review"] = review
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


# ---------------------------------------------------------------------- the home (HTTP, JSON)
#
# The home page (static/home.html) asks over plain HTTP, each request carrying Telegram's initData in its
# `Authorization: tma <initData>` header (the sandbox: its sign-in cookie): GET api/home (the `home`: the
# player's games in progress, what they may start, their statistics and last games, the page's words),
# POST api/computer `{"format": "short", "level": "expert"}` (a new game against the computer: `{"game": ID}`)
# and POST api/open `{"start": TEXT}` (what a Direct Link's startapp names: `{"game": ID}`); quick match:
# POST api/seek `{"variant": "short", "length": 3, "clock": "live"}` (`{"game": ID}` when paired at once, else
# `{"seeking": seeking_json}`), GET api/seek (`{"seeking": ..., "game": ID or null}`: polled while waiting) and
# POST api/stop `{"token": TOKEN}`; POST api/invite `{"format": "short"}` (an invitation to a friend:
# `{"link": URL, "share": URL, "text": TEXT}`).

START_PARAM = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what Telegram allows in startapp
TURNS = ("you", "them", "over")


@dataclass(frozen=True)
class StartParam:
    """What a Direct Link's `startapp` names: a game ("g<id>"; a bare id, as the group boards' links had
    before the prefixes, too) or an invitation ("i<token>")."""

    kind: str  # "game" | "invite"
    id: str


@dataclass(frozen=True)
class NewGame:
    """A new game against the computer, as the home asks for it (whether it is offered: the server's)."""

    format: str
    level: str


def parse_start_param(text: str) -> StartParam:
    """The StartParam of `text`; ProtocolError if Telegram could not have given it."""
    if not START_PARAM.fullmatch(text):
        raise ProtocolError(f"start parameter {text[:80]!r} is not 1-64 of A-Z a-z 0-9 _ -")
    if text[0] == "i" and len(text) > 1:
        return StartParam("invite", text[1:])
    if text[0] == "g" and len(text) > 1:
        return StartParam("game", text[1:])
    return StartParam("game", text)


def _json_object(text: str | bytes) -> dict[str, Any]:
    if len(text) > MAX_MESSAGE:
        raise ProtocolError(f"request of {len(text)} bytes, more than {MAX_MESSAGE}")
    try:
        data = json.loads(text)
    except ValueError:
        raise ProtocolError(f"not JSON: {str(text)[:80]!r}") from None
    if not isinstance(data, dict):
        raise ProtocolError(f"not a JSON object: {str(text)[:80]!r}")
    return data


def _short_text(data: dict[str, Any], key: str, text: str | bytes) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not 0 < len(value) <= MAX_GAME_ID:
        raise ProtocolError(
            f"{key} must be a string of 1-{MAX_GAME_ID}, got {value!r:.40} in {str(text)[:80]!r}"
        )
    return value


def parse_new_game(text: str | bytes) -> NewGame:
    """A POST api/computer's body, checked for shape only."""
    data = _json_object(text)
    return NewGame(_short_text(data, "format", text), _short_text(data, "level", text))


def parse_invite(text: str | bytes) -> str:
    """A POST api/invite's body: the format of the game the invitation is to."""
    return _short_text(_json_object(text), "format", text)


def parse_open(text: str | bytes) -> StartParam:
    """A POST api/open's body: the start parameter it carries."""
    return parse_start_param(_short_text(_json_object(text), "start", text))


def home_clock_json(left: tuple[float, float], running: Side | None, you: Side) -> dict[str, Any]:
    """A live game's clock as the home shows it: each side's time left in whole seconds (as of the home's
    `now`), yours first, and whose is running ("you", "them" or None)."""
    mine, theirs = left[you], left[you.other]
    run = None if running is None else ("you" if running is you else "them")
    return {"you": int(mine), "them": int(theirs), "running": run}


def game_entry(
    game_id: str,
    title: str,
    opponent: str,
    turn: str,
    score: tuple[int, int] = (0, 0),
    match_to: int = 1,
    clock: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One game in progress on the home: its id, its format in words, the opponent's name, whose turn it is
    (TURNS), the match's score (yours first) and a live game's clock (home_clock_json)."""
    if turn not in TURNS:
        raise ValueError(f"turn {turn!r} of game {game_id!r} is not one of {TURNS}")
    return {
        "game": game_id,
        "title": title,
        "opponent": opponent,
        "turn": turn,
        "score": list(score),
        "match_to": match_to,
        "clock": clock,
    }


def history_entry(key: str, line: str) -> dict[str, Any]:
    """One finished game on the home: its key ("<table id>/<game number>", HistoryEntry.key: the review
    page's ?review=) and /history's line for it."""
    return {"key": key, "line": line}


def rating_json(
    variant: str,
    title: str,
    rating: float,
    points: Sequence[tuple[float, float]],
    span: tuple[float, float, float, float],
    ticks: Sequence[float],
) -> dict[str, Any]:
    """A player's rating in one variant and its chart: the rating now (whole), each rated match's (unix time,
    rating), the chart's span (first time, last time, lowest, highest: render/stats.py rating_span) and the
    ratings its grid lines mark."""
    return {
        "variant": variant,
        "title": title,
        "rating": round(rating),
        "points": [[round(at), round(r, 1)] for at, r in points],
        "span": [round(span[0]), round(span[1]), round(span[2], 1), round(span[3], 1)],
        "ticks": [round(x, 1) for x in ticks],
    }


def home_message(
    lang: str,
    name: str,
    words: dict[str, str],
    games: Sequence[dict[str, Any]],
    formats: Sequence[tuple[str, str]],
    levels: Sequence[tuple[str, str]],
    stats: Sequence[str],
    history: Sequence[dict[str, Any]],
    now: float,
    right_to_left: bool = False,
    quick: Mapping[str, Sequence[tuple[str, str]]] | None = None,
    seeking: dict[str, Any] | None = None,
    ratings: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """The `home` of one player: their name, the page's `words` in `lang`, their games in progress
    (game_entry), the formats and levels they may start against the computer (id, words), what /stats says
    of them (lines) and their last games (history_entry), the server's time (the clocks are as of it), the
    quick match's choices (`quick`: "variants", "lengths", "clocks", each (id, words)), the search going on
    (seeking_json) and their ratings with their charts (rating_json)."""
    return {
        "type": "home",
        "lang": lang,
        "dir": "rtl" if right_to_left else "ltr",
        "name": name,
        "words": dict(words),
        "games": list(games),
        "formats": [{"id": i, "name": n} for i, n in formats],
        "levels": [{"id": i, "name": n} for i, n in levels],
        "stats": list(stats),
        "history": list(history),
        "now": now,
        "quick": {k: [{"id": i, "name": n} for i, n in v] for k, v in (quick or {}).items()},
        "seeking": seeking,
        "ratings": list(ratings),
    }


@dataclass(frozen=True)
class Seek:
    """A quick-match search as the home asks for it: the variant, the match's length and the time control
    ("" for none); whether that format is offered is the server's question."""

    variant: str
    length: int
    clock: str


def parse_seek(text: str | bytes) -> Seek:
    """A POST api/seek's body, checked for shape only."""
    data = _json_object(text)
    clock = data.get("clock", "")
    if not isinstance(clock, str) or len(clock) > 16:
        raise ProtocolError(f"clock must be a short string, got {clock!r:.40} in {str(text)[:80]!r}")
    return Seek(_short_text(data, "variant", text), _int(data, "length", 1, 99, str(text)), clock)


def parse_stop(text: str | bytes) -> str:
    """A POST api/stop's body: the token of the search to stop."""
    return _short_text(_json_object(text), "token", text)


def seeking_json(token: str, title: str, since: float, until: float) -> dict[str, Any]:
    """A search going on, as the home shows it: its token (to stop it), its format in words, when it began
    and when it times out (the server's unix time)."""
    return {"token": token, "title": title, "since": since, "until": until}
