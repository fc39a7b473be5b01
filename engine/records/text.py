"""A game as a plain-text record in the project's notation, a header then numbered turns, and read back::

    Variant: long
    Options: default
    White: Alice
    Black: Bob
    Starter: opening roll
    Opening rolls: 3-3, 5-2
    Result: white wins 1 point (oin)

    1. W 6-4: 24/18 24/20
    2. B 5-1: 24/19 24/23
    ...

A game with the cube has a `Cube:` header line and its cube actions as numbered lines of their own
(`12. W doubles to 2`, `13. B takes`). Reading replays every turn through the rules, so a record that
breaks them raises a `RecordError` naming the line and what was wrong.
"""

from __future__ import annotations

import re
from typing import Any

from engine.cube import Cube, CubeAction
from engine.dice import Dice
from engine.errors import InvalidDiceError, OptionsError
from engine.game import FORMAT_VERSION, Game, Phase, TurnRecord
from engine.options import Options
from engine.records.replay import replay
from engine.records.values import CUBE_WORDS, Record, RecordError, clean_name, format_result
from engine.rules import GAMES
from engine.scoring import Result, WinKind
from engine.sides import Side

_SIDE_LETTER = {Side.WHITE: "W", Side.BLACK: "B"}
_LETTER_SIDE = {"W": Side.WHITE, "B": Side.BLACK}
_HEADER_KEYS = ("Variant", "Options", "White", "Black", "Starter", "Opening rolls", "Cube", "Result")
_TURN = re.compile(r"^(\d+)\.\s+([WB])\s+(\d-\d)(?::\s*(.*?)|\s+\(to play\))\s*$")
_CUBE_ACTION = re.compile(r"^(\d+)\.\s+([WB])\s+(?:doubles to (\d+)|(takes)|(passes))\s*$")
_RESULT = re.compile(
    r"^(white|black) wins (\d+) points? \((\w+)\)(?:, (white|black) (resigned|passed))?$|^(in progress)$"
)
_CUBE_RULES = re.compile(
    r"^money(, Jacoby)?$|^match, white needs (\d+), black needs (\d+)(, Crawford game)?$"
)


def _cube_text(cube: Cube) -> str:
    """The rules a game's cube is played under: `money`, `money, Jacoby`, or
    `match, white needs 2, black needs 4` (`, Crawford game` in the Crawford game)."""
    if cube.needs is None:
        return "money, Jacoby" if cube.jacoby else "money"
    text = f"match, white needs {cube.needs[0]}, black needs {cube.needs[1]}"
    return text + (", Crawford game" if cube.crawford else "")


def _parse_cube(value: str, line: int) -> Cube:
    m = _CUBE_RULES.match(value)
    if not m:
        raise RecordError(
            f"cube {value!r} is not like 'money', 'money, Jacoby' or 'match, white needs 2, black needs 4'",
            line,
        )
    if m.group(2) is None:
        return Cube(jacoby=m.group(1) is not None)
    try:
        return Cube(crawford=m.group(4) is not None, needs=(int(m.group(2)), int(m.group(3))))
    except ValueError as exc:
        raise RecordError(f"cube {value!r}: {exc}", line) from None


def _entries(game: Game) -> list[str]:
    """The game's turns and cube actions in the order they were made, each as a line without its number:
    `W 6-4: 24/18 24/20`, `B doubles to 2`, `W takes`, `W passes`, and last the roll not played yet,
    `B 5-2 (to play)`."""
    entries: list[str] = []
    value = 1
    for index in range(len(game.history) + 1):
        for action in (a for a in game.cube_actions if a.turn == index):
            if action.action == "double":
                word = f"doubles to {value * 2}"
            else:
                word = CUBE_WORDS[action.action]
                value *= 2 if action.action == "take" else 1
            entries.append(f"{_SIDE_LETTER[action.side]} {word}")
        if index < len(game.history):
            turn = game.history[index]
            entries.append(f"{_SIDE_LETTER[turn.side]} {turn.dice}: {turn.play}")
    if game.phase is Phase.MOVE and game.dice is not None:
        entries.append(f"{_SIDE_LETTER[game.turn]} {game.dice} (to play)")
    return entries


