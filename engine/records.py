"""Game records as files: GNU Backgammon's .mat for short nardy, and text and JSON for both games.

Pure functions of a `Game` and the players' names: they return text and parse text, nothing else.

- `to_mat` writes a short-nardy game as a Jellyfish/GNU Backgammon match file (`import mat FILE`): a
  1-point match of one game (a money game when its cube was offered), laid out as gnubg's own
  `export match mat` lays it out, doubles, takes and passes included; `match_to_mat` writes every game
  of a match to N points the same way, each with the score before it.
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

  A game with the cube has a `Cube:` header line and its cube actions as numbered lines of their own
  (`12. W doubles to 2`, `13. B takes`). `match_to_text` / `parse_match_text`: a match, a header with
  its length and score, then each game's record under a `Game k: white 1, black 0` line.
- `to_json` / `from_json`: the engine's record (`Game.record()`, its cube and cube actions included)
  with the names and the result.

Parsing replays every turn through the rules (`Game.replay`), so a record that breaks them raises a
`RecordError` (a ValueError) naming the line, or the turn, and what was wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.cube import Cube, CubeAction
from engine.dice import Dice
from engine.errors import GameRecordError, InvalidDiceError, NardyError, OptionsError
from engine.game import FORMAT_VERSION, Game, Phase, TurnRecord
from engine.match import Match
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
# gnubg's export writes a game's score line as " %-31s%s : %d": the first player's "NAME : SCORE" padded to
# 31 bytes, the second player's right after it. A cell of 31 bytes or more glues the two ("…Петров : 0Bob"),
# and gnubg cannot read its own file back: the first player's cell must stay within 30 bytes.
_MAT_LEFT_CELL_BYTES = 30


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


def _mat_name(name: str, fallback: str, limit: int = _MAT_NAME_BYTES) -> str:
    """A name gnubg's .mat reader keeps whole: no colon (it ends the name), at most `limit` UTF-8 bytes,
    cut between characters."""
    cleaned = clean_name(name.replace(":", " ")) or fallback
    data = cleaned.encode()[:limit]
    return data.decode(errors="ignore").rstrip() or fallback


def mat_names(white: str, black: str, scores: Iterable[tuple[int, int]] = ((0, 0),)) -> tuple[str, str]:
    """The players' names as a .mat file of games with these scores writes them: both cut to one limit,
    so that the first player's `NAME : SCORE` fits gnubg's 30 bytes for the widest score (26 bytes for
    scores below 10) and the file survives gnubg's import, its export and a second import unchanged."""
    digits = max((len(str(score)) for pair in scores for score in pair), default=1)
    limit = min(_MAT_NAME_BYTES, _MAT_LEFT_CELL_BYTES - len(" : ") - digits)
    return _mat_name(white, "White", limit), _mat_name(black, "Black", limit)


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


def _mat_money(game: Game) -> bool:
    """Whether a single game is written as a money game: when its cube was offered (a 1-point match has
    no live cube) or it is played under the Jacoby rule (which gnubg applies to money games only)."""
    return game.cube is not None and (game.cube.jacoby or bool(game.cube_actions))


def _mat_header(length: int, comments: tuple[str, ...] = ()) -> list[str]:
    return ['; [Variation "Backgammon"]', *(f"; {c}" for c in comments), "", f" {length} point match", ""]


def _mat_score_line(names: tuple[str, str], score: tuple[int, int]) -> str:
    """` White : 0   Black : 0`, the first cell padded to 31 bytes as gnubg's C printf pads it (not to 31
    characters: a Cyrillic or emoji name takes more bytes than characters)."""
    left = f" {names[0]} : {score[0]}"
    return f"{left}{' ' * (_MAT_NAME_WIDTH - len(left.encode()))} {names[1]} : {score[1]}"


def _points_text(points: int) -> str:
    return f"{points} point{'s' if points != 1 else ''}"


