"""A game from the opening roll to the result (RULES.md §2.6-§2.8), as an immutable value.

Every action returns a new Game. The record (opening rolls, turns, resignation) replays the game;
`to_json` also stores the current state so that loading needs no replay.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from engine.cube import Cube, CubeAction
from engine.dice import Dice
from engine.errors import CubeError, GameRecordError, IllegalPlayError, NardyError, WrongPhaseError
from engine.moves import Move, Play
from engine.options import Options
from engine.position import Board, Position
from engine.rules import Rules, TurnStep, find_rules
from engine.scoring import Result, WinKind
from engine.sides import Side

FORMAT_VERSION = 1


class Phase(Enum):
    OPENING = "opening"  # waiting for the one-die-each opening roll
    ROLL = "roll"  # `turn` is to roll two dice
    MOVE = "move"  # `turn` has `dice` to play
    CUBE = "cube"  # `turn` offered a double (before rolling); the other side must take or pass
    OVER = "over"  # `result` is set


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One turn of the record: who, with which dice, played what (RULES notation, `pass` if none)."""

    side: Side
    dice: Dice
    play: str

    def to_json(self) -> list[object]:
        return [self.side.label, str(self.dice), self.play]

    @classmethod
    def from_json(cls, data: Any) -> TurnRecord:
        try:
            side, dice, play = data
            return cls(Side[str(side).upper()], Dice.parse(str(dice)), str(play))
        except (KeyError, TypeError, ValueError) as exc:
            raise GameRecordError(f"bad turn record {data!r}: {exc}") from None