def _options_text(options: Options) -> str:
    values = options.to_json()
    if not values:
        return "default"
    return ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in sorted(values.items()))


def _starter_text(game: Game) -> str:
    return game.starter.label if game.starter is not None else "opening roll"


def to_text(game: Game, *, white: str = "White", black: str = "Black") -> str:
    """The game as a plain-text record: a header, a blank line, then one numbered line a turn
    (`12. B 6-6: 24/18 24/18 13/7 13/7`, `pass` when no move was possible) or a cube action
    (`13. W doubles to 2`, `14. B takes`, `14. B passes`), and the roll on turn that is not played yet as
    `15. W 5-2 (to play)`. A game with the cube has a `Cube:` header line with the rules it is played
    under (`money`, `money, Jacoby`, `match, white needs 2, black needs 4, Crawford game`); a result
    `white wins 2 points (oin), black passed` is a passed double."""
    opening = ", ".join(f"{w}-{b}" for w, b in game.opening_rolls) or "-"
    header = {
        "Variant": game.game,
        "Options": _options_text(game.rules.options),
        "White": clean_name(white),
        "Black": clean_name(black),
        "Starter": _starter_text(game),
        "Opening rolls": opening,
        **({"Cube": _cube_text(game.cube)} if game.cube is not None else {}),
        "Result": format_result(game.result),
    }
    lines = [f"{key}: {value}".rstrip() for key, value in header.items()]
    lines.append("")
    lines += [f"{number}. {entry}" for number, entry in enumerate(_entries(game), start=1)]
    return "\n".join(lines) + "\n"


def _parse_options(value: str, line: int) -> Options:
    if value == "default":
        return Options()
    data: dict[str, Any] = {}
    for item in value.split(","):
        key, eq, raw = item.strip().partition("=")
        if not eq or not key:
            raise RecordError(f"option {item.strip()!r} is not like name=value", line)
        data[key] = True if raw == "true" else False if raw == "false" else raw
    try:
        return Options.from_json(data)
    except OptionsError as exc:
        raise RecordError(str(exc), line) from None


def _parse_result(value: str, line: int) -> tuple[Result | None, Side | None]:
    """The result and the side that resigned, if one did."""
    m = _RESULT.match(value)
    if not m:
        raise RecordError(
            f"result {value!r} is not like 'white wins 2 points (mars)', "
            "'black wins 1 point (oin), white resigned' or 'in progress'",
            line,
        )
    if m.group(6):
        return None, None
    winner = Side[m.group(1).upper()]
    try:
        kind = WinKind(m.group(3))
    except ValueError:
        raise RecordError(f"unknown kind of win {m.group(3)!r} in {value!r}", line) from None
    loser, how = m.group(4), m.group(5)
    if loser is not None and Side[loser.upper()] is not winner.other:
        raise RecordError(f"the winner cannot be the side that {how}: {value!r}", line)
    result = Result(winner, int(m.group(2)), kind, resigned=how == "resigned", dropped=how == "passed")
    return result, winner.other if result.resigned else None


def _parse_dice(text: str, line: int) -> Dice:
    try:
        return Dice.parse(text)
    except InvalidDiceError as exc:
        raise RecordError(str(exc), line) from None


def _parse_opening(value: str, line: int) -> list[list[int]]:
    if value in ("", "-"):
        return []
    rolls = []
    for item in value.split(","):
        dice = _parse_dice(item, line)
        rolls.append([dice.a, dice.b])
    return rolls