def _mat_cells(game: Game) -> list[tuple[Side, str]]:
    """The game's cells in order, each in its side's column: rolls with their plays, cube actions
    (` Doubles => 2`, ` Takes`, ` Drops`) before the turn they came before, and the winner's
    ` Wins N points` last."""
    cells: list[tuple[Side, str]] = []
    value = 1

    def cube_cells(turn: int) -> None:
        nonlocal value
        for action in (a for a in game.cube_actions if a.turn == turn):
            if action.action == "double":
                cells.append((action.side, f" Doubles => {value * 2}"))
            elif action.action == "take":
                value *= 2
                cells.append((action.side, " Takes"))
            else:
                cells.append((action.side, " Drops"))

    for index, turn in enumerate(game.history):
        cube_cells(index)
        cells.append((turn.side, f"{turn.dice.a}{turn.dice.b}: {mat_play(turn.play)}".rstrip()))
    cube_cells(len(game.history))
    if not cells and game.result is not None and game.opening and game.rules.opening_dice_are_first_roll:
        # Resigned on the opening roll: gnubg needs the roll (with no play) to have a game to resign.
        cells.append((game.turn, f"{max(game.opening)}{min(game.opening)}:"))
    if game.result is not None:
        cells.append((game.result.winner, f" Wins {_points_text(game.result.points)}"))
    return cells


def _mat_game(game: Game, number: int, names: tuple[str, str], score: tuple[int, int]) -> list[str]:
    """One game as gnubg's export lays it out (export.c, ExportGameJF): White's cells on the left after
    `%3d) `, Black's in a column 28 wide to their right. The winner's `Wins` line: White's on a line of
    its own, Black's to the right of a White cell on the same line, or on a line of its own."""
    if game.game != "short":
        raise RecordError(f".mat files hold backgammon (short nardy), not {game.game} nardy")
    lines = [f" Game {number}", _mat_score_line(names, score)]
    left: str | None = None  # White's cell of the line being written
    count = 0

    def flush(right: str = "") -> None:
        nonlocal left, count
        assert left is not None
        count += 1
        text = left
        if right:
            text = left.ljust(_MAT_MOVE_WIDTH) if len(left) < _MAT_MOVE_WIDTH else left + "  "
        lines.append(f"{count:3d}) {text}{right}".rstrip())
        left = None

    cells = _mat_cells(game)
    for index, (side, cell) in enumerate(cells):
        wins = game.result is not None and index == len(cells) - 1
        if side is Side.WHITE:
            if left is not None:
                flush()
            if wins:
                lines.append(_MAT_LEFT_WINS[:-1] + cell)
            else:
                left = cell
        elif wins and left is None:
            lines.append(_MAT_RIGHT_WINS[:-1] + cell)
        else:
            if left is None:
                left = ""
            flush(cell)
    if left is not None:
        flush()
    return [*lines, ""]


def to_mat(game: Game, *, white: str, black: str) -> str:
    """A short-nardy game as a GNU Backgammon match file: `gnubg -t`, then `import mat FILE`.

    White is the first (left) player. A game whose cube was never offered is written as a 1-point match,
    not as a money session ("0 point match"): gnubg applies its own Jacoby setting to imported money games
    (on by default), which scores a mars or koks without a cube as a single game; in a match gammons
    count, so gnubg's score equals ours. A game whose cube was offered is written as a money game (a
    1-point match cannot hold a live cube): gnubg multiplies by the cube as we do, and its Jacoby setting
    cannot change the score, as Jacoby only counts while the cube was never turned, and an offered cube
    was either turned, passed, or still offered when the game was resigned. A single game under the
    Jacoby rule is a money game too: gnubg scores it as we do under its default Jacoby setting (on).
    A game of a match is written here as a game on its own; `match_to_mat` writes it in its match.

    Each play is written from its mover's side (24 = farthest point, 25 = the bar, 0 = off), hits marked
    `*`; a double as ` Doubles => 2` in the doubler's column, the answer as ` Takes` or ` Drops` in the
    other's. A game won by bearing off or by a pass ends with gnubg's `Wins N point(s)` line; a resigned
    one too, which gnubg reads as the loser resigning a single, mars or koks at the cube's value. A roll
    not yet played is left out: gnubg would play a forced move for it. Only a game resigned on its
    opening roll, before any play, shows that roll with no play, as gnubg needs a roll to have a game to
    resign."""
    names = mat_names(white, black)
    if not _mat_money(game):
        return "\n".join(_mat_header(1) + _mat_game(game, 1, names, (0, 0))) + "\n"
    assert game.cube is not None
    comment = (
        f"a single game with the doubling cube: money play, Jacoby rule {'on' if game.cube.jacoby else 'off'}"
    )
    return "\n".join(_mat_header(0, (comment,)) + _mat_game(game, 1, names, (0, 0))) + "\n"


@dataclass(frozen=True, slots=True)
class MatchGame:
    """One game of a match as the match's records show it: the score before it, whether it is the
    Crawford game, and whether it is the game being played (not yet one of the match's finished games)."""

    game: Game
    score: tuple[int, int]
    crawford: bool
    current: bool


