"""The computer opponent's decisions, made off the event loop: in worker processes of their own, or in
a thread.

`engine.ai.choose_play` is pure Python: run in a thread of the bot's process it holds the interpreter
lock for the whole search (a long nardy expert move is 50-75 ms, up to a second), and every other
game's presses wait for it. `ComputerProcesses(n)` runs `n` workers `python -m bot.workers.computer`
(`nardy-computer` in ps), apart from the render workers so that a long search never delays another
game's picture; the pipes, the start, the replacement of a failed worker and the worker's minimal
environment are `bot/workers/worker_pool.py`'s.

A request is a pickled `Decision`: the variant and its house rules, the position, the dice, the level
and a seed drawn from the bot's rng (the worker plays with `random.Random(seed)`, so a seeded bot plays
the same games whether it decides in a worker or in a thread). The answer is the chosen play's single
moves as JSON, `[[src, die], ...]`; the bot never trusts it blindly: `accepted_play` takes it only if
those moves finish the turn legally (the check a player's Done gets). A refused answer, an error from
the worker's engine, or a worker that dies or hangs: the decision is made in a thread and the error
logged.

Cube decisions (short nardy with the doubling cube) go the same way: a pickled `CubeDecision` (the
phase, the side on turn, the position, the cube, the level and a seed), answered with the action as a
JSON string, which `accepted_cube_action` takes only if the game waits for it ("double" or "roll" in
Phase.ROLL, "take" or "pass" in Phase.CUBE); `ComputerProcesses.cube_action` falls back to a thread
(`cube_in_thread`) as `choose` does.

Queue bound: at most `queue_bound` (default 2) decisions are written to one worker and not yet
answered; more wait in the bot's loop for a free slot (in order of arrival) instead of piling onto the
pipes. Two keeps a worker busy (the next request is already in its pipe when it answers) while a request
stays free to go to whichever worker frees up first, behind at most one search of up to a second; and
when a worker dies, at most two of its decisions are made in threads of the bot's process (each holding
the interpreter lock) rather than the whole backlog of a busy minute.

Priority: the workers lower theirs by NICE (10). On a machine whose cores are all busy, the event loop
and the render workers then come first and a search takes what is left: a long think delays only its own
game (`python bench/load.py --rate 100 --computer-share 0.2` on two cores: the other games' p99 30-80 ms
with it, against 210-720 ms with the search in a thread of the bot).
"""

from __future__ import annotations

import asyncio
import json
import logging
import pickle
import random
from dataclasses import dataclass
from typing import Any

from bot.workers.pictures import ComparisonRequest, ReplayRequest
from bot.workers.worker_pool import HandlerFailed, WorkerGone, WorkerPool, WorkerSpec, run_worker
from engine import Dice, Game, NardyError, Options, Phase, Play, Position, Side, find_rules
from engine.cube import Cube

log = logging.getLogger(__name__)

QUEUE_BOUND = 2  # decisions written to one worker and not yet answered; see the module's docstring
NICE = 10  # the workers' priority below the bot's: see the module's docstring
DECISION_TIMEOUT = 30.0  # seconds a worker owing decisions may go without an answer before it is replaced
MAX_MOVES = 4  # a turn is at most four single moves (a double)
CUBE_ACTIONS = {Phase.ROLL: ("double", "roll"), Phase.CUBE: ("take", "pass")}  # a cube answer, by phase


MAX_WAITING = 64  # decisions waiting for a worker's slot; past this a press is refused ("busy"), not queued


class ComputerBusy(RuntimeError):
    """Too many decisions wait for the computer: the press is refused (nothing saved), to be pressed again."""


class BadAnswer(ValueError):
    """A computer worker's answer is not a legal, complete play (or cube action) for the decision it was asked."""


