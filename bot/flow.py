"""Game flow: what a press or a command does to a table. No Telegram, no Redis: tables in, tables out.

Refusals are raised as `Refused(msgid)`; the handlers translate them into a short alert."""

from __future__ import annotations

import math
import random
import secrets
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace
from typing import Any, Protocol

from bot.computer import ComputerProcesses, Decision, decide_in_thread
from bot.table import Person, Table, new_id
from engine import Game, NardyError, Phase, Play, Side

MAX_EVENTS = 6


class Refused(Exception):
    """A press or command that is not allowed; `msgid` is the catalog message the user reads."""

    def __init__(self, msgid: str, **params: Any) -> None:
        super().__init__(msgid)
        self.msgid = msgid
        self.params = params


class DiceSource(Protocol):
    def die(self) -> int:
        """One die, 1..6."""
        ...


class SecretDice:
    """Real dice for real games: the `secrets` module (never `random`)."""

    def die(self) -> int:
        return secrets.randbelow(6) + 1


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


ComputerPlayer = Callable[[Game, str], Awaitable[Play]]


def engine_computer(seed: int | None = None, processes: ComputerProcesses | None = None) -> ComputerPlayer:
    """The engine's computer opponent (engine.ai.choose_play), run off the event loop: in `processes`
    (started computer workers, bot/computer.py) when given, else in a thread. Each decision gets its own
    seed drawn from one rng (seeded here: reproducible games), so it comes out the same either way."""
    rng = random.Random(secrets.randbits(64) if seed is None else seed)

    async def choose(game: Game, level: str) -> Play:
        decision_seed = rng.getrandbits(64)
        if processes is not None:
            return await processes.choose(game, level, decision_seed)
        return await decide_in_thread(Decision.of(game, level, decision_seed))

    return choose


def _event(kind: str, **fields: Any) -> dict[str, Any]:
    return {"k": kind, **fields}


async def advance(
    table: Table, dice: DiceSource, computer: ComputerPlayer, events: list[dict[str, Any]] | None = None
) -> Table:
    """Roll and play whatever needs no person's decision: the opening roll, dice, forced plays, passes and
    the computer's turns; stop when a person must choose a move, or at the end of the game."""
    game = table.game
    log = list(events or [])
    score = table.score
    for _ in range(10_000):
        if game.phase is Phase.OVER:
            break
        if game.phase is Phase.OPENING:
            white, black = dice.die(), dice.die()
            game = game.opening_roll(white, black)
            log.append(
                _event(
                    "opening", w=white, b=black, first=None if game.phase is Phase.OPENING else int(game.turn)
                )
            )
            continue
        if game.phase is Phase.ROLL:
            game = game.roll(dice.die(), dice.die())
            continue
        side = game.turn
        player = table.players[side]
        roll = str(game.dice)
        if player.is_computer:
            assert player.level is not None
            play = await computer(game, player.level)
            log.append(
                _event("play", s=int(side), p=str(play), d=roll, how="pass" if not play.moves else "computer")
            )
            game = game.play(play)
            continue
        plays = game.legal_plays()
        if len(plays) != 1:
            break
        only = plays[0]
        log.append(
            _event("play", s=int(side), p=str(only), d=roll, how="pass" if not only.moves else "forced")
        )
        game = game.play(only)
    else:  # pragma: no cover - a game always needs a decision or ends
        raise RuntimeError(f"table {table.id}: advance did not reach a decision")
    if game.phase is Phase.OVER and game.result is not None and not table.over:
        points = list(score)
        points[game.result.winner] += game.result.points
        score = (points[0], points[1])
    return table.bump(game=game, moves=(), events=tuple(log[-MAX_EVENTS:]), score=score)


# ---------------------------------------------------------------------- starting games


async def start_table(
    game_id: str,
    mode: str,
    variant: str,
    white: Person,
    black: Person,
    lang: str,
    dice: DiceSource,
    computer: ComputerPlayer,
    chat_id: int | None = None,
) -> Table:
    """A new table with the opening roll made (and whatever follows without a decision)."""
    table = Table(
        id=game_id,
        mode=mode,
        game=Game.new(variant),
        players=(white, black),
        lang=lang,
        chat_id=chat_id,
        version=0,
    )
    return await advance(table, dice, computer)


def new_game_id() -> str:
    return new_id()


# ---------------------------------------------------------------------- presses on the board


def _check_turn(table: Table, user_id: int, version: int) -> Side:
    if table.version != version:
        raise Refused("This board is out of date. Use the latest message.")
    side = table.side_of(user_id)
    if side is None:
        raise Refused("You are not playing in this game.")
    if table.over:
        raise Refused("This game is over.")
    if table.game.phase is not Phase.MOVE or table.game.turn is not side:
        raise Refused("It is not your turn.")
    return side


def press_move(table: Table, user_id: int, version: int, src: int, die: int) -> Table:
    """One single move of the player on turn, chosen by (src, die)."""
    _check_turn(table, user_id, version)
    step = table.step()
    move = step.find(src, die)
    if move is None:
        raise Refused("That move is not possible now.")
    moves = table.moves + ((src, die),)
    return table.bump(moves=only_completion(table.game, moves) or moves)