def match_games(match: Match, current: Game | None) -> list[MatchGame]:
    """The match's finished games (its records, oldest first) and the current game, each with the score
    before it. `current` is left out when it is the last finished game already. Raises RecordError when a
    record does not load, a finished game has no result, the results do not add up to the match's score,
    or a current game follows a match that is over."""
    rebuilt = Match(length=match.length, cube=match.cube, jacoby=match.jacoby)
    games: list[MatchGame] = []
    for number, data in enumerate(match.games, start=1):
        try:
            game = Game.from_json(data)
        except NardyError as exc:
            raise RecordError(f"game {number} of the match does not load: {exc}") from None
        if game.result is None:
            raise RecordError(f"game {number} of the match is stored as finished but has no result")
        games.append(MatchGame(game, rebuilt.score, rebuilt.crawford, current=False))
        rebuilt = rebuilt.after(game.result, data)
    if rebuilt.score != match.score:
        raise RecordError(
            f"the match's score {match.score[0]}-{match.score[1]} is not what its {len(games)} games' results "
            f"add up to, {rebuilt.score[0]}-{rebuilt.score[1]}: a game's record is missing"
        )
    if current is not None and not (match.games and current.to_json() == match.games[-1]):
        if match.over:
            raise RecordError(
                f"the match is over at {match.score[0]}-{match.score[1]}: no current game can follow it"
            )
        games.append(MatchGame(current, match.score, match.crawford, current=True))
    return games


def match_to_mat(match: Match, current: Game | None, *, white: str, black: str) -> str:
    """Every game of a match as one GNU Backgammon match file: ` N point match`, then each game's
    ` Game k` with the score before it (the layout of gnubg's `export match mat`), the current game last.

    gnubg's export does not mark the Crawford game and its import does not read a mark: it takes the
    first game where one player needs a single point as the Crawford game, as `Match.after` does, so the
    scores alone carry it. A series of single games (`length` 1) is written as a money session ("0 point
    match") of its games, as a 1-point match ends with its first game; gnubg scores its games as we do
    when its Jacoby setting is ours (the file's comment says which): the setting only matters for a mars
    or koks borne off while the cube was never turned. A series of one game is written as `to_mat`
    writes that game."""
    games = match_games(match, current)
    names = mat_names(white, black, (item.score for item in games))
    if not match.is_match and len(games) == 1:
        return to_mat(games[0].game, white=white, black=black)
    if match.is_match:
        header = _mat_header(match.length)
    else:
        cube = "with the doubling cube" if match.cube else "without the cube"
        jacoby = "on" if match.jacoby else "off"
        header = _mat_header(0, (f"single games {cube}: money play, Jacoby rule {jacoby}",))
    lines = header
    for number, item in enumerate(games, start=1):
        lines += _mat_game(item.game, number, names, item.score)
    return "\n".join(lines) + "\n"


# ----- plain text ----------------------------------------------------------------------------------

_SIDE_LETTER = {Side.WHITE: "W", Side.BLACK: "B"}
_LETTER_SIDE = {"W": Side.WHITE, "B": Side.BLACK}
_HEADER_KEYS = ("Variant", "Options", "White", "Black", "Starter", "Opening rolls", "Cube", "Result")
_TURN = re.compile(r"^(\d+)\.\s+([WB])\s+(\d-\d)(?::\s*(.*?)|\s+\(to play\))\s*$")
_CUBE_ACTION = re.compile(r"^(\d+)\.\s+([WB])\s+(?:doubles to (\d+)|(takes)|(passes))\s*$")
_CUBE_WORD = {"take": "takes", "pass": "passes"}
_RESULT = re.compile(
    r"^(white|black) wins (\d+) points? \((\w+)\)(?:, (white|black) (resigned|passed))?$|^(in progress)$"
)
_CUBE_RULES = re.compile(
    r"^money(, Jacoby)?$|^match, white needs (\d+), black needs (\d+)(, Crawford game)?$"
)


def _result_text(result: Result | None) -> str:
    if result is None:
        return "in progress"
    points = f"{result.points} point{'s' if result.points != 1 else ''}"
    text = f"{result.winner.label} wins {points} ({result.kind.value})"
    if result.resigned or result.dropped:
        text += f", {result.winner.other.label} {'resigned' if result.resigned else 'passed'}"
    return text


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
                word = _CUBE_WORD[action.action]
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
        "Result": _result_text(game.result),
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
    line = (
        where["turns"][index] if part == "turn" else where["cube"][index] if part == "cube" else where[part]
    )
    raise RecordError(message, line) from None


