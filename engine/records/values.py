"""What every record format shares: the error a record that does not read raises, the game read back with
the players' names, names cleaned to one line, a result as the records write it, and the games of a match
with the score before each (the .mat and the match text both walk them)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import GameRecordError, NardyError
from engine.game import Game
from engine.match import Match
from engine.scoring import Result

# a cube action's answer as the text records write it (`W takes`, `B passes`); a double is `doubles to N`
CUBE_WORDS = {"take": "takes", "pass": "passes"}


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


def clean_name(name: str) -> str:
    """A name on one line: runs of whitespace (newlines included) become one space."""
    return " ".join(name.split())


def format_result(result: Result | None) -> str:
    """`white wins 2 points (mars)`, `black wins 1 point (oin), white resigned`, or `in progress`."""
    if result is None:
        return "in progress"
    points = f"{result.points} point{'s' if result.points != 1 else ''}"
    text = f"{result.winner.label} wins {points} ({result.kind.value})"
    if result.resigned or result.dropped:
        text += f", {result.winner.other.label} {'resigned' if result.resigned else 'passed'}"
    return text


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
