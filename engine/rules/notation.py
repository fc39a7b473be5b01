"""A play read from its notation (`24/18 13/11*`, `bar/22`, `6/off`, `24/13`, `6/2(2)`): the legal play
of the turn that the text names, hit marks choosing between plays that differ only in hitting, and the
moves kept as written so that a record replays to the same text."""

from __future__ import annotations

from engine.dice import Dice
from engine.errors import AmbiguousMoveError, IllegalPlayError, InvalidMoveError
from engine.moves import Play, parse_hops
from engine.position import Position
from engine.rules.generator import Counts, RawMove, TurnGenerator, as_move, without


class PlayNotation(TurnGenerator):
    """Plays written as text, read against the turn's legal plays."""

    def parse_play(self, position: Position, dice: Dice | tuple[int, int], text: str) -> Play:
        """The legal play written as `text` (`24/18 13/11*`, `bar/22`, `6/off`, `24/13`, `6/2(2)`).

        Hit marks choose between plays that differ only in hitting; text that still fits several
        different plays raises AmbiguousMoveError."""
        dice = self._dice(position, dice)
        try:
            hops = parse_hops(text)
        except InvalidMoveError as exc:
            raise InvalidMoveError(f"{exc} in {self.describe(position)}") from None
        head_limit, longest, outcomes = self._generate(position, dice)
        by_position = {p.position: p for p in self._plays(position, dice, outcomes)}
        flags = self._turn_flags(position, dice)
        found: dict[Position, tuple[bool, tuple[RawMove, ...]]] = {}  # outcome -> (hit marks fit, moves)

        def walk(
            x: Counts,
            o: Counts,
            left: tuple[int, ...],
            i: int,
            at: int | None,
            exact: bool,
            path: tuple[RawMove, ...],
        ) -> None:
            if i == len(hops):
                pos = Position(tuple(x), tuple(o), *flags)
                if pos in by_position and (pos not in found or (exact and not found[pos][0])):
                    found[pos] = (exact, path)
                return
            src, dst, marked = hops[i]
            start = src if at is None else at
            for move in self._candidates(x, o, left, head_limit, position.x[24]):
                if move[0] != start or move[1] < dst:
                    continue  # another checker, or overshooting the hop's target
                x2, o2 = x[:], o[:]
                self._apply(x2, o2, move)
                if move[1] == dst:
                    walk(
                        x2,
                        o2,
                        without(left, move[2]),
                        i + 1,
                        None,
                        exact and move[3] == marked,
                        path + (move,),
                    )
                else:  # a combined move written as one hop, e.g. 24/13: go on with the same checker
                    walk(x2, o2, without(left, move[2]), i, move[1], exact and not move[3], path + (move,))

        single_die = not dice.is_double and longest == 1
        order = (
            (dice.high, dice.a + dice.b - dice.high) if single_die else dice.values
        )  # as the generator keeps them
        walk(list(position.x), list(position.o), order, 0, None, True, ())
        if not found:
            raise IllegalPlayError(f"play {text!r} is not legal with {dice} in {self.describe(position)}")
        fitting = [p for p, (exact, _) in found.items() if exact] or list(found)
        if len(fitting) > 1:
            options = ", ".join(str(by_position[p]) for p in fitting)
            raise AmbiguousMoveError(
                f"play {text!r} fits {len(fitting)} plays ({options}) with {dice} in {self.describe(position)}"
            )
        # The moves as written (so a record replays to the same text), leading to the legal outcome.
        return Play(tuple(map(as_move, found[fitting[0]][1])), by_position[fitting[0]].position)