@dataclass(frozen=True)
class Decision:
    """What a worker needs to choose a play: the game's rules (variant and house rules), the position
    and dice of the turn, the level, and the seed of the search's rng."""

    variant: str
    options: Options
    position: Position
    dice: tuple[int, int]
    level: str
    seed: int

    @classmethod
    def of(cls, game: Game, level: str, seed: int) -> Decision:
        if game.phase is not Phase.MOVE or game.dice is None:
            raise ValueError(f"the computer was asked to play in phase {game.phase.name}, dice {game.dice}")
        dice = (game.dice.a, game.dice.b)
        return cls(game.rules.name, game.rules.options, game.position, dice, level, seed)

    def choose(self) -> Play:
        """The engine's choice (engine.ai.choose_play with `random.Random(seed)`)."""
        from engine.ai import choose_play

        rules = find_rules(self.variant, self.options)
        return choose_play(rules, self.position, Dice.of(self.dice), self.level, random.Random(self.seed))


def play_answer(play: Play) -> bytes:
    """A worker's answer: the play's single moves, `[[src, die], ...]` (`[]`: a pass)."""
    return json.dumps([[m.src, m.die] for m in play.moves]).encode()


def accepted_play(game: Game, answer: bytes) -> Play:
    """The play of `game`'s turn that `answer` names, if its moves are well formed and finish the turn
    legally; BadAnswer (saying what was wrong) otherwise."""
    where = f"{game.rules.name} nardy, dice {game.dice}, {game.rules.describe(game.position)}"
    try:
        moves = json.loads(answer)
    except ValueError:
        raise BadAnswer(f"answer {answer[:80]!r} is not JSON ({where})") from None
    if (
        not isinstance(moves, list)
        or len(moves) > MAX_MOVES
        or not all(isinstance(m, list) and len(m) == 2 and all(type(v) is int for v in m) for m in moves)
    ):
        raise BadAnswer(f"answer {answer[:80]!r} is not a list of at most 4 [src, die] pairs ({where})")
    pairs = tuple((src, die) for src, die in moves)
    try:
        step = game.turn_step(pairs)
    except NardyError as err:
        raise BadAnswer(f"answer {pairs} is not legal: {err}") from None
    if not step.can_finish or step.play is None:
        raise BadAnswer(f"answer {pairs} does not finish the turn ({where})")
    return step.play


@dataclass(frozen=True)
class CubeDecision:
    """What a worker needs for a cube action (engine.ai.cube.cube_decision): the game's rules, the phase
    (ROLL: the side on turn doubles or rolls; CUBE: the other side takes or passes), the side on turn,
    the position, the cube, the level and the seed of the decision's rng."""

    variant: str
    options: Options
    phase: Phase
    turn: Side
    position: Position
    cube: Cube
    level: str
    seed: int

    @classmethod
    def of(cls, game: Game, level: str, seed: int) -> CubeDecision:
        if game.cube is None or not (game.phase is Phase.CUBE or game.may_double()):
            raise ValueError(
                f"the computer was asked for a cube action in phase {game.phase.name} "
                f"with cube {game.cube.to_json() if game.cube is not None else None}"
            )
        return cls(
            game.rules.name, game.rules.options, game.phase, game.turn, game.position, game.cube, level, seed
        )

    def game(self) -> Game:
        """The game as far as the cube decision sees it."""
        rules = find_rules(self.variant, self.options)
        return Game(rules, self.phase, self.turn, self.position, cube=self.cube)

    def choose(self) -> str:
        """The engine's action: "double" or "roll" (Phase.ROLL), "take" or "pass" (Phase.CUBE)."""
        from engine.ai.cube import cube_decision

        return cube_decision(self.game(), self.level, random.Random(self.seed))


def cube_answer(action: str) -> bytes:
    """A worker's answer to a CubeDecision: the action as a JSON string."""
    return json.dumps(action).encode()


