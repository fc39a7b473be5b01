"""Where a game's chances and the computer's choices come from: the dice (fair dice from committed seeds;
scripted dice for tests) and the computer player (the engine's, in worker processes or a thread). The flow
(bot/model/flow.py) takes them as arguments: the model never rolls or decides by itself."""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

from bot.observe.metrics import LEVELS, VARIANTS, bounded, current
from bot.workers.computer import ComputerProcesses, CubeDecision, Decision, cube_in_thread, decide_in_thread
from engine import Game, Play
from engine.ai.cube import cube_decision
from engine.fair_dice import SEED_BYTES, FairSeeds


class DiceSource(Protocol):
    def roll(self, fair: FairSeeds | None, n: int) -> tuple[int, int]:
        """Roll number `n` of a game (from 0; an opening roll's first die is white's): two dice, 1..6.
        `fair`: the game's seeds (None for a game stored before the bot's dice were provably fair)."""
        ...


class FairDice:
    """Real dice for real games: each roll derived from the game's seeds (engine/fair_dice.py), whose
    server seed comes from the `secrets` module (never `random`) when the game starts."""

    def roll(self, fair: FairSeeds | None, n: int) -> tuple[int, int]:
        if fair is None:  # a game begun before the dice were provably fair: plain secret dice
            return secrets.randbelow(6) + 1, secrets.randbelow(6) + 1
        return fair.roll(n)


Seeds = tuple[tuple[str | None, str | None], tuple[str | None, str | None]]  # (clients, parts), each (w, b)
NO_SEEDS: Seeds = ((None, None), (None, None))


def new_fair_seeds(
    game: str, clients: tuple[str | None, str | None], parts: tuple[str | None, str | None] = (None, None)
) -> FairSeeds:
    """A game's seeds: `game` is "<game id>/<number in the series>"; each side's client seed (a random one
    for a side that set none) and its part of the secret (a person's drawn before the game, its SHA-256
    shown to them by /seed; a fresh one from the OS's CSPRNG for the computer, or a person who had none)."""
    seeds = tuple(c if c else secrets.token_hex(8) for c in clients)
    drawn = tuple(p if p else secrets.token_hex(SEED_BYTES) for p in parts)
    return FairSeeds.of_parts((drawn[0], drawn[1]), (seeds[0], seeds[1]), game)


class ScriptedDice:
    """Dice for tests: queued values first (in order), then a seeded pseudo-random stream."""

    def __init__(self, values: Iterable[int] = (), seed: int = 0) -> None:
        self._queue: deque[int] = deque()
        self._rng = random.Random(seed)
        self.push(*values)

    def push(self, *values: int) -> None:
        """Queue die values for the next rolls (an opening roll takes two: white's, black's)."""
        for value in values:
            if not 1 <= value <= 6:
                raise ValueError(f"scripted die {value} is not 1..6")
        self._queue.extend(values)

    @property
    def queued(self) -> int:
        return len(self._queue)

    def die(self) -> int:
        try:
            return self._queue.popleft()
        except IndexError:
            return self._rng.randint(1, 6)

    def roll(self, fair: FairSeeds | None, n: int) -> tuple[int, int]:
        return self.die(), self.die()


ComputerPlayer = Callable[[Game, str], Awaitable[Play]]  # the computer's play for the dice of a game


async def cube_answer(computer: ComputerPlayer, game: Game, level: str) -> str:
    """The computer's cube action in `game`: in Phase.ROLL (it may double) "double" or "roll", in Phase.CUBE
    "take" or "pass". An EngineComputer decides it as it decides plays; a bare play function (a test's)
    gets the engine's decision, in a thread."""
    decide = getattr(computer, "cube", None)
    if decide is not None:
        answer: str = await decide(game, level)
        return answer
    return await asyncio.to_thread(cube_decision, game, level, random.Random(0))


class EngineComputer:
    """The engine's computer opponent (engine.ai.choose_play, engine.ai.cube), run off the event loop: in
    `processes` (started computer workers, bot/workers/computer.py) when given, else in a thread. Each decision gets
    its own seed drawn from one rng (seeded: reproducible games), so it comes out the same either way."""

    def __init__(self, seed: int | None = None, processes: ComputerProcesses | None = None) -> None:
        self._rng = random.Random(secrets.randbits(64) if seed is None else seed)
        self._processes = processes

    async def __call__(self, game: Game, level: str) -> Play:
        decision_seed = self._rng.getrandbits(64)
        metrics = current()
        began = time.perf_counter()
        if self._processes is not None:
            play = await self._processes.choose(game, level, decision_seed)
        else:
            play = await decide_in_thread(Decision.of(game, level, decision_seed))
        if metrics is not None:
            metrics.decision.labels(bounded(game.game, VARIANTS), bounded(level, LEVELS)).observe(
                time.perf_counter() - began
            )
        return play

    async def cube(self, game: Game, level: str) -> str:
        decision_seed = self._rng.getrandbits(64)
        if self._processes is not None:
            return await self._processes.cube_action(game, level, decision_seed)
        return await cube_in_thread(CubeDecision.of(game, level, decision_seed))


def engine_computer(seed: int | None = None, processes: ComputerProcesses | None = None) -> ComputerPlayer:
    return EngineComputer(seed, processes)
