"""Game records as files: GNU Backgammon's .mat for short nardy, and text and JSON for both games.

Pure functions of a `Game` and the players' names: they return text and parse text, nothing else.

- `to_mat` writes a short-nardy game as a Jellyfish/GNU Backgammon match file (`import mat FILE`): a
  1-point match of one game, laid out as gnubg's own `export match mat` lays it out.
- `to_text` / `from_text`: a plain-text record in the project's notation, a header then numbered turns::

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

- `to_json` / `from_json`: the engine's record (`Game.record()`) with the names and the result.

Parsing replays every turn through the rules (`Game.replay`), so a record that breaks them raises a
`RecordError` (a ValueError) naming the line, or the turn, and what was wrong.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from engine.dice import Dice
from engine.errors import GameRecordError, InvalidDiceError, NardyError, OptionsError
from engine.game import FORMAT_VERSION, Game, Phase, TurnRecord
from engine.options import Options
from engine.rules import GAMES
from engine.scoring import Result, WinKind
from engine.sides import BAR, OFF, Side

JSON_FORMAT = "nardy-record"
JSON_VERSION = 1

# GNU Backgammon's own .mat layout (export.c): names in a 31-character column, "%3d) " before each
# line of moves, the left (first) player's move in a 28-character column.
_MAT_NAME_WIDTH = 31
_MAT_MOVE_WIDTH = 28
_MAT_LEFT_WINS = " " * 6
_MAT_RIGHT_WINS = " " * 34
_MAT_NAME_BYTES = 31  # gnubg keeps MAX_NAME_LEN - 1 = 31 bytes of a name


class RecordError(GameRecordError):
    """A game record file that does not read, or whose turns break the rules. `line` is the 1-based
    line of the text it names (None when the fault is not on one line)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line is not None else message)
        self.line = line


@dataclass(frozen=True, slots=True)
class Record:
    """A game read back from a file, with the players' names."""

    game: Game
    white: str
    black: str


# ----- names ---------------------------------------------------------------------------------------


def clean_name(name: str) -> str:
    """A name on one line: runs of whitespace (newlines included) become one space."""
    return " ".join(name.split())


def _mat_name(name: str, fallback: str) -> str:
    """A name gnubg's .mat reader keeps whole: no colon (it ends the name), at most 31 UTF-8 bytes."""
    cleaned = clean_name(name.replace(":", " ")) or fallback
    data = cleaned.encode()[:_MAT_NAME_BYTES]
    return data.decode(errors="ignore").rstrip() or fallback


# ----- GNU Backgammon .mat ------------------------------------------------------------------------


def _mat_point(point: int) -> str:
    return "25" if point == BAR else "0" if point == OFF else str(point)


def mat_play(game_play: str) -> str:
    """A play of the record (`bar/22 6/off 13/8*`) as a .mat writes it (`25/22 6/0 13/8*`): gnubg's
    export numbers the bar 25 and borne off 0, each side counting from its own home as ours does."""
    if game_play == "pass":
        return ""
    return " ".join("/".join(_mat_hop(hop) for hop in move.split("/")) for move in game_play.split())


def _mat_hop(text: str) -> str:
    mark = "*" if text.endswith("*") else ""
    return _mat_point(_point_number(text.removesuffix("*"))) + mark


def _point_number(text: str) -> int:
    return BAR if text == "bar" else OFF if text == "off" else int(text)


def to_mat(game: Game, *, white: str, black: str) -> str:
    """A short-nardy game as a GNU Backgammon match file: `gnubg -t`, then `import mat FILE`.

    One game is written as a 1-point match, White the first (left) player. Not as a money session
    ("0 point match"): gnubg applies its own Jacoby setting to imported money games (on by default),
    which scores a mars or koks without a cube as a single game; in a match gammons count, so gnubg's
    score equals ours. Each play is written from its mover's side (24 = farthest point, 25 = the bar,
    0 = off), hits marked `*`. A game won by bearing off ends with gnubg's `Wins N point(s)` line; a
    resigned one too, which gnubg reads as the loser resigning a single, mars or koks. A roll not yet
    played is left out: gnubg would play a forced move for it. Only a game resigned on its opening roll,
    before any play, shows that roll with no play, as gnubg needs a roll to have a game to resign."""
    if game.game != "short":
        raise RecordError(f".mat files hold backgammon (short nardy), not {game.game} nardy")
    names = (_mat_name(white, "White"), _mat_name(black, "Black"))
    lines = [
        '; [Variation "Backgammon"]',
        "",
        " 1 point match",
        "",
        " Game 1",
        f"{f' {names[0]} : 0':<{_MAT_NAME_WIDTH}} {names[1]} : 0",
    ]
    turns = [(t.side, f"{t.dice.a}{t.dice.b}: {mat_play(t.play)}".rstrip()) for t in game.history]
    if not turns and game.result is not None and game.opening and game.rules.opening_dice_are_first_roll:
        # Resigned on the opening roll: gnubg needs the roll (with no play) to have a game to resign.
        high, low = max(game.opening), min(game.opening)
        turns.append((game.turn, f"{high}{low}:"))
    cells = ([""] if turns and turns[0][0] is Side.BLACK else []) + [cell for _, cell in turns]
    for number, start in enumerate(range(0, len(cells), 2), start=1):
        left, right = cells[start], cells[start + 1] if start + 1 < len(cells) else ""
        if right:
            left = left.ljust(_MAT_MOVE_WIDTH) if len(left) < _MAT_MOVE_WIDTH else left + "  "
        lines.append(f"{number:3d}) {left}{right}".rstrip())
    if game.result is not None:
        points = game.result.points
        indent = _MAT_LEFT_WINS if game.result.winner is Side.WHITE else _MAT_RIGHT_WINS
        lines.append(f"{indent}Wins {points} point{'s' if points != 1 else ''}")
    return "\n".join(lines) + "\n\n"


