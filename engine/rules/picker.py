"""The move picker's engine: a turn picked one single move at a time (a tap on a checker, then a die), each
step offering only the moves that still lead to one of the legal plays the generator keeps, and the
positions a turn can still end in (so the picker may finish a turn that no longer matters by itself).

Each step is memoised by content: the press, its board, its keyboard and the auto-complete all ask for the
same steps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.dice import Dice
from engine.errors import IllegalPlayError
from engine.moves import Move, Play
from engine.position import Position
from engine.rules.generator import Counts, Ending, Outcomes, RawMove, TurnGenerator, as_move, without


@dataclass(frozen=True, slots=True)
class TurnStep:
    """The move picker's view of a turn in progress."""

    moves_made: tuple[Move, ...]
    position: Position
    dice_left: tuple[int, ...]
    next_moves: tuple[Move, ...]
    can_finish: bool
    play: Play | None

    def find(self, src: int, die: int) -> Move | None:
        """The next legal move of the checker on `src` with `die`, if there is one."""
        for move in self.next_moves:
            if move.src == src and move.die == die:
                return move
        return None


class MovePicker(TurnGenerator):
    """A turn in progress, one single move at a time, over the generator's kept plays."""

    def turn_plays(self, position: Position, dice: Dice | tuple[int, int]) -> list[Play]:
        """`legal_plays` for a turn being played in a game: the turn's generation is memoised by content
        and shared with `turn_step`. (The computer's search, which visits thousands of positions once
        each, uses `legal_plays`, which is not.)"""
        dice = self._dice(position, dice)
        return self._plays(position, dice, _turn_outcomes(self, position, dice)[2])

    def turn_step(
        self, position: Position, dice: Dice | tuple[int, int], moves: Sequence[Move | tuple[int, int]] = ()
    ) -> TurnStep:
        """The legal next single moves after `moves` (each a Move or (src, die)) within a turn.

        Memoised by content (a TurnStep is an immutable value): a turn is picked one tap at a time, and
        the press, its board, its keyboard and the auto-complete all ask for the same steps."""
        dice = self._dice(position, dice)
        pairs = tuple(_src_and_die(m) for m in moves)
        try:
            hash(pairs)
        except TypeError:  # something odd given as a move (it is refused below): not memoised
            return self._turn_step(position, dice, pairs)
        return _turn_step(self, position, dice, pairs)

    def _turn_step(self, position: Position, dice: Dice, moves: tuple[tuple[int, int], ...]) -> TurnStep:
        head_limit, longest, outcomes = _turn_outcomes(self, position, dice)
        targets = set(outcomes)
        larger_only = (
            longest == 1 and not dice.is_double and any(p[0][2] == dice.high for p in outcomes.values())
        )
        reach_cache: dict[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], bool] = {}

        def completes(x: Counts, o: Counts, left: tuple[int, ...], depth: int) -> bool:
            key = (tuple(x), tuple(o), left)
            if key in reach_cache:
                return reach_cache[key]
            result = False
            if depth == longest:
                result = (key[0], key[1]) in targets
            elif x[0] < 15:
                for move in self._candidates(x, o, left, head_limit, position.x[24]):
                    x2, o2 = x[:], o[:]
                    self._apply(x2, o2, move)
                    rest = without(left, move[2])
                    if completes(x2, o2, rest, depth + 1):
                        result = True
                        break
            reach_cache[key] = result
            return result

        x, o = list(position.x), list(position.o)
        left = dice.values
        made: list[Move] = []
        for src, die in moves:
            options = self._next_moves(
                x, o, left, len(made), completes, larger_only, dice, head_limit, position
            )
            chosen = next((m for m in options if m[0] == src and m[2] == die), None)
            if chosen is None:
                raise IllegalPlayError(
                    f"move from {src} with die {die} is not legal after "
                    f"{' '.join(map(str, made)) or 'no moves'} with {dice} in {self.describe(position)}"
                )
            self._apply(x, o, chosen)
            left = without(left, die)
            made.append(as_move(chosen))
        nxt = self._next_moves(x, o, left, len(made), completes, larger_only, dice, head_limit, position)
        done = len(made) == longest and (tuple(x), tuple(o)) in targets
        flags = self._turn_flags(position, dice)
        partial = Position(
            tuple(x), tuple(o), position.x_first_turn, position.o_first_turn, position.opening_roll
        )
        play = Play(tuple(made), Position(tuple(x), tuple(o), *flags)) if done else None
        return TurnStep(tuple(made), partial, left, tuple(map(as_move, nxt)), done, play)

    def turn_endings(
        self,
        position: Position,
        dice: Dice | tuple[int, int],
        moves: Sequence[Move | tuple[int, int]] = (),
        at_most: int | None = None,
    ) -> frozenset[Position]:
        """The distinct positions the turn can still end in after `moves` (as `turn_step` takes them):
        one means the rest of the turn makes no difference (the picker may finish it by itself).
        With `at_most`, the search stops once it has found more than that many (and returns those)."""
        dice = self._dice(position, dice)
        step = self.turn_step(position, dice, moves)  # validates the moves made
        head_limit, longest, outcomes = _turn_outcomes(self, position, dice)
        larger_only = (
            longest == 1 and not dice.is_double and any(p[0][2] == dice.high for p in outcomes.values())
        )
        limit = len(outcomes) if at_most is None else at_most
        seen: set[Ending] = set()
        memo: set[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = set()  # nodes fully explored

        def explore(x: Counts, o: Counts, left: tuple[int, ...], depth: int) -> None:
            key = (tuple(x), tuple(o), left)
            if key in memo:
                return  # its endings are in `seen` already
            if depth == longest:
                if (key[0], key[1]) in outcomes:
                    seen.add((key[0], key[1]))
            elif x[0] < 15:
                for move in self._candidates(x, o, left, head_limit, position.x[24]):
                    if larger_only and move[2] != dice.high:
                        continue
                    x2, o2 = x[:], o[:]
                    self._apply(x2, o2, move)
                    explore(x2, o2, without(left, move[2]), depth + 1)
                    if len(seen) > limit:
                        return  # enough: the search ends here, this node unfinished
            memo.add(key)

        partial = step.position
        explore(list(partial.x), list(partial.o), step.dice_left, len(step.moves_made))
        flags = self._turn_flags(position, dice)
        return frozenset(Position(x, o, *flags) for x, o in seen)

    def _next_moves(
        self,
        x: Counts,
        o: Counts,
        left: tuple[int, ...],
        depth: int,
        completes: Callable[[Counts, Counts, tuple[int, ...], int], bool],
        larger_only: bool,
        dice: Dice,
        head_limit: int,
        position: Position,
    ) -> list[RawMove]:
        result: list[RawMove] = []
        if depth >= 4 or x[0] == 15:
            return result
        for move in self._candidates(x, o, left, head_limit, position.x[24]):
            if larger_only and move[2] != dice.high:
                continue
            x2, o2 = x[:], o[:]
            self._apply(x2, o2, move)
            if completes(x2, o2, without(left, move[2]), depth + 1):
                result.append(move)
        return result


def _src_and_die(move: Move | tuple[int, int]) -> tuple[int, int]:
    """A move given to `turn_step` as its (src, die), taken as given (a pair of anything else is refused there)."""
    if isinstance(move, Move):
        return move.src, move.die
    src, die = move
    return src, die


@lru_cache(maxsize=256)
def _turn_outcomes(rules: MovePicker, position: Position, dice: Dice) -> tuple[int, int, Outcomes]:
    """`rules._generate` memoised by content for `turn_step`: a turn is picked one tap at a time and
    each tap (and a look-ahead over the orders still possible) asks again for the same position and
    dice. Callers only read the outcomes. `legal_plays` does not go through here."""
    return rules._generate(position, dice)


@lru_cache(maxsize=4096)
def _turn_step(
    rules: MovePicker, position: Position, dice: Dice, moves: tuple[tuple[int, int], ...]
) -> TurnStep:
    """`rules.turn_step` memoised by content (an engine error is raised again on every call, not kept)."""
    return rules._turn_step(position, dice, moves)