def accepted_cube_action(game: Game, answer: bytes) -> str:
    """The cube action `answer` names if it is one `game` waits for ("double" or "roll" in Phase.ROLL,
    "take" or "pass" in Phase.CUBE); BadAnswer (saying what was wrong) otherwise."""
    allowed = CUBE_ACTIONS.get(game.phase, ())
    try:
        action = json.loads(answer)
    except ValueError:
        raise BadAnswer(f"cube answer {answer[:80]!r} is not JSON (phase {game.phase.name})") from None
    if action not in allowed:
        raise BadAnswer(f"cube answer {answer[:80]!r} is not one of {allowed} (phase {game.phase.name})")
    return str(action)


async def cube_in_thread(decision: CubeDecision) -> str:
    """The cube action decided in a thread of the bot's process."""
    return await asyncio.to_thread(decision.choose)


async def decide_in_thread(decision: Decision) -> Play:
    """The decision in a thread of the bot's process (holding the interpreter lock while it searches)."""
    return await asyncio.to_thread(decision.choose)


class ComputerProcesses(WorkerPool):
    """`workers` computer worker processes (`python -m bot.workers.computer`), started with `await start()`
    inside the bot's event loop and stopped with `await stop()`. At most `queue_bound` decisions are
    queued per worker (more wait for a slot); a worker owing decisions that answers none for `timeout`
    seconds is taken for hung and replaced. `module`: the worker's module (tests run misbehaving ones)."""

    def __init__(
        self,
        workers: int,
        queue_bound: int = QUEUE_BOUND,
        timeout: float = DECISION_TIMEOUT,
        module: str = "bot.workers.computer",
    ) -> None:
        spec = WorkerSpec(module=module, label="computer worker", timeout=timeout, queue_bound=queue_bound)
        super().__init__(spec, workers)
        self.from_workers = 0  # decisions taken from a worker's answer
        self.in_thread = 0  # decisions made in a thread because no worker gave a legal answer

    async def choose(self, game: Game, level: str, seed: int) -> Play:
        """The computer's play at `level` for `game`'s turn, from a worker if one gives a legal answer;
        otherwise decided in a thread (and the worker's failure or bad answer logged)."""
        decision = Decision.of(game, level, seed)
        if (
            len(self._waiting) >= MAX_WAITING
        ):  # every worker full and a queue behind them: refuse, not pile up
            raise ComputerBusy(f"{len(self._waiting)} decisions wait for the computer processes")
        try:
            answer = await self.call(pickle.dumps(decision, protocol=pickle.HIGHEST_PROTOCOL))
            play = accepted_play(game, answer)
            self.from_workers += 1
            return play
        except WorkerGone:  # none running, or it died or hung (logged; it is replaced)
            pass
        except HandlerFailed as err:
            log.error("a computer worker could not decide (%s); deciding in a thread: %r", err, decision)
        except BadAnswer as err:
            log.error("a computer worker's answer was refused (%s); deciding in a thread", err)
        self.in_thread += 1
        return await decide_in_thread(decision)

    async def cube_action(self, game: Game, level: str, seed: int) -> str:
        """The computer's cube action at `level` for `game` ("double" or "roll" for the side on turn in
        Phase.ROLL when it may double, "take" or "pass" for the side offered a double in Phase.CUBE),
        from a worker if it answers one of those; otherwise decided in a thread (the failure logged)."""
        decision = CubeDecision.of(game, level, seed)
        if len(self._waiting) >= MAX_WAITING:
            raise ComputerBusy(f"{len(self._waiting)} decisions wait for the computer processes")
        try:
            answer = await self.call(pickle.dumps(decision, protocol=pickle.HIGHEST_PROTOCOL))
            action = accepted_cube_action(game, answer)
            self.from_workers += 1
            return action
        except WorkerGone:
            pass
        except HandlerFailed as err:
            log.error("a computer worker could not decide a cube action (%s); in a thread: %r", err, decision)
        except BadAnswer as err:
            log.error("a computer worker's cube answer was refused (%s); deciding in a thread", err)
        self.in_thread += 1
        return await cube_in_thread(decision)


# ---------------------------------------------------------------------- analysis and hints


