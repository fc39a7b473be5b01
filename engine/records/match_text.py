"""A whole match as plain text: a header with its length, cube, players and score, then each game's
record (as engine/records/text.py writes it) under a `Game k: white 1, black 0` line; read back by
replaying every game and checking each game's score and Crawford mark against the results before it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.game import Game
from engine.match import Match
from engine.records.text import parse_text, to_text
from engine.records.values import RecordError, clean_name, match_games

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