# ----- plain text ----------------------------------------------------------------------------------

_SIDE_LETTER = {Side.WHITE: "W", Side.BLACK: "B"}
_LETTER_SIDE = {"W": Side.WHITE, "B": Side.BLACK}
_HEADER_KEYS = ("Variant", "Options", "White", "Black", "Starter", "Opening rolls", "Result")
_TURN = re.compile(r"^(\d+)\.\s+([WB])\s+(\d-\d)(?::\s*(.*?)|\s+\(to play\))\s*$")
_RESULT = re.compile(
    r"^(white|black) wins (\d+) points? \((\w+)\)(?:, (white|black) resigned)?$|^(in progress)$"
)


def _result_text(result: Result | None) -> str:
    if result is None:
        return "in progress"
    points = f"{result.points} point{'s' if result.points != 1 else ''}"
    text = f"{result.winner.label} wins {points} ({result.kind.value})"
    return text + (f", {result.winner.other.label} resigned" if result.resigned else "")


def _options_text(options: Options) -> str:
    values = options.to_json()
    if not values:
        return "default"
    return ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in sorted(values.items()))


def _starter_text(game: Game) -> str:
    return game.starter.label if game.starter is not None else "opening roll"


def to_text(game: Game, *, white: str = "White", black: str = "Black") -> str:
    """The game as a plain-text record: a header, a blank line, then one numbered line a turn
    (`12. B 6-6: 24/18 24/18 13/7 13/7`, `pass` when no move was possible), and the roll on turn
    that is not played yet as `13. W 5-2 (to play)`."""
    opening = ", ".join(f"{w}-{b}" for w, b in game.opening_rolls) or "-"
    header = {
        "Variant": game.game,
        "Options": _options_text(game.rules.options),
        "White": clean_name(white),
        "Black": clean_name(black),
        "Starter": _starter_text(game),
        "Opening rolls": opening,
        "Result": _result_text(game.result),
    }
    lines = [f"{key}: {value}".rstrip() for key, value in header.items()]
    lines.append("")
    for number, turn in enumerate(game.history, start=1):
        lines.append(f"{number}. {_SIDE_LETTER[turn.side]} {turn.dice}: {turn.play}")
    if game.phase is Phase.MOVE and game.dice is not None:
        lines.append(f"{len(game.history) + 1}. {_SIDE_LETTER[game.turn]} {game.dice} (to play)")
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
    if m.group(5):
        return None, None
    winner = Side[m.group(1).upper()]
    try:
        kind = WinKind(m.group(3))
    except ValueError:
        raise RecordError(f"unknown kind of win {m.group(3)!r} in {value!r}", line) from None
    resigned = m.group(4)
    if resigned is not None and Side[resigned.upper()] is not winner.other:
        raise RecordError(f"the winner cannot be the side that resigned: {value!r}", line)
    result = Result(winner, int(m.group(2)), kind, resigned is not None)
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

    turns: list[list[object]] = []
    turn_lines: list[int] = []
    pending: tuple[Dice, int] | None = None
    for number, raw in enumerate(lines[i:], start=i + 1):
        if not raw.strip():
            continue
        if pending is not None:
            raise RecordError(f"nothing may follow the roll to play on line {pending[1]}: {raw!r}", number)
        m = _TURN.match(raw.strip())
        if not m:
            raise RecordError(f"expected a turn like '12. W 6-5: 24/13', got {raw!r}", number)
        if int(m.group(1)) != len(turns) + 1:
            raise RecordError(f"turn number {m.group(1)}, expected {len(turns) + 1}", number)
        side = _LETTER_SIDE[m.group(2)]
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
    }
    where: dict[str, Any] = {
        "turns": turn_lines,
        "opening": header.get("Opening rolls", ("", starter_line))[1],
        "pending": pending[1] if pending else None,
        "result": result_line,
    }
    game = _replay(record, where)
    if game.result != result:
        raise RecordError(
            f"the record says {_result_text(result)!r} but the turns give {_result_text(game.result)!r}",
            result_line,
        )
    white = clean_name(header.get("White", ("White", 0))[0])
    black = clean_name(header.get("Black", ("Black", 0))[0])
    return Record(game, white, black)