def _locate(record: dict[str, Any], failure: NardyError) -> tuple[str, int, str]:
    """Which part of a record that does not replay is at fault, as (part, index, what is wrong), the part
    one of opening, turn, cube (the index into the turns or the cube actions), pending and result: found
    by replaying ever longer beginnings of the record, its turns and cube actions in the order they were
    made (a binary search over them)."""
    turns = record.get("turns")
    raw_actions = record.get("cube_actions") or []
    if not isinstance(turns, list) or not isinstance(raw_actions, list):
        return "opening", 0, _detail(failure)
    actions: list[CubeAction] = []
    for index, raw in enumerate(raw_actions):
        try:
            actions.append(CubeAction.from_json(raw))
        except (TypeError, ValueError) as exc:
            return "cube", index, f"bad cube action {raw!r}: {exc}"
    # the steps of the game in order: ("cube", index into actions) before ("turn", index into turns)
    steps: list[tuple[str, int, int]] = sorted(
        [("cube", i, action.turn) for i, action in enumerate(actions)]
        + [("turn", i, i) for i in range(len(turns))],
        key=lambda step: (step[2], step[0] == "turn", step[1]),
    )

    def beginning(count: int, dice: str | None = None) -> Game | None:
        made = steps[:count]
        cube = sorted(i for kind, i, _ in made if kind == "cube")
        played = sum(kind == "turn" for kind, _, _ in made)
        try:
            return Game.replay(
                {
                    **record,
                    "turns": turns[:played],
                    "cube_actions": [raw_actions[i] for i in cube],
                    "dice": dice,
                    "resigned": None,
                }
            )
        except NardyError:
            return None

    if beginning(0) is None:
        return "opening", 0, _detail(failure)
    good, bad = 0, len(steps) + 1  # the first `good` steps replay, the first `bad` do not
    while bad - good > 1:
        mid = (good + bad) // 2
        if beginning(mid) is None:
            bad = mid
        else:
            good = mid
    if good < len(steps):
        before = beginning(good)
        assert before is not None
        kind, index, _ = steps[good]
        if kind == "cube":
            return "cube", index, _cube_fault(before, actions[index], failure)
        return "turn", index, _turn_fault(before, turns[index], failure)
    if record.get("dice") and beginning(good, record["dice"]) is None:
        return "pending", 0, _detail(failure)
    return "result", 0, _detail(failure)


def _cube_fault(before: Game, action: CubeAction, failure: NardyError) -> str:
    """What is wrong with one cube action, given the game just before it."""
    what = f"{action.side.label} {_CUBE_WORD.get(action.action, 'doubles')}"
    if before.is_over:
        return f"cube action {what!r} comes after the end of the game"
    if action.side is not before.deciding:
        waiting = "answer to the double" if before.phase is Phase.CUBE else "turn"
        return f"cube action {what!r}: it is {before.deciding.label}'s {waiting}"
    try:
        {"double": Game.double, "take": Game.take, "pass": Game.drop}[action.action](before)
    except NardyError as exc:
        return f"cube action {what!r}: {exc}"
    return _detail(failure)


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
    if before.phase is Phase.CUBE:
        return f"{before.deciding.label} must take or pass the double before {turn.side.label} plays"
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
            f"the record says {_result_text(result)!r} but the turns give {_result_text(game.result)!r}"
        )
    return Record(game, data["white"], data["black"])


def from_json(text: str) -> Game:
    """The game of a record written by `to_json` (see `parse_json` for the names too)."""
    return parse_json(text).game


# ----- matches as plain text -------------------------------------------------------------------------

