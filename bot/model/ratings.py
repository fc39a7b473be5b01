"""Ratings: the FIBS formula, pure arithmetic (no I/O, no clock).

Why FIBS. The First Internet Backgammon Server has rated backgammon matches with this formula since the
early 1990s, and the servers after it (GridGammon, DailyGammon, Backgammon Studio Heroes and others) use it
or a close variant: it is the proven anchor for backgammon ratings. It is Elo, adapted to backgammon:
- it is length-aware: luck weighs less in a long match, so the favourite's win probability grows with the
  match length N (the rating difference is scaled by sqrt(N)), and the stake (the most a rating can move)
  grows with sqrt(N) too: one 7-point match moves a rating as much as about seven single games would;
- it has a provisional period: a new player's changes are multiplied by an experience factor that falls
  from 5 to 1 over their first 400 points of matches, so a new player reaches their level quickly and an
  established rating is stable;
- it is deterministic and needs one update per result, the same arithmetic in Python and in the Lua that
  applies it atomically in Redis (bot/storage/lua/record_result.lua): a retried or raced update is recognised and applied once.
Glicko-2 was the other candidate. It needs rating periods (results collected over a period, a volatility
iteration per period) that a chat bot whose players come and go at any hour does not have, and it is
harder to reproduce in a Redis script; its rating deviation is what FIBS's experience factor approximates.

The formula (for a match to N points; a single game is N = 1):
    D = |Ra - Rb|
    P_underdog = 1 / (10 ** (D * sqrt(N) / 2000) + 1)        the lower-rated player's chance to win
    P_favourite = 1 - P_underdog
    stake = 4 * sqrt(N)
    each player's change = stake * (result - their own win probability) * their experience factor
        result: 1 for the winner, 0 for the loser
    experience factor = max(1, 5 - experience / 100)
        experience: the sum of the lengths of the rated matches the player played before this one
So the winner gains 4 * sqrt(N) * (the loser's win probability), the loser loses the same amount (each
times their own factor). The constants are FIBS's: 1500 for a new player, 2000 in the exponent (a
difference of 2000 / sqrt(N) points makes the favourite a 10:1 favourite in a match to N), 4 for the stake,
and the experience factor 5 falling by 1 per 100 points of experience down to 1 at 400.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

START_RATING = 1500.0  # a player's rating before their first rated match
SCALE = 2000.0  # the rating difference (times sqrt(N)) at which the odds are 10:1
STAKE = 4.0  # the most a single game (N = 1) moves an experienced player's rating
PROVISIONAL_FACTOR = 5.0  # the experience factor of a new player
EXPERIENCE_STEP = 100.0  # experience (points of matches) that takes one off the factor, down to 1


def win_probability(rating: float, opponent: float, length: int) -> float:
    """The chance that a player rated `rating` wins a match to `length` points against `opponent`."""
    check_length(length)
    difference = abs(rating - opponent)
    underdog = 1.0 / (10.0 ** (difference * math.sqrt(length) / SCALE) + 1.0)
    return 1.0 - underdog if rating > opponent else underdog if rating < opponent else 0.5


def experience_factor(experience: int) -> float:
    """How much a player's changes are multiplied by: 5 for a new player, falling to 1 at 400 points."""
    if experience < 0:
        raise ValueError(f"experience {experience} is negative")
    return max(1.0, PROVISIONAL_FACTOR - experience / EXPERIENCE_STEP)


def check_length(length: int) -> None:
    if length < 1:
        raise ValueError(f"a match length must be at least 1, not {length}")


@dataclass(frozen=True)
class Rated:
    """A player as a rated match finds them: their rating and experience (points of rated matches)."""

    rating: float = START_RATING
    experience: int = 0


@dataclass(frozen=True)
class Update:
    """What one rated match does to its two players: (winner, loser) ratings after it."""

    winner: Rated
    loser: Rated
    winner_change: float
    loser_change: float


def rate(winner: Rated, loser: Rated, length: int) -> Update:
    """Both players after `winner` beat `loser` in a match to `length` points (1: a single game)."""
    check_length(length)
    stake = STAKE * math.sqrt(length)
    upset = 1.0 - win_probability(winner.rating, loser.rating, length)  # the loser's chance to win
    gain = stake * upset * experience_factor(winner.experience)
    loss = -stake * upset * experience_factor(loser.experience)
    return Update(
        winner=Rated(winner.rating + gain, winner.experience + length),
        loser=Rated(loser.rating + loss, loser.experience + length),
        winner_change=gain,
        loser_change=loss,
    )