def only_completion(game: Game, moves: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...] | None:
    """The moves of the whole turn when `moves` leave exactly one way to finish it (auto-complete), else None."""
    assert game.dice is not None
    if len(game.rules.turn_endings(game.position, game.dice, moves, at_most=1)) != 1:
        return None
    made = moves
    while step_moves := game.turn_step(made).next_moves:  # every next move leads to that one ending
        made += ((step_moves[0].src, step_moves[0].die),)
    return made if len(made) > len(moves) else None


def press_undo(table: Table, user_id: int, version: int) -> Table:
    """Take back the last single move made this turn."""
    _check_turn(table, user_id, version)
    if not table.moves:
        raise Refused("There is nothing to undo.")
    return table.bump(moves=table.moves[:-1])


async def press_done(
    table: Table, user_id: int, version: int, dice: DiceSource, computer: ComputerPlayer
) -> Table:
    """Finish the turn with the moves made; then roll for the next turn and play what plays itself."""
    side = _check_turn(table, user_id, version)
    step = table.step()
    if not step.can_finish or step.play is None:
        raise Refused("Finish your move first: more checkers must move.")
    game = table.game
    try:
        played = game.play(step.play)
    except NardyError as err:  # the engine disagrees with its own turn_step: refuse, log upstream
        raise Refused("That move is not possible now.") from err
    event = _event("play", s=int(side), p=str(step.play), d=str(game.dice), how="chosen")
    return await advance(replace(table, game=played, moves=()), dice, computer, [event])


def resign(table: Table, user_id: int, number: int) -> Table:
    """The user resigns game `number` of the series; scored as the engine says."""
    side = table.side_of(user_id)
    if side is None:
        raise Refused("You are not playing in this game.")
    if table.number != number or table.over:
        raise Refused("This game is over.")
    game = table.game.resign(side)
    score = list(table.score)
    if game.result is not None:
        score[game.result.winner] += game.result.points
    return table.bump(
        game=game, moves=(), events=(_event("resign", s=int(side)),), score=(score[0], score[1])
    )


async def rematch(
    table: Table, user_id: int, version: int, dice: DiceSource, computer: ComputerPlayer
) -> Table:
    """The next game of the series (Game.rematch keeps the series rules), same players and sides."""
    if table.version != version:
        raise Refused("This board is out of date. Use the latest message.")
    if table.side_of(user_id) is None:
        raise Refused("You are not playing in this game.")
    if not table.over:
        raise Refused("This game is not over yet.")
    if any(p.forgotten for p in table.players):
        raise Refused("The other player has left: no rematch. Send /newgame to start a new game.")
    nxt = replace(table, game=table.game.rematch(), moves=(), events=(), number=table.number + 1)
    return await advance(nxt, dice, computer)


# ---------------------------------------------------------------------- abandoned games


def idle_side(table: Table, now: float, claim_after: float) -> Side | None:
    """The human player on turn who has not moved for `claim_after` seconds, or None.

    Against the computer nobody can claim: the human is the only one who can be idle."""
    if table.over or table.mode == "computer" or table.moved_at is None:
        return None
    if table.game.phase not in (Phase.MOVE, Phase.ROLL):
        return None
    if now - table.moved_at < claim_after:
        return None
    side = table.game.turn
    return side if table.players[side].reachable else None


def check_claim(table: Table, user_id: int, now: float, claim_after: float) -> Side:
    """The idle side that `user_id` may claim the game from; Refused with the reason otherwise."""
    side = table.side_of(user_id)
    if side is None:
        raise Refused("You are not playing in this game.")
    if table.over:
        raise Refused("This game is over.")
    if table.mode == "computer":
        raise Refused("There is nothing to claim in a game against the computer. Send /resign to end it.")
    if table.game.turn is side:
        raise Refused("It is your turn: there is nothing to claim.")
    if idle_side(table, now, claim_after) is None:
        left = claim_after - (now - (table.moved_at if table.moved_at is not None else now))
        if left > 3600:
            raise Refused(
                "Your opponent still has time to move. You can claim the win in {hours} h.",
                hours=math.ceil(left / 3600),
            )
        raise Refused(
            "Your opponent still has time to move. You can claim the win in {minutes} min.",
            minutes=max(1, math.ceil(left / 60)),
        )
    return table.game.turn


def claim(table: Table, user_id: int, version: int, now: float, claim_after: float) -> Table:
    """The opponent of an idle player claims the game: scored like a resignation of the idle player."""
    if table.version != version:
        raise Refused("This board is out of date. Use the latest message.")
    idle = check_claim(table, user_id, now, claim_after)
    game = table.game.resign(idle)
    score = list(table.score)
    if game.result is not None:
        score[game.result.winner] += game.result.points
    return table.bump(game=game, moves=(), events=(_event("claim", s=int(idle)),), score=(score[0], score[1]))


# ---------------------------------------------------------------------- deleting a user's data


def forget_player(table: Table, user_id: int) -> Table:
    """`user_id` asked the bot to delete their data: resign their side if the game is on (scored as a
    resignation), then remove their id and name from the table."""
    side = table.side_of(user_id)
    if side is None:
        raise Refused("You are not playing in this game.")
    players = list(table.players)
    players[side] = players[side].anonymised()
    if table.over:
        return table.bump(players=(players[0], players[1]))
    return replace(resign(table, user_id, table.number), players=(players[0], players[1]))
