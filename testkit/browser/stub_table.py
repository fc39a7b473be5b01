"""One game on the page's stub server (stub_server.py): the engine's Game, the moves made this turn and a
version per change; what a page of each side sees (the board's view, the status line, the actions, the
legal steps) and a press applied as the bot's flow would in outline (the version, the turn, the engine's
legal steps), with the stub's own few texts, not the bot's catalogue."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bot.web.protocol import Press, state_message, steps_json, view_json
from engine import Dice, Game, Move, NardyError, Phase, Position, Side
from engine.cube import Cube
from render.view import BoardView, MoveMark

STATUS = {
    "en": {
        "move": "{who} to move",
        "roll": "{who} to roll",
        "cube": "{who}: take or pass?",
        "over": "{who} wins {points}",
    },
    "ru": {
        "move": "Ходит {who}",
        "roll": "Бросает {who}",
        "cube": "{who}: принять или отказаться?",
        "over": "Победа: {who}, {points}",
    },
}
NOT_YOUR_TURN = "It is not your turn."
STALE = "The board has changed: look again."
NO_SUCH_MOVE = "That checker cannot move there."


def _pairs(dice: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    yield from dice
    while True:  # scripted dice ran out: a fixed cycle, so a long game still ends
        for a in range(1, 7):
            for b in range(a, 7):
                yield (7 - a, b)


@dataclass
class StubTable:
    """One game on the stub server: the engine's Game, the moves made this turn, a version per change.

    `players` says who each page is: a hello's initData names a side ("white"/"black"); anything else
    watches. `computer` plays that side at once (the first legal play), `dice` are the rolls to come."""

    id: str
    game: Game
    names: tuple[str, str] = ("Alice", "Bob")
    lang: str = "en"
    version: int = 1
    moves: tuple[Move, ...] = ()
    dice: Iterator[tuple[int, int]] = field(default_factory=lambda: _pairs([]))
    computer: Side | None = None
    score: tuple[int, int] = (0, 0)
    match_to: int = 1
    hint_text: str = ""
    clock: dict[str, Any] | None = (
        None  # a live game's clocks as protocol.clock_json gives them (set by a test)
    )

    @classmethod
    def at(
        cls,
        game_id: str,
        variant: str,
        x: dict[int, int],
        o: dict[int, int],
        dice: tuple[int, int],
        turn: Side = Side.WHITE,
        **kwargs: Any,
    ) -> StubTable:
        """`turn` to play `dice` in a position given as in RULES.md from its side (x) and the other's (o):
        `{24: 2, 13: 5}`, 25 the bar, missing checkers borne off."""
        game = Game.new(variant, starter=turn)
        game = dataclasses.replace(
            game, phase=Phase.MOVE, position=Position.from_counts(x, o), dice=Dice(*dice)
        )
        return cls(game_id, game, **kwargs)

    @classmethod
    def start(
        cls,
        game_id: str,
        variant: str,
        dice: tuple[int, int] | None = (6, 1),
        first: Side = Side.WHITE,
        later: list[tuple[int, int]] | None = None,
        cube: bool = False,
        **kwargs: Any,
    ) -> StubTable:
        """A new game of `variant` with `first` on turn: rolled `dice` (None: still to roll or double)."""
        game = Game.new(variant, starter=first, cube=Cube() if cube else None)
        if dice is not None:
            game = game.roll(*dice)
        return cls(game_id, game, dice=_pairs(list(later or [])), **kwargs)

    # ---------------------------------------------------------------- what a page sees

    def step_now(self) -> Any:
        return self.game.turn_step(self.moves)

    def view(self, viewer: Side) -> BoardView:
        """As bot/views/board_view.py draws a table: the turn in progress shown."""
        game = self.game
        rules = game.rules
        dice: tuple[int, ...] = ()
        used: tuple[int, ...] = ()
        last_mover, last = game.last_side, tuple(game.last_play.moves) if game.last_play else ()
        if game.phase is Phase.MOVE and game.dice is not None:
            step = self.step_now()
            board = rules.absolute(step.position, game.turn)
            mover, other = rules.pip_counts(step.position)
            pips = (mover, other) if game.turn is Side.WHITE else (other, mover)
            dice, used = (game.dice.a, game.dice.b), tuple(m.die for m in step.moves_made)
            if step.moves_made:
                last_mover, last = game.turn, tuple(step.moves_made)
        else:
            board = game.board()
            pips = game.pip_counts()
        to_move = game.deciding if game.phase in (Phase.MOVE, Phase.ROLL, Phase.CUBE) else None
        winner = game.result.winner if game.phase is Phase.OVER and game.result is not None else None
        marks = tuple(MoveMark(m.src, m.dst, m.hit) for m in last) if last_mover is not None else ()
        return BoardView(
            game=game.game,
            points=tuple(board.points),
            bar=(board.bar[0], board.bar[1]),
            off=(board.off[0], board.off[1]),
            viewer=viewer,
            names=self.names,
            to_move=to_move,
            dice=dice,
            dice_used=used,
            last_mover=last_mover if marks else None,
            last_move=marks,
            pips=(int(pips[0]), int(pips[1])),
            status=self.status(),
            winner=winner,
            cube=game.cube.value if game.cube is not None else None,
            cube_owner=game.cube.owner if game.cube is not None else None,
            cube_offered=game.phase is Phase.CUBE,
        )

    def status(self) -> str:
        """The status line, in the table's language (the stub's own few texts, not the bot's catalogue)."""
        texts = STATUS.get(self.lang, STATUS["en"])
        game = self.game
        if game.phase is Phase.OVER and game.result is not None:
            return texts["over"].format(who=self.names[game.result.winner], points=game.result.points)
        phase = {Phase.CUBE: "cube", Phase.ROLL: "roll"}.get(game.phase, "move")
        return texts[phase].format(who=self.names[game.deciding])

    def actions(self, you: Side) -> list[str]:
        game = self.game
        if game.phase is Phase.OVER:
            return ["rematch"]
        out: list[str] = []
        if game.deciding is you:
            if game.phase is Phase.MOVE:
                step = self.step_now()
                if self.moves:
                    out.append("undo")
                if step.can_finish:
                    out.append("done")
                if not self.moves:
                    out.append("hint")
            elif game.phase is Phase.ROLL:
                out += ["roll", "double"] if game.may_double() else ["roll"]
            elif game.phase is Phase.CUBE:
                out += ["take", "pass"]
        out.append("resign")
        return out

    def state(self, you: Side | None, message: str = "") -> dict[str, Any]:
        viewer = you if you is not None else (self.game.deciding if not self.game.is_over else Side.WHITE)
        steps: list[dict[str, Any]] = []
        game = self.game
        if you is not None and game.phase is Phase.MOVE and game.turn is you:
            steps = steps_json(game.game, you, self.step_now().next_moves)
        view = view_json(self.view(viewer), self.score, self.match_to)
        actions = self.actions(you) if you is not None else []
        review = f"{self.id}/1" if game.is_over else None  # the finished game's review, as bot/web/states.py
        return state_message(
            self.id, self.version, self.lang, you, view, steps, actions, message, self.clock, review
        )

    # ---------------------------------------------------------------- presses

    def apply(self, press: Press, you: Side | None) -> str | None:
        """Apply a press of `you`: None when it changed the game, else the refusal's text."""
        if you is None:
            return "You are watching this game."
        if press.version != self.version:
            return STALE
        game = self.game
        action = press.action
        if action == "resign":
            if game.is_over:
                return "The game is over."
            self.game, self.moves = game.resign(you), ()
        elif action == "rematch":
            if not game.is_over:
                return "The game is not over."
            self.game, self.moves = game.rematch(), ()
            self._auto()
        elif game.is_over or game.deciding is not you:
            return NOT_YOUR_TURN
        elif action == "move":
            if game.phase is not Phase.MOVE or press.src is None or press.die is None:
                return NO_SUCH_MOVE
            move = self.step_now().find(press.src, press.die)
            if move is None:
                return NO_SUCH_MOVE
            self.moves += (move,)
        elif action == "undo":
            if not self.moves:
                return "Nothing to undo."
            self.moves = self.moves[:-1]
        elif action == "done":
            step = self.step_now() if game.phase is Phase.MOVE else None
            if step is None or not step.can_finish or step.play is None:
                return "Finish the turn first."
            self.game, self.moves = game.play(step.play), ()
            self._auto()
        elif action == "hint":
            return None
        else:
            try:
                if action == "roll":
                    self.game = game.roll(*next(self.dice))
                elif action == "double":
                    self.game = game.double()
                elif action == "take":
                    self.game = game.take()
                elif action == "pass":
                    self.game = game.drop()
            except NardyError:
                return f"You cannot {action} now."
            self._auto()
        self.version += 1
        return None

    def _auto(self) -> None:
        """Roll for a side that may not double, pass a turn with no move, and play the computer's turns."""
        for _ in range(1000):
            game = self.game
            if game.is_over:
                return
            if game.phase is Phase.ROLL and (game.turn is self.computer or not game.may_double()):
                self.game = game.roll(*next(self.dice))
            elif game.phase is Phase.CUBE and game.deciding is self.computer:
                self.game = game.take()
            elif game.phase is Phase.MOVE and (game.turn is self.computer or not game.legal_plays()[0].moves):
                self.game, self.moves = game.play(game.legal_plays()[0]), ()
            else:
                return
