"""A game as JSON: the engine's record (`Game.record()`, its cube and cube actions included) with the players'
names and the result, one key a line and one turn a line; read back by replaying it, a record that breaks
the rules raising a `RecordError` that names the turn or the cube action."""

from __future__ import annotations

import json

from engine.errors import NardyError
from engine.game import Game
from engine.records.replay import locate
from engine.records.values import Record, RecordError, clean_name, format_result
from engine.scoring import Result

JSON_FORMAT = "nardy-record"
JSON_VERSION = 1


def to_json(game: Game, *, white: str = "White", black: str = "Black") -> str:
    """The game as JSON: the players' names, the result, and the engine's record (`Game.record()`, which
    `Game.replay` reads). One key a line, and one turn a line."""
    record = game.record()
    turns = record.pop("turns")
    head = {
        "format": JSON_FORMAT,
        "version": JSON_VERSION,
        "white": clean_name(white),
        "black": clean_name(black),
        "result": game.result.to_json() if game.result else None,
    }

    def item(key: str, value: object, indent: str) -> str:
        return f"{indent}{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"

    inner = [item(k, v, "  ") for k, v in record.items()]
    listed = "".join(f"\n   {json.dumps(t, ensure_ascii=False)}," for t in turns).removesuffix(",")
    inner.append(f'  "turns": [{listed}\n  ]' if turns else '  "turns": []')
    lines = [item(k, v, " ") for k, v in head.items()]
    lines.append(' "record": {\n' + ",\n".join(inner) + "\n }")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def parse_json(text: str) -> Record:
    """Read a record written by `to_json` and replay it: the identical game and the names."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"not JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    if not isinstance(data, dict) or data.get("format") != JSON_FORMAT:
        raise RecordError(f'not a nardy record: no "format": "{JSON_FORMAT}"', 1)
    version = data.get("version")
    if not isinstance(version, int) or not 1 <= version <= JSON_VERSION:
        raise RecordError(f"record version {version!r} is not one this engine reads (1..{JSON_VERSION})")
    for key, kind in (("white", str), ("black", str), ("record", dict)):
        if not isinstance(data.get(key), kind):
            raise RecordError(f"{key!r} must be a {'string' if kind is str else 'JSON object'}")
    try:
        game = Game.replay(data["record"])
    except NardyError as exc:
        part, index, message = locate(data["record"], exc)
        where = {
            "turn": f"turn {index + 1} {data['record']['turns'][index]!r}" if part == "turn" else "",
            "opening": "the record's start",
            "pending": f"the roll to play {data['record'].get('dice')!r}",
            "cube": f"cube action {index + 1} {data['record']['cube_actions'][index]!r}"
            if part == "cube"
            else "",
            "result": f"the resignation {data['record'].get('resigned')!r}",
        }[part]
        raise RecordError(f"{where}: {message}") from None
    listed = data["record"].get("cube_actions") or []
    if [a.to_json() for a in game.cube_actions] != listed:
        raise RecordError(
            f"the cube actions {listed!r} do not all replay in their order: only "
            f"{[a.to_json() for a in game.cube_actions]!r} do (each action's turn counts the turns before it)"
        )
    try:
        result = Result.from_json(data["result"]) if data.get("result") is not None else None
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"bad result {data.get('result')!r}: {type(exc).__name__}: {exc}") from None
    if result != game.result:
        raise RecordError(
            f"the record says {format_result(result)!r} but the turns give {format_result(game.result)!r}"
        )
    return Record(game, data["white"], data["black"])


def from_json(text: str) -> Game:
    """The game of a record written by `to_json` (see `parse_json` for the names too)."""
    return parse_json(text).game