_MATCH_KEYS = ("Match", "Cube", "White", "Black", "Score")
_GAME_HEADING = re.compile(r"^Game (\d+): white (\d+), black (\d+)((?:, Crawford game)?)((?:, current)?)$")


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match read back from a file: the match (its finished games' records in it), the game being
    played (None when there is none), and the players' names."""

    match: Match
    current: Game | None
    white: str
    black: str


def _score_text(score: tuple[int, int]) -> str:
    return f"white {score[0]}, black {score[1]}"


def match_to_text(match: Match, current: Game | None, *, white: str = "White", black: str = "Black") -> str:
    """A match as a plain-text record: a header (its length, cube, players and score), then each game
    under a `Game k: white 2, black 0` line with the score before it (`, Crawford game` marks the
    Crawford game, `, current` the game being played), as `to_text` writes it::

        Match: 3 points
        Cube: on
        White: Alice
        Black: Bob
        Score: white 3, black 1, white wins the match

        Game 1: white 0, black 0
        Variant: short
        ...

    A series of single games is `Match: single games`; `Cube:` is `off`, `on` or `on, Jacoby`."""
    games = match_games(match, current)
    score = _score_text(match.score)
    if match.winner is not None:
        score += f", {match.winner.label} wins the match"
    header = {
        "Match": f"{match.length} points" if match.is_match else "single games",
        "Cube": ("on, Jacoby" if match.jacoby else "on") if match.cube else "off",
        "White": clean_name(white),
        "Black": clean_name(black),
        "Score": score,
    }
    lines = [f"{key}: {value}".rstrip() for key, value in header.items()]
    for number, item in enumerate(games, start=1):
        flags = (", Crawford game" if item.crawford else "") + (", current" if item.current else "")
        lines += ["", f"Game {number}: {_score_text(item.score)}{flags}"]
        lines.append(to_text(item.game, white=white, black=black).rstrip("\n"))
    return "\n".join(lines) + "\n"


def parse_match_text(text: str) -> MatchRecord:
    """Read a match written by `match_to_text` and replay every game: the identical match, its current
    game and the names. Each game's score and Crawford mark are checked against the results before it."""
    lines = text.removeprefix("\ufeff").splitlines()
    header: dict[str, tuple[str, int]] = {}
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    while i < len(lines) and lines[i].strip():
        key, colon, value = lines[i].partition(":")
        if not colon or key.strip() not in _MATCH_KEYS or key.strip() in header:
            raise RecordError(f"expected a match header line like 'Match: 3 points', got {lines[i]!r}", i + 1)
        header[key.strip()] = (value.strip(), i + 1)
        i += 1
    for key in _MATCH_KEYS:
        if key not in header:
            raise RecordError(f"the match header has no {key!r} line", i + 1 if i < len(lines) else None)
    length_text, length_line = header["Match"]
    m = re.fullmatch(r"(\d+) points", length_text)
    if length_text != "single games" and not m:
        raise RecordError(f"match {length_text!r} is not like '3 points' or 'single games'", length_line)
    cube_text, cube_line = header["Cube"]
    if cube_text not in ("off", "on", "on, Jacoby"):
        raise RecordError(f"cube {cube_text!r} is not 'off', 'on' or 'on, Jacoby'", cube_line)
    try:
        match = Match(
            length=int(m.group(1)) if m else 1, cube=cube_text != "off", jacoby=cube_text == "on, Jacoby"
        )
    except ValueError as exc:
        raise RecordError(str(exc), length_line) from None
    white, black = clean_name(header["White"][0]), clean_name(header["Black"][0])

    headings = [n for n in range(i, len(lines)) if lines[n].startswith("Game ")]
    current: Game | None = None
    for k, start in enumerate(headings):
        heading = _GAME_HEADING.match(lines[start].strip())
        if not heading or int(heading.group(1)) != k + 1:
            raise RecordError(f"expected 'Game {k + 1}: white 0, black 0', got {lines[start]!r}", start + 1)
        if current is not None:
            raise RecordError(f"game {k + 1} follows the current game", start + 1)
        score = (int(heading.group(2)), int(heading.group(3)))
        if score != match.score or bool(heading.group(4)) is not match.crawford:
            expected = _score_text(match.score) + (", Crawford game" if match.crawford else "")
            raise RecordError(f"game {k + 1} starts at {expected} after the games before it", start + 1)
        end = headings[k + 1] if k + 1 < len(headings) else len(lines)
        try:
            record = parse_text("\n".join(lines[start + 1 : end]))
        except RecordError as exc:
            message = str(exc).removeprefix(f"line {exc.line}: ")
            raise RecordError(message, exc.line + start + 1 if exc.line is not None else start + 1) from None
        if heading.group(5):
            current = record.game
        elif record.game.result is None:
            raise RecordError(f"game {k + 1} is not over and not the current game", start + 1)
        else:
            if match.over:
                raise RecordError(f"game {k + 1} follows the end of the match", start + 1)
            match = match.after(record.game.result, record.game.to_json())
    score_text, score_line = header["Score"]
    expected = _score_text(match.score) + (
        f", {match.winner.label} wins the match" if match.winner is not None else ""
    )
    if score_text != expected:
        raise RecordError(f"the score is {score_text!r} but the games give {expected!r}", score_line)
    return MatchRecord(match, current, white, black)