def from_text(text: str) -> Game:
    """The game of a record written by `to_text` (see `parse_text` for the names too)."""
    return parse_text(text).game


def _replay(record: dict[str, Any], where: dict[str, Any]) -> Game:
    """Game.replay; when it fails, a RecordError naming the first line that does not replay (`where`
    gives the lines of the parts: opening, turns, pending, result)."""
    try:
        return Game.replay(record)
    except NardyError as exc:
        part, index, message = _locate(record, exc)
    line = where["turns"][index] if part == "turn" else where[part]
    raise RecordError(message, line) from None


def _locate(record: dict[str, Any], failure: NardyError) -> tuple[str, int, str]:
    """Which part of a record that does not replay is at fault, as (part, turn index, what is wrong),
    the part one of opening, turn, pending and result: found by replaying ever longer beginnings of the
    record (a binary search over the turns)."""
    turns = record.get("turns")
    if not isinstance(turns, list):
        return "opening", 0, _detail(failure)

    def beginning(count: int, dice: str | None = None) -> Game | None:
        try:
            return Game.replay({**record, "turns": turns[:count], "dice": dice, "resigned": None})
        except NardyError:
            return None

    if beginning(0) is None:
        return "opening", 0, _detail(failure)
    good, bad = 0, len(turns) + 1  # the first `good` turns replay, the first `bad` do not
    while bad - good > 1:
        mid = (good + bad) // 2
        if beginning(mid) is None:
            bad = mid
        else:
            good = mid
    if good < len(turns):
        before = beginning(good)
        assert before is not None
        return "turn", good, _turn_fault(before, turns[good], failure)
    if record.get("dice") and beginning(good, record["dice"]) is None:
        return "pending", 0, _detail(failure)
    return "result", 0, _detail(failure)


def _detail(exc: NardyError) -> str:
    """The engine's message without Game.replay's wrapper."""
    return str(exc).removeprefix("game record does not replay: ")


def _turn_fault(before: Game, raw: Any, failure: NardyError) -> str:
    """What is wrong with one turn, given the game just before it."""
    try:
        turn = TurnRecord.from_json(raw)
    except NardyError as exc:
        return str(exc)
    if before.is_over:
        return f"turn {turn.side.label} {turn.dice} {turn.play!r} comes after the end of the game"
    if before.phase is Phase.OPENING:
        return "the opening rolls have not decided who starts"
    expected = before.turn
    if turn.side is not expected:
        return f"it is {expected.label}'s turn, not {turn.side.label}'s"
    if before.phase is Phase.MOVE and before.dice != turn.dice:
        return f"{expected.label} has {before.dice} to play, not {turn.dice}"
    game = before.roll(turn.dice.a, turn.dice.b) if before.phase is Phase.ROLL else before
    try:
        game.play(turn.play)
    except NardyError as exc:
        return str(exc)
    return _detail(failure)


# ----- JSON ----------------------------------------------------------------------------------------


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
        part, index, message = _locate(data["record"], exc)
        where = {
            "turn": f"turn {index + 1} {data['record']['turns'][index]!r}" if part == "turn" else "",
            "opening": "the record's start",
            "pending": f"the roll to play {data['record'].get('dice')!r}",
            "result": f"the resignation {data['record'].get('resigned')!r}",
        }[part]
        raise RecordError(f"{where}: {message}") from None
    try:
        result = Result.from_json(data["result"]) if data.get("result") is not None else None
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"bad result {data.get('result')!r}: {type(exc).__name__}: {exc}") from None
    if result != game.result:
        raise RecordError(
            f"the record says {_result_text(result)!r} but the turns give {_result_text(game.result)!r}"
        )
    return Record(game, data["white"], data["black"])


def from_json(text: str) -> Game:
    """The game of a record written by `to_json` (see `parse_json` for the names too)."""
    return parse_json(text).game