@dataclass(frozen=True)
class Review:
    """A stretch of a game's plays to judge (engine.ai.analysis.review_turns: turns start..stop-1)."""

    record: dict[str, Any]  # Game.to_json
    start: int
    stop: int

    def run(self) -> tuple[Any, ...]:
        from engine.ai.analysis import review_turns

        return review_turns(Game.from_json(self.record), self.start, self.stop)


@dataclass(frozen=True)
class HintRequest:
    """The best plays and the chances of the side on turn (engine.ai.analysis.hint)."""

    record: dict[str, Any]  # Game.to_json, in its MOVE phase

    def run(self) -> Any:
        from engine.ai.analysis import hint

        return hint(Game.from_json(self.record))


@dataclass(frozen=True)
class ChancesRequest:
    """White's chance to win at each frame of a finished game's replay (engine.ai.analysis.win_chances)."""

    record: dict[str, Any]  # Game.to_json

    def run(self) -> tuple[float, ...]:
        from engine.ai.analysis import win_chances

        return win_chances(Game.from_json(self.record))


Work = Review | HintRequest | ChancesRequest | ReplayRequest | ComparisonRequest


async def think(processes: ComputerProcesses | None, request: Work) -> Any:
    """A review, a hint, a replay or a comparison picture, worked out in the analysis workers (processes
    of their own, niced: the games' boards and the computer's moves never wait for them), or in a thread
    when there are none or they fail. ComputerBusy when MAX_WAITING requests wait already."""
    if processes is not None and len(processes._waiting) >= MAX_WAITING:
        raise ComputerBusy(f"{len(processes._waiting)} requests wait for the analysis processes")
    if processes is not None:
        try:
            return pickle.loads(await processes.call(pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)))
        except WorkerGone:
            pass
        except HandlerFailed as err:
            log.error(
                "a computer worker could not work out %s (%s); in a thread", type(request).__name__, err
            )
    return await asyncio.to_thread(request.run)


# ---------------------------------------------------------------------- the worker's side


def _decide(request: bytes) -> bytes:
    """A computer worker's handler: a pickled Decision in (pickles only ever come from the bot's own
    process), the chosen play's moves out; a CubeDecision, its action out; or a Review, HintRequest,
    ChancesRequest or picture request, its pickled result out."""
    decision = pickle.loads(request)
    if isinstance(decision, Review | HintRequest | ChancesRequest | ReplayRequest | ComparisonRequest):
        return pickle.dumps(decision.run(), protocol=pickle.HIGHEST_PROTOCOL)
    if isinstance(decision, CubeDecision):
        return cube_answer(decision.choose())
    if not isinstance(decision, Decision):
        raise TypeError(f"expected a Decision or a CubeDecision, got {type(decision).__name__}")
    return play_answer(decision.choose())


def _warm() -> None:
    """Import the players and load their evaluators (short nardy's network) before saying ready."""
    from engine.ai import LEVELS, choose_play
    from engine.ai.cube import cube_decision

    for variant in ("short", "long"):
        game = Game.new(variant).opening_roll(6, 1)
        if game.phase is Phase.ROLL:
            game = game.roll(6, 1)
        assert game.dice is not None
        for level in LEVELS:
            choose_play(game.rules, game.position, game.dice, level, random.Random(0))
    cubed = Game.new("short", starter=Side.WHITE, cube=Cube())  # bgsage's cube evaluation, loaded once
    for level in LEVELS:
        cube_decision(cubed, level, random.Random(0))


def main() -> None:
    """`python -m bot.workers.computer`: a computer worker (named `nardy-computer` for ps)."""
    run_worker("nardy-computer", _decide, _warm, nice=NICE)


if __name__ == "__main__":  # serve from `bot.workers.computer` imported by name: requests unpickle to
    import bot.workers.computer  # bot.workers.computer.Decision, not to this __main__ module's copy of the class

    bot.workers.computer.main()
