"""Short nardy = standard backgammon (RULES.md §5)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from engine.position import Position
from engine.position_id import gnubg_position_from_id, gnubg_position_id
from engine.rules.base import Rules
from engine.rules.generator import Counts, Outcomes, RawMove
from engine.scoring import WinKind

_START = (0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


class ShortNardy(Rules):
    """Short nardy: hitting, a bar, no head or block rules."""

    name: ClassVar[str] = "short"
    has_bar: ClassVar[bool] = True
    default_opening_dice_are_first_roll: ClassVar[bool] = True
    default_next_game_starter: ClassVar[str] = "opening_roll"

    def start_position(self) -> Position:
        return Position(_START, _START)

    def mirror(self, point: int) -> int:
        return 25 - point

    def _single_moves(self, x: Counts, o: Counts, die: int, head_left: int) -> Iterable[RawMove]:
        if x[25]:  # bar first (§5.3.1): enter on X-point 25 - die = O's die-point
            n = o[die]
            return [(25, 25 - die, die, n == 1)] if n <= 1 else []
        moves: list[RawMove] = []
        home = not any(x[7:25])
        highest = True
        for p in range(24, 0, -1):
            if not x[p]:
                continue
            t = p - die
            if t > 0:
                n = o[25 - t]
                if n <= 1:
                    moves.append((p, t, die, n == 1))
            elif home and (t == 0 or highest):  # §2.5: exact, or the highest point with a larger die
                moves.append((p, 0, die, False))
            highest = False
        return moves

    def _o_in_x_order(self, o: tuple[int, ...]) -> tuple[int, ...]:
        return o[24:0:-1]

    def _apply(self, x: Counts, o: Counts, move: RawMove) -> None:
        src, dst, _, hit = move
        x[src] -= 1
        x[dst] += 1
        if hit:
            o[25 - dst] -= 1
            o[25] += 1

    def _preferred(self, outcomes: Outcomes) -> Outcomes:
        """FULL_PIP_RULE (seed 000 r.26): of the kept outcomes, only those leaving X the fewest pips."""
        if not self.options.full_pip_rule or len(outcomes) < 2:
            return outcomes
        best = min(sum(p * n for p, n in enumerate(x)) for x, _ in outcomes)
        return {k: v for k, v in outcomes.items() if sum(p * n for p, n in enumerate(k[0])) == best}

    def score_loser(self, loser: tuple[int, ...]) -> WinKind:
        if loser[0]:
            return WinKind.OIN
        if loser[25] or any(loser[19:25]):
            return WinKind.KOKS
        return WinKind.MARS

    def position_id(self, position: Position) -> str:
        return gnubg_position_id(position)

    def position_from_id(self, text: str) -> Position:
        position = gnubg_position_from_id(text)
        self.validate(position)
        return position