@dataclass(frozen=True)
class Game:
    rules: Rules
    phase: Phase
    turn: Side
    position: Position
    dice: Dice | None = None
    result: Result | None = None
    last_play: Play | None = None
    last_side: Side | None = None
    opening: tuple[int, int] | None = None
    opening_rolls: tuple[tuple[int, int], ...] = ()
    history: tuple[TurnRecord, ...] = ()
    starter: Side | None = None  # set when a rematch began without an opening roll
    cube: Cube | None = None  # the doubling cube (short nardy only); None: played without it
    cube_actions: tuple[CubeAction, ...] = ()  # the record's doubles, takes and passes

    # ----- construction ---------------------------------------------------------------------------
    @classmethod
    def new(
        cls, game: str, options: Options | None = None, starter: Side | None = None, cube: Cube | None = None
    ) -> Game:
        """A new game: an opening roll decides who starts, unless `starter` is given (a rematch). `cube`:
        play with the doubling cube under its rules (short nardy only; it starts in the middle at 1)."""
        rules = find_rules(game, options)
        if cube is not None:
            if rules.name != "short":
                raise CubeError(f"{rules.name} nardy is played without the doubling cube")
            cube = cube.rules_only()
        start = rules.start_position()
        if starter is None:
            return cls(rules, Phase.OPENING, Side.WHITE, start, cube=cube)
        return cls(rules, Phase.ROLL, starter, start, starter=starter, cube=cube)

    @property
    def game(self) -> str:
        return self.rules.name

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def deciding(self) -> Side:
        """The side whose action the game waits for: the one on turn, or the one offered a double."""
        return self.turn.other if self.phase is Phase.CUBE else self.turn

    def may_double(self) -> bool:
        """Whether the side on turn may offer a double now (before rolling, under the cube's rules)."""
        return self.phase is Phase.ROLL and self.cube is not None and self.cube.may_double(self.turn)

    def _need(self, phase: Phase, action: str) -> None:
        if self.phase is not phase:
            raise WrongPhaseError(
                f"cannot {action} in phase {self.phase.value} (expected {phase.value}) "
                f"in {self.rules.describe(self.position)}"
            )

    # ----- actions --------------------------------------------------------------------------------
    def opening_roll(self, white_die: int, black_die: int) -> Game:
        """RULES §2.7: one die each; a tie is re-rolled; the higher die starts."""
        self._need(Phase.OPENING, "make the opening roll")
        roll = Dice(white_die, black_die)  # validates both values
        rolls = self.opening_rolls + ((roll.a, roll.b),)
        if roll.a == roll.b:
            return replace(self, opening_rolls=rolls)
        first = Side.WHITE if roll.a > roll.b else Side.BLACK
        if self.rules.opening_dice_are_first_roll:
            dice = Dice(max(roll.a, roll.b), min(roll.a, roll.b))
            return replace(
                self, phase=Phase.MOVE, turn=first, dice=dice, opening=(roll.a, roll.b), opening_rolls=rolls
            )
        return replace(self, phase=Phase.ROLL, turn=first, opening=(roll.a, roll.b), opening_rolls=rolls)

    def roll(self, a: int, b: int) -> Game:
        """The side on turn rolls two dice."""
        self._need(Phase.ROLL, "roll")
        return replace(self, phase=Phase.MOVE, dice=Dice(a, b))

    def double(self) -> Game:
        """The side on turn, before rolling, offers to double the stakes."""
        self._need(Phase.ROLL, "double")
        if self.cube is None:
            raise CubeError(f"this game is played without the cube: {self.turn.label} cannot double")
        if not self.cube.may_double(self.turn):
            raise CubeError(
                f"{self.turn.label} may not double a cube at {self.cube.value} "
                f"({self._why_no_double(self.cube)})"
            )
        action = CubeAction(len(self.history), self.turn, "double")
        return replace(
            self, phase=Phase.CUBE, cube=self.cube.doubled(), cube_actions=self.cube_actions + (action,)
        )

    def _why_no_double(self, cube: Cube) -> str:
        if cube.crawford:
            return "the Crawford game"
        if cube.owner is not None and cube.owner is not self.turn:
            return f"the cube is {cube.owner.label}'s"
        if cube.needs is not None and cube.value >= cube.needs[self.turn]:
            return f"a single game already wins {self.turn.label} the match"
        return "the cube is at its highest"

    def take(self) -> Game:
        """The side offered a double takes it: the cube doubles and is theirs; the doubler rolls."""
        self._need(Phase.CUBE, "take")
        assert self.cube is not None
        taker = self.turn.other
        action = CubeAction(len(self.history), taker, "take")
        return replace(
            self, phase=Phase.ROLL, cube=self.cube.taken(taker), cube_actions=self.cube_actions + (action,)
        )

    def drop(self) -> Game:
        """The side offered a double passes: the doubler wins the cube's value before the double."""
        self._need(Phase.CUBE, "pass")
        assert self.cube is not None
        action = CubeAction(len(self.history), self.turn.other, "pass")
        result = Result(self.turn, self.cube.value, WinKind.OIN, dropped=True)
        return replace(
            self,
            phase=Phase.OVER,
            result=result,
            cube=replace(self.cube, offered=False),
            cube_actions=self.cube_actions + (action,),
        )

    def _points(self, kind: WinKind) -> int:
        return self.cube.points(kind.points) if self.cube is not None else kind.points

    def legal_plays(self) -> list[Play]:
        self._need(Phase.MOVE, "list plays")
        assert self.dice is not None
        return self.rules.turn_plays(self.position, self.dice)

    def turn_step(
        self, moves: tuple[Move | tuple[int, int], ...] | list[Move | tuple[int, int]] = ()
    ) -> TurnStep:
        self._need(Phase.MOVE, "pick moves")
        assert self.dice is not None
        return self.rules.turn_step(self.position, self.dice, moves)

    def play(self, play: Play | str) -> Game:
        """Play a full turn: a Play from legal_plays() or its text. Then the other side rolls."""
        self._need(Phase.MOVE, "play")
        assert self.dice is not None
        if isinstance(play, str):
            play = self.rules.parse_play(self.position, self.dice, play)
        else:
            self._check_play(play)
        record = TurnRecord(self.turn, self.dice, str(play))
        after = play.position
        common = {
            "dice": None,
            "last_play": play,
            "last_side": self.turn,
            "history": self.history + (record,),
        }
        if after.x[0] == 15:
            kind = self.rules.score_loser(after.o)
            result = Result(self.turn, self._points(kind), kind)
            return replace(self, phase=Phase.OVER, position=after, result=result, **common)  # type: ignore[arg-type]
        return replace(self, phase=Phase.ROLL, turn=self.turn.other, position=after.swapped(), **common)  # type: ignore[arg-type]

    def _check_play(self, play: Play) -> None:
        """A play is legal when it leads to a legal outcome AND its moves really lead there: its moves,
        taken one at a time, are legal single moves that finish the turn (a full turn's worth, RULES
        §2.3-§2.4) in the position it claims. (turn_step is memoised: the move picker has asked it already.)"""
        assert self.dice is not None
        try:
            step = self.rules.turn_step(self.position, self.dice, play.moves)
        except IllegalPlayError:
            step = None
        if step is not None and step.play is not None and step.play.position == play.position:
            if step.moves_made == tuple(play.moves):
                return
            raise IllegalPlayError(
                f"play {play}: its moves are {' '.join(map(str, step.moves_made))} "
                f"(a destination or a hit mark is wrong) with {self.dice} in {self.rules.describe(self.position)}"
            )
        where = f"with {self.dice} in {self.rules.describe(self.position)}"
        if play.position not in {p.position for p in self.legal_plays()}:
            raise IllegalPlayError(f"play {play} is not legal {where}")
        raise IllegalPlayError(f"the moves {play} do not lead to the position they claim {where}")

    def resign(self, side: Side) -> Game:
        """RULES §2.8: `side` gives up, at any time; scored on its current position by default."""
        if self.phase is Phase.OVER:
            raise WrongPhaseError("cannot resign: the game is over")
        loser = self.position.x if side is self.turn else self.position.o
        if self.rules.options.resign_scoring == "single":
            kind = WinKind.OIN
        else:
            kind = self.rules.score_loser(loser)
        cube = replace(self.cube, offered=False) if self.cube is not None else None
        return replace(
            self,
            phase=Phase.OVER,
            result=Result(side.other, self._points(kind), kind, resigned=True),
            dice=None,
            cube=cube,
        )

    def rematch(self) -> Game:
        """The next game of the session, started as NEXT_GAME_STARTER says (RULES §2.7.4)."""
        self._need(Phase.OVER, "start the next game")
        assert self.result is not None
        how = self.rules.next_game_starter
        starter = (
            None if how == "opening_roll" else self.result.winner if how == "previous_winner" else Side.BLACK
        )
        return Game.new(self.game, self.rules.options, starter, self.cube)

    # ----- views ----------------------------------------------------------------------------------
    def board(self) -> Board:
        return self.rules.absolute(self.position, self.turn)

    def pip_counts(self) -> tuple[int, int]:
        """(white, black) pip counts."""
        x, o = self.position.pips()
        return (x, o) if self.turn is Side.WHITE else (o, x)

    def position_id(self) -> str:
        return self.rules.position_id(self.position)

    # ----- record and storage ---------------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        """What replays the game: options, opening rolls, turns and a resignation."""
        resigned = self.result.winner.other.label if self.result and self.result.resigned else None
        return {
            "format": FORMAT_VERSION,
            "game": self.game,
            "options": self.rules.options.to_json(),
            "starter": self.starter.label if self.starter is not None else None,
            "opening_rolls": [list(r) for r in self.opening_rolls],
            "turns": [t.to_json() for t in self.history],
            "dice": str(self.dice)
            if self.phase is Phase.MOVE and self.dice
            else None,  # a roll not played yet
            "resigned": resigned,
            **(
                {
                    "cube": self.cube.rules_only().to_json(),
                    "cube_actions": [a.to_json() for a in self.cube_actions],
                }
                if self.cube is not None
                else {}
            ),
        }

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict: the record plus the current state (loads without a replay)."""
        data = self.record()
        data["state"] = {
            "phase": self.phase.value,
            "turn": self.turn.label,
            "position": self.rules.position_id(self.position),
            "dice": str(self.dice) if self.dice else None,
            "result": self.result.to_json() if self.result else None,
            "last_side": self.last_side.label if self.last_side is not None else None,
            "last_moves": [[m.src, m.dst, m.die, int(m.hit)] for m in self.last_play.moves]
            if self.last_play
            else None,
            "last_position": self.rules.position_id(self.last_play.position) if self.last_play else None,
            "opening": list(self.opening) if self.opening else None,
            **({"cube": self.cube.to_json()} if self.cube is not None else {}),
        }
        return data

    @classmethod
    def _check_format(cls, data: Any) -> None:
        if not isinstance(data, dict):
            raise GameRecordError(f"game record must be an object, got {type(data).__name__}")
        version = data.get("format")
        if not isinstance(version, int):
            raise GameRecordError(f"game record has no format version: {str(data)[:80]!r}")
        if version > FORMAT_VERSION:
            raise GameRecordError(
                f"game record format {version} is newer than this engine's {FORMAT_VERSION}"
            )
        if version < 1:
            raise GameRecordError(f"game record format {version} is unknown")

    @classmethod
    def from_json(cls, data: Any) -> Game:
        """Load a game stored by to_json (without replaying it)."""
        cls._check_format(data)
        try:
            rules = find_rules(data["game"], Options.from_json(data.get("options") or {}))
            st = data["state"]
            position = rules.position_from_id(st["position"])
            last_play = None
            if st.get("last_moves") is not None:
                moves = tuple(Move(int(s), int(d), int(die), bool(h)) for s, d, die, h in st["last_moves"])
                last_play = Play(moves, rules.position_from_id(st["last_position"]))
            starter = data.get("starter")
            return cls(
                rules=rules,
                phase=Phase(st["phase"]),
                turn=Side[st["turn"].upper()],
                position=position,
                dice=Dice.parse(st["dice"]) if st.get("dice") else None,
                result=Result.from_json(st["result"]) if st.get("result") else None,
                last_play=last_play,
                last_side=Side[st["last_side"].upper()] if st.get("last_side") else None,
                opening=tuple(st["opening"]) if st.get("opening") else None,
                opening_rolls=tuple(tuple(r) for r in data["opening_rolls"]),
                history=tuple(TurnRecord.from_json(t) for t in data["turns"]),
                starter=Side[starter.upper()] if starter else None,
                cube=Cube.from_json(st["cube"]) if st.get("cube") else None,
                cube_actions=tuple(CubeAction.from_json(a) for a in data.get("cube_actions") or ()),
            )
        except GameRecordError:
            raise
        except (NardyError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise GameRecordError(f"corrupted game record: {type(exc).__name__}: {exc}") from None

    def _replay_cube(self, actions: list[CubeAction], turn: int) -> Game:
        """This game after the record's cube actions made before turn `turn`, each checked."""
        game = self
        for action in (a for a in actions if a.turn == turn):
            if action.side is not game.deciding:
                raise GameRecordError(f"cube action {action.to_json()} by the wrong side")
            game = {"double": Game.double, "take": Game.take, "pass": Game.drop}[action.action](game)
        return game

    @classmethod
    def replay(cls, record: dict[str, Any]) -> Game:
        """Rebuild a game from its record, checking every turn against the rules."""
        cls._check_format(record)
        try:
            starter = record.get("starter")
            game = cls.new(
                record["game"],
                Options.from_json(record.get("options") or {}),
                Side[starter.upper()] if starter else None,
                Cube.from_json(record["cube"]) if record.get("cube") else None,
            )
            actions = [CubeAction.from_json(a) for a in record.get("cube_actions") or ()]
            for white_die, black_die in record["opening_rolls"]:
                game = game.opening_roll(white_die, black_die)
            for i, raw in enumerate(record["turns"]):
                turn = TurnRecord.from_json(raw)
                game = game._replay_cube(actions, i)
                if game.phase is Phase.ROLL:
                    game = game.roll(turn.dice.a, turn.dice.b)
                if turn.side is not game.turn or turn.dice != game.dice:
                    raise GameRecordError(
                        f"turn {i + 1} ({raw!r}) does not follow: {game.turn.label} to play {game.dice}"
                    )
                game = game.play(turn.play)
            game = game._replay_cube(actions, len(record["turns"]))
            pending = record.get("dice")
            if pending:
                dice = Dice.parse(str(pending))
                if game.phase is Phase.ROLL:
                    game = game.roll(dice.a, dice.b)
                elif game.dice != dice:
                    raise GameRecordError(
                        f"pending roll {pending!r} does not follow: {game.phase.value}, {game.dice}"
                    )
            if record.get("resigned"):
                game = game.resign(Side[str(record["resigned"]).upper()])
            return game
        except GameRecordError:
            raise
        except (NardyError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise GameRecordError(f"game record does not replay: {type(exc).__name__}: {exc}") from None
