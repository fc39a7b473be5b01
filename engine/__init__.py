"""Pure rules of short and long nardy: no I/O, no clock, no randomness (dice are passed in)."""

from engine.cube import Cube, CubeAction
from engine.dice import ALL_ROLLS, Dice, roll_weight
from engine.errors import (
    AmbiguousMoveError,
    CubeError,
    GameRecordError,
    IllegalPlayError,
    InvalidDiceError,
    InvalidMoveError,
    InvalidPositionError,
    NardyError,
    OptionsError,
    WrongPhaseError,
)
from engine.game import Game, Phase, TurnRecord
from engine.match import Match
from engine.moves import Move, Play
from engine.options import Options
from engine.position import Board, Position
from engine.rules import GAMES, VARIANTS, LongNardy, Rules, ShortNardy, TurnStep, UnknownGameError, find_rules
from engine.scoring import Result, WinKind
from engine.sides import BAR, OFF, Side, to_absolute

__all__ = [
    "ALL_ROLLS",
    "BAR",
    "GAMES",
    "OFF",
    "VARIANTS",
    "AmbiguousMoveError",
    "Board",
    "Cube",
    "CubeAction",
    "CubeError",
    "Dice",
    "Game",
    "GameRecordError",
    "IllegalPlayError",
    "InvalidDiceError",
    "InvalidMoveError",
    "InvalidPositionError",
    "LongNardy",
    "Match",
    "Move",
    "NardyError",
    "Options",
    "OptionsError",
    "Phase",
    "Play",
    "Position",
    "Result",
    "Rules",
    "ShortNardy",
    "Side",
    "TurnRecord",
    "TurnStep",
    "UnknownGameError",
    "WinKind",
    "WrongPhaseError",
    "find_rules",
    "roll_weight",
    "to_absolute",
]
