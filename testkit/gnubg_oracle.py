"""GNU Backgammon's move generator (the gnubg-nn wheel) as an oracle for short nardy's legal plays.

gnubg-nn's board is [opponent, mover], two lists of 25 counts each from its own side (index 0 = own
point 1, index 24 = the bar; borne-off checkers are 15 minus the sum). A pass is an empty tuple for
gnubg and one empty play for us."""

from __future__ import annotations

import gnubg_nn

from engine import Dice, Position, find_rules

RULES = find_rules("short")
GnubgBoard = list[list[int]]


def gnubg_board(position: Position) -> GnubgBoard:
    return [list(position.o[1:26]), list(position.x[1:26])]


def position_from_gnubg(board: GnubgBoard | tuple[tuple[int, ...], tuple[int, ...]]) -> Position:
    o, x = board
    return Position((15 - sum(x), *x), (15 - sum(o), *o))


def gnubg_outcomes(position: Position, dice: Dice) -> set[Position]:
    keys = gnubg_nn.moves(gnubg_board(position), dice.a, dice.b)
    return {position_from_gnubg(gnubg_nn.board_from_position_key(key)) for key in keys} or {position}


def disagreement(position: Position, dice: Dice) -> str | None:
    """None when both engines give the same outcomes, else a reproducer for the report."""
    ours = {play.position for play in RULES.legal_plays(position, dice)}
    theirs = gnubg_outcomes(position, dice)
    if ours == theirs:
        return None
    only_ours = sorted(p.describe() for p in ours - theirs)
    only_gnubg = sorted(p.describe() for p in theirs - ours)
    return (
        f"{RULES.position_id(position)} {position.describe()} dice {dice}: "
        f"only ours {only_ours}, only gnubg {only_gnubg}"
    )