def parse_text(text: str) -> Record:
    """Read a record written by `to_text` and replay it: the identical game and the names."""
    lines = text.removeprefix("\ufeff").splitlines()
    header: dict[str, tuple[str, int]] = {}
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    while i < len(lines) and lines[i].strip():
        key, colon, value = lines[i].partition(":")
        key = key.strip()
        if not colon or key not in _HEADER_KEYS:
            raise RecordError(f"expected a header line like 'Variant: long', got {lines[i]!r}", i + 1)
        if key in header:
            raise RecordError(f"header {key!r} given twice", i + 1)
        header[key] = (value.strip(), i + 1)
        i += 1
    if "Variant" not in header:
        raise RecordError("the header has no 'Variant:' line", i + 1 if i < len(lines) else None)

    variant, variant_line = header["Variant"]
    if variant not in GAMES:
        raise RecordError(f"unknown variant {variant!r}; known: {', '.join(GAMES)}", variant_line)
    options = _parse_options(*header.get("Options", ("default", variant_line)))
    starter_text, starter_line = header.get("Starter", ("opening roll", variant_line))
    if starter_text not in ("opening roll", "white", "black"):
        raise RecordError(f"starter {starter_text!r} is not white, black or 'opening roll'", starter_line)
    opening = _parse_opening(*header.get("Opening rolls", ("-", starter_line)))
    if starter_text != "opening roll" and opening:
        raise RecordError(f"a game started by {starter_text} has no opening roll", starter_line)
    result_text, result_line = header.get("Result", ("in progress", variant_line))
    result, resigned = _parse_result(result_text, result_line)

    cube = _parse_cube(*header["Cube"]) if "Cube" in header else None
    turns: list[list[object]] = []
    turn_lines: list[int] = []
    actions: list[list[object]] = []
    action_lines: list[int] = []
    cube_value = 1  # the cube's value, to check each double's
    pending: tuple[Dice, int] | None = None
    for number, raw in enumerate(lines[i:], start=i + 1):
        if not raw.strip():
            continue
        if pending is not None:
            raise RecordError(f"nothing may follow the roll to play on line {pending[1]}: {raw!r}", number)
        m = _TURN.match(raw.strip())
        cube_match = None if m else _CUBE_ACTION.match(raw.strip())
        if not m and not cube_match:
            raise RecordError(
                f"expected a turn like '12. W 6-5: 24/13' or a cube action like '12. W doubles to 2', got {raw!r}",
                number,
            )
        entry = m or cube_match
        assert entry is not None
        if int(entry.group(1)) != len(turns) + len(actions) + 1:
            raise RecordError(
                f"turn number {entry.group(1)}, expected {len(turns) + len(actions) + 1}", number
            )
        side = _LETTER_SIDE[entry.group(2)]
        if cube_match:
            if cube_match.group(3) is not None and int(cube_match.group(3)) != cube_value * 2:
                raise RecordError(
                    f"the cube is at {cube_value}: a double is to {cube_value * 2}, not {cube_match.group(3)}",
                    number,
                )
            action = "double" if cube_match.group(3) else "take" if cube_match.group(4) else "pass"
            cube_value *= 2 if action == "take" else 1
            actions.append(CubeAction(len(turns), side, action).to_json())
            action_lines.append(number)
            continue
        assert m is not None
        dice = _parse_dice(m.group(3), number)
        if m.group(4) is None:
            pending = (dice, number)
            continue
        turns.append(TurnRecord(side, dice, m.group(4) or "pass").to_json())
        turn_lines.append(number)

    record: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "game": variant,
        "options": options.to_json(),
        "starter": None if starter_text == "opening roll" else starter_text,
        "opening_rolls": opening,
        "turns": turns,
        "dice": str(pending[0]) if pending else None,
        "resigned": resigned.label if resigned is not None else None,
        **({"cube": cube.to_json(), "cube_actions": actions} if cube is not None else {}),
    }
    if cube is None and actions:
        raise RecordError(
            "a cube action in a game without the cube (no 'Cube:' header line)", action_lines[0]
        )
    where: dict[str, Any] = {
        "turns": turn_lines,
        "cube": action_lines,
        "opening": header.get("Opening rolls", ("", starter_line))[1],
        "pending": pending[1] if pending else None,
        "result": result_line,
    }
    game = replay(record, where)
    if game.result != result:
        raise RecordError(
            f"the record says {format_result(result)!r} but the turns give {format_result(game.result)!r}",
            result_line,
        )
    white = clean_name(header.get("White", ("White", 0))[0])
    black = clean_name(header.get("Black", ("Black", 0))[0])
    return Record(game, white, black)


def from_text(text: str) -> Game:
    """The game of a record written by `to_text` (see `parse_text` for the names too)."""
    return parse_text(text).game
