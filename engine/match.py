"""A match to N points, or a single game (with its rematches), as one frozen value.

A match is a series of games of one variant between the same two players; each game's result (its
points, the cube's value included) is added to the winner's score, and the first to reach the match's
length wins it. The next game starts as RULES.md §2.7.4 says (NEXT_GAME_STARTER, D-04: Game.rematch).

With the doubling cube (short nardy), the first game after a player first comes within one point of the
match is the Crawford game, played without the cube; the games after it are post-Crawford, with the
cube. In a match the cube also knows what each side still needs (engine/cube.py: no double past it).

`length` 1 is a single game: rematches follow one another as an open series whose score is shown but
never ends; its cube (if any) is money play, with the Jacoby rule as an option.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from engine.cube import Cube
from engine.errors import WrongPhaseError
from engine.scoring import Result
from engine.sides import Side

LENGTHS = (1, 3, 5, 7)


@dataclass(frozen=True, slots=True)
class Match:
    length: int = 1  # points to win; 1: a single game and its rematches (an open series)
    score: tuple[int, int] = (0, 0)  # (white, black) points won so far
    cube: bool = False  # played with the doubling cube (short nardy only)
    jacoby: bool = False  # single games with the cube: the Jacoby rule
    crawford: bool = False  # the current game is the Crawford game (no cube)
    crawford_done: bool = False  # the Crawford game was played (the rest are post-Crawford)
    games: tuple[dict[str, Any], ...] = ()  # the finished games' records (Game.to_json), oldest first

    def __post_init__(self) -> None:
        if self.length not in LENGTHS:
            raise ValueError(f"match length {self.length} is not one of {LENGTHS}")
        if min(self.score) < 0:
            raise ValueError(f"match score {self.score} is negative")
        if self.jacoby and self.is_match:
            raise ValueError("the Jacoby rule is for single games, not matches")

    @property
    def is_match(self) -> bool:
        """A match to 3, 5 or 7 (not a single game)."""
        return self.length > 1

    @property
    def over(self) -> bool:
        return self.is_match and max(self.score) >= self.length

    @property
    def winner(self) -> Side | None:
        """Who won the match (None while it goes on, and always for single games)."""
        if not self.over:
            return None
        return Side.WHITE if self.score[0] >= self.length else Side.BLACK

    def needs(self) -> tuple[int, int]:
        """The points white and black still need to win the match."""
        return (max(1, self.length - self.score[0]), max(1, self.length - self.score[1]))

    def game_cube(self) -> Cube | None:
        """The cube of the match's current game (None: played without the cube). In the Crawford game the
        cube is there, at 1, but nobody may turn it."""
        if not self.cube:
            return None
        if self.is_match:
            return Cube(crawford=self.crawford, needs=self.needs())
        return Cube(jacoby=self.jacoby)

    def after(self, result: Result, record: dict[str, Any] | None = None) -> Match:
        """The match after a game ended with `result` (its record, if given, is kept)."""
        if self.over:
            raise WrongPhaseError(f"the match is over at {self.score[0]}-{self.score[1]}: no more games")
        points = list(self.score)
        points[result.winner] += result.points
        score = (points[0], points[1])
        crawford_done = self.crawford_done or self.crawford
        crawford = (
            self.is_match
            and not crawford_done
            and max(score) < self.length
            and self.length - 1 in score
            and self.length - 1 not in self.score
        )
        games = self.games + ((record,) if record is not None else ())
        return replace(self, score=score, crawford=crawford, crawford_done=crawford_done, games=games)

    def to_json(self) -> dict[str, Any]:
        return {
            "length": self.length,
            "score": list(self.score),
            "cube": self.cube,
            "jacoby": self.jacoby,
            "crawford": self.crawford,
            "crawford_done": self.crawford_done,
            "games": list(self.games),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Match:
        return cls(
            length=int(data.get("length", 1)),
            score=(int(data["score"][0]), int(data["score"][1])) if data.get("score") else (0, 0),
            cube=bool(data.get("cube", False)),
            jacoby=bool(data.get("jacoby", False)),
            crawford=bool(data.get("crawford", False)),
            crawford_done=bool(data.get("crawford_done", False)),
            games=tuple(data.get("games") or ()),
        )
