"""Game flow: what a press or a command does to a table. No Telegram, no Redis: tables in, tables out.

Refusals are raised as `Refused(msgid)`; the handlers translate them into a short alert."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.model.clock import Clock, time_control
from bot.model.game_format import GameFormat
from bot.model.sources import NO_SEEDS as NO_SEEDS
from bot.model.sources import ComputerPlayer as ComputerPlayer
from bot.model.sources import DiceSource as DiceSource
from bot.model.sources import EngineComputer as EngineComputer
from bot.model.sources import FairDice as FairDice
from bot.model.sources import ScriptedDice as ScriptedDice
from bot.model.sources import Seeds as Seeds
from bot.model.sources import cube_answer, new_fair_seeds
from bot.model.sources import engine_computer as engine_computer
from bot.model.table import Person, Table, new_id
from engine import OFF, Game, Match, NardyError, Phase, Result, Side
from engine.fair_dice import recorded_rolls

MAX_EVENTS = 6


class Refused(Exception):
    """A press or command that is not allowed; `msgid` is the catalog message the user reads."""

    def __init__(self, msgid: str, **params: Any) -> None:
        super().__init__(msgid)
        self.msgid = msgid
        self.params = params


def _event(kind: str, **fields: Any) -> dict[str, Any]:
    return {"k": kind, **fields}


async def advance(
    table: Table, dice: DiceSource, computer: ComputerPlayer, events: list[dict[str, Any]] | None = None
) -> Table:
    """Roll and play whatever needs no person's decision: the opening roll, dice, forced plays, passes and
    the computer's turns; stop when a person must choose a move, or at the end of the game."""
    game = table.game
    log = list(events or [])
    fair = table.fair
    rolls = fair.rolls if fair is not None else 0
    for _ in range(10_000):
        if game.phase is Phase.OVER:
            break
        if game.phase is Phase.OPENING:
            white, black = dice.roll(fair, rolls)
            rolls += 1
            game = game.opening_roll(white, black)
            log.append(
                _event(
                    "opening", w=white, b=black, first=None if game.phase is Phase.OPENING else int(game.turn)
                )
            )
            continue
        if game.phase is Phase.CUBE:
            responder = game.deciding
            taker = table.players[responder]
            if not taker.is_computer:
                break
            assert taker.level is not None
            take = await cube_answer(computer, game, taker.level) == "take"
            game = game.take() if take else game.drop()
            log.append(_event("take" if take else "pass", s=int(responder)))
            continue
        if game.phase is Phase.ROLL:
            if game.may_double():
                doubler = table.players[game.turn]
                if not doubler.is_computer:
                    break  # a person decides: 🎲 Roll or Double
                assert doubler.level is not None
                if await cube_answer(computer, game, doubler.level) == "double":
                    value = game.cube.value * 2 if game.cube is not None else 2
                    game = game.double()
                    log.append(_event("double", s=int(game.turn), v=value))
                    continue
            game = game.roll(*dice.roll(fair, rolls))
            rolls += 1
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
    if fair is not None and rolls != fair.rolls:
        fair = replace(fair, rolls=rolls)
    after = replace(table, game=game, fair=fair)
    if game.phase is Phase.OVER and not table.over:
        after = game_ended(after, "dropped" if game.result and game.result.dropped else "played")
    return after.bump(moves=(), events=tuple(log[-MAX_EVENTS:]))


# ---------------------------------------------------------------------- the end of a game and of a match


def game_ended(table: Table, how: str, forfeit: Side | None = None) -> Table:
    """`table` whose game has just ended (`how`: played, resigned, dropped, claimed): the match's score
    counts it (a match's record keeps it) and the change carries what the save records in the players'
    statistics and ratings (Table.ended). `forfeit`: the side that gave up the whole match."""
    result = table.game.result
    assert result is not None
    match = table.match
    if not match.over:
        match = match.after(result, table.game.to_json() if match.is_match else None)
    if forfeit is not None and match.is_match and not match.over:
        score = list(match.score)
        score[forfeit.other] = max(score[forfeit.other], match.length)
        match = replace(match, score=(score[0], score[1]), crawford=False)
    ended = finished_record(table, match, result, how)
    return replace(table, match=match, ended=table.ended + (ended,))


def finished_record(table: Table, match: Match, result: Result, how: str) -> dict[str, Any]:
    """What the statistics keep of a game that just ended (bot/model/stats.py's FinishedGame as JSON)."""
    return {
        "key": f"{table.id}/{table.number}",
        "variant": table.game.game,
        "mode": table.mode,
        "chat_id": table.chat_id if table.mode == "group" else None,
        "players": [{"id": p.user_id, "name": p.name, "level": p.level} for p in table.players],
        "winner": int(result.winner),
        "points": result.points,
        "kind": result.kind.value,
        "how": how,
        "match_length": match.length,
        "match_over": match.over or not match.is_match,
        "match_winner": int(result.winner)
        if not match.is_match
        else None
        if match.winner is None
        else int(match.winner),
        "match_score": list(match.score),
    }


def match_goes_on(table: Table) -> bool:
    """Whether `table`'s game is over and its match to N is not: the next game starts by itself."""
    return (
        table.over
        and table.match.is_match
        and not table.match.over
        and not any(p.forgotten for p in table.players)
    )


async def next_match_game(
    table: Table, dice: DiceSource, computer: ComputerPlayer, seeds: Seeds = NO_SEEDS
) -> Table:
    """The next game of `table`'s match, begun by itself right after a game ended (same players, sides and
    board messages; its starter as NEXT_GAME_STARTER says; its cube as the match's Crawford state says)."""
    number = table.number + 1
    game = replace(table.game.rematch(), cube=table.match.game_cube())
    nxt = replace(
        table,
        game=game,
        moves=(),
        number=number,
        fair=new_fair_seeds(f"{table.id}/{number}", *seeds),
        proof=previous_game(table),
        proofs=table.proofs + tuple(p for p in (fair_proof(table),) if p is not None),  # every game of it
    )
    result = table.game.result
    assert result is not None
    won = _event("won", s=int(result.winner), p=result.points, w=result.kind.value, n=table.number)
    event = _event("next", n=number, w=table.score[0], b=table.score[1], cr=int(table.match.crawford))
    started = await advance(nxt, dice, computer, [*table.events[-2:], won, event])
    return replace(started, version=table.version)  # one change with the end of the game before it


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
    inline_id: str | None = None,
    seeds: Seeds = NO_SEEDS,
) -> Table:
    """A new table with the opening roll made (and whatever follows without a decision). `seeds`: the
    players' own seeds for the dice (None: a random one), white's and black's, and their parts of the
    dice's secret, drawn before the game (None: a fresh one)."""
    fmt = GameFormat.parse(variant)
    match = fmt.new_match()
    table = Table(
        id=game_id,
        mode=mode,
        game=Game.new(fmt.variant, cube=match.game_cube()),
        match=match,
        players=(white, black),
        lang=lang,
        chat_id=chat_id,
        inline_id=inline_id,
        version=0,
        fair=new_fair_seeds(f"{game_id}/1", *seeds),
        clock=None
        if fmt.clock is None or white.is_computer or black.is_computer
        else Clock.start(time_control(fmt.clock), fmt.length),
    )
    return await advance(table, dice, computer)


def fair_proof(table: Table) -> dict[str, Any] | None:
    """What checks the dice of `table`'s current game once it is over (None: a game without seeds)."""
    if table.fair is None:
        return None
    return {
        "number": table.number,
        "variant": table.game.game,
        "fair": table.fair.to_json(),
        "rolls": [list(r) for r in recorded_rolls(table.game)],
        "over": table.over,
    }


def kept_proof(table: Table, number: int) -> dict[str, Any] | None:
    """What `table` keeps to check the dice of game `number` of its series: the current game's (fair_proof),
    else the one kept when that earlier game ended (without "fair" for a game played before the dice were
    provable); None when the current game has no seeds or that game is not kept."""
    if number == table.number:
        return fair_proof(table)
    return next(
        (p for p in (table.proof, *table.proofs) if p is not None and p.get("number") == number), None
    )


def previous_game(table: Table) -> dict[str, Any]:
    """What a table keeps of its game that just ended when the next of the series starts: its number,
    its record (for /export, Replay, Analyse) and what checks its dice (/verify)."""
    return {"number": table.number, "record": table.game.to_json(), **(fair_proof(table) or {})}


def finished_game(table: Table, number: int) -> Game:
    """Game `number` of `table`'s series, over: the current one or the one before (Refused otherwise)."""
    not_yet(table, number)
    if number == table.number:
        if not table.over:
            raise Refused("This game is not over yet.")
        return table.game
    kept = table.proof
    if kept is not None and kept.get("number") == number and kept.get("record"):
        return Game.from_json(kept["record"])
    games = table.match.games  # a match keeps its games: the last one is game number - 1 (or number)
    last = table.number if table.over else table.number - 1
    index = len(games) - 1 - (last - number)
    if table.match.is_match and 0 <= index < len(games) and number <= last:
        return Game.from_json(games[index])
    raise Refused("That game is no longer kept: only a series' last two games are.")


def not_yet(table: Table, number: int) -> None:
    """Refused if game `number` of `table`'s series was never played (its series is not there yet)."""
    if not 1 <= number <= table.number:
        raise Refused(
            "There is no game {game}: that series is at game {number}.",
            game=f"{table.id}/{number}",
            number=table.number,
        )


def new_game_id() -> str:
    return new_id()


# ---------------------------------------------------------------------- presses on the board


def _check_turn(table: Table, user_id: int, version: int, phase: Phase = Phase.MOVE) -> Side:
    """The presser's side, if the game waits for their decision of `phase` (MOVE: moves; ROLL: roll or
    double; CUBE: take or pass) on the board of `version`; Refused otherwise."""
    if table.version != version:
        raise Refused("This board is out of date. Use the latest message.")
    side = table.side_of(user_id)
    if side is None:
        raise Refused("You are not playing in this game.")
    if table.over:
        raise Refused("This game is over.")
    if table.game.phase is not phase or table.game.deciding is not side:
        raise Refused("It is not your turn.")
    return side


async def press_roll(
    table: Table, user_id: int, version: int, dice: DiceSource, computer: ComputerPlayer
) -> Table:
    """🎲 Roll: the player who might have doubled rolls instead."""
    _check_turn(table, user_id, version, Phase.ROLL)
    fair = table.fair
    rolls = fair.rolls if fair is not None else 0
    game = table.game.roll(*dice.roll(fair, rolls))
    if fair is not None:
        fair = replace(fair, rolls=rolls + 1)
    return await advance(replace(table, game=game, fair=fair), dice, computer)


async def press_double(
    table: Table, user_id: int, version: int, dice: DiceSource, computer: ComputerPlayer
) -> Table:
    """Double: the stakes are offered at twice the cube; the opponent takes or passes (the computer at once)."""
    side = _check_turn(table, user_id, version, Phase.ROLL)
    if not table.game.may_double():
        raise Refused("You cannot double now.")
    game = table.game.double()
    assert game.cube is not None
    event = _event("double", s=int(side), v=game.cube.value * 2)
    return await advance(replace(table, game=game), dice, computer, [event])


async def press_take(
    table: Table, user_id: int, version: int, dice: DiceSource, computer: ComputerPlayer
) -> Table:
    """Take: the cube doubles and is the taker's; the doubler rolls."""
    side = _check_turn(table, user_id, version, Phase.CUBE)
    event = _event("take", s=int(side))
    return await advance(replace(table, game=table.game.take()), dice, computer, [*table.events[-1:], event])


async def press_pass(
    table: Table, user_id: int, version: int, dice: DiceSource, computer: ComputerPlayer
) -> Table:
    """Pass: the game ends; the doubler wins the cube's value."""
    side = _check_turn(table, user_id, version, Phase.CUBE)
    event = _event("pass", s=int(side))
    dropped = game_ended(replace(table, game=table.game.drop()), "dropped")
    return await advance(dropped, dice, computer, [*table.events[-1:], event])


def press_move(
    table: Table, user_id: int, version: int, src: int, die: int, then: int | None = None
) -> Table:
    """One single move of the player on turn, chosen by (src, die); with `then`, the same checker goes on
    from where it lands with the die `then` (two single moves in one press: one board edit, not two)."""
    _check_turn(table, user_id, version)
    step = table.step()
    move = step.find(src, die)
    if move is None:
        raise Refused("That move is not possible now.")
    moves = table.moves + ((src, die),)
    if then is not None:
        if move.dst == OFF or table.game.turn_step(moves).find(move.dst, then) is None:
            raise Refused("That move is not possible now.")
        moves += ((move.dst, then),)
    return table.bump(moves=only_completion(table.game, moves) or moves)


def press_play(table: Table, user_id: int, version: int, moves: tuple[tuple[int, int], ...]) -> Table:
    """A whole play in one press at the start of a turn: its single moves (src, die), each legal after the
    ones before, together finishing the turn."""
    _check_turn(table, user_id, version)
    if table.moves:
        raise Refused("That move is not possible now.")
    made: tuple[tuple[int, int], ...] = ()
    for src, die in moves:
        if table.game.turn_step(made).find(src, die) is None:
            raise Refused("That move is not possible now.")
        made += ((src, die),)
    step = table.game.turn_step(made)
    if step.next_moves or not step.can_finish or step.play is None:
        raise Refused("That move is not possible now.")
    return table.bump(moves=made)


async def press_play_to_end(
    table: Table,
    user_id: int,
    version: int,
    moves: tuple[tuple[int, int], ...],
    dice: DiceSource,
    computer: ComputerPlayer,
) -> Table:
    """A whole play for a player who does not confirm turns with ✅ Done: it ends the turn as Done would."""
    return await end_turn_if_done(table, press_play(table, user_id, version, moves), user_id, dice, computer)


def only_completion(game: Game, moves: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...] | None:
    """The moves of the whole turn when `moves` leave exactly one way to finish it (auto-complete), else None."""
    assert game.dice is not None
    if len(game.rules.turn_endings(game.position, game.dice, moves, at_most=1)) != 1:
        return None
    made = moves
    while step_moves := game.turn_step(made).next_moves:  # every next move leads to that one ending
        made += ((step_moves[0].src, step_moves[0].die),)
    return made if len(made) > len(moves) else None


def turn_ends(table: Table) -> bool:
    """Whether the turn in progress leaves nothing to choose and can finish: ✅ Done is all that is left."""
    if table.over or table.game.phase is not Phase.MOVE:
        return False
    step = table.step()
    return not step.next_moves and step.can_finish and step.play is not None


async def press_move_to_end(
    table: Table,
    user_id: int,
    version: int,
    src: int,
    die: int,
    dice: DiceSource,
    computer: ComputerPlayer,
    then: int | None = None,
) -> Table:
    """A single move for a player who does not confirm turns with ✅ Done: the move that leaves nothing to
    choose ends the turn as Done would (the opponent's dice are rolled, forced plays and the computer's
    turn played), in the same one version step. There is no Undo after it: the turn is over."""
    moved = press_move(table, user_id, version, src, die, then)
    return await end_turn_if_done(table, moved, user_id, dice, computer)


async def end_turn_if_done(
    table: Table, moved: Table, user_id: int, dice: DiceSource, computer: ComputerPlayer
) -> Table:
    """`moved`, made from `table` by moves of `user_id`'s press: when they leave nothing to choose, with its
    turn ended as Done would end it (the opponent's dice rolled, forced plays and the computer's turn
    played), in the same one version step after `table`; else `moved` as it is."""
    if not turn_ends(moved):
        return moved
    return await press_done(replace(moved, version=table.version), user_id, table.version, dice, computer)


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
    after = replace(table, game=played, moves=())
    if played.is_over:
        after = game_ended(after, "played")
    return await advance(after, dice, computer, [event])


def resign(table: Table, user_id: int, number: int, whole_match: bool = False) -> Table:
    """The user resigns game `number` of the series, scored as the engine says; with `whole_match`, the
    match too (the opponent wins it, whatever the score)."""
    side = table.side_of(user_id)
    if side is None:
        raise Refused("You are not playing in this game.")
    if table.number != number or table.over:
        raise Refused("This game is over.")
    if whole_match and not table.match.is_match:
        raise Refused("This is a single game, not a match.")
    ended = game_ended(
        replace(table, game=table.game.resign(side)), "resigned", side if whole_match else None
    )
    kind = "resign_match" if whole_match else "resign"
    return ended.bump(moves=(), events=(_event(kind, s=int(side)),))


def check_rematch(table: Table, user_id: int, version: int) -> None:
    """Refused unless `user_id` may start the next game of `table`'s series from the board of `version`."""
    if table.tournament is not None:
        raise Refused("A tournament game has no rematch: the tournament pairs its players.")
    if table.version != version:
        raise Refused("This board is out of date. Use the latest message.")
    if table.side_of(user_id) is None:
        raise Refused("You are not playing in this game.")
    if not table.over:
        raise Refused("This game is not over yet.")
    if any(p.forgotten for p in table.players):
        raise Refused("The other player has left: no rematch. Send /newgame to start a new game.")


async def rematch(
    table: Table,
    user_id: int,
    version: int,
    dice: DiceSource,
    computer: ComputerPlayer,
    seeds: Seeds = NO_SEEDS,
) -> Table:
    """The next game of the series (Game.rematch keeps the series rules), same players and sides, its dice
    from new seeds (`seeds` as for start_table); the game just over stays verifiable (Table.proof)."""
    check_rematch(table, user_id, version)
    number = table.number + 1
    match = table.match
    if match.is_match:  # a new match of the same length
        match = GameFormat.of_match(table.game.game, match).new_match()
    nxt = replace(
        table,
        game=replace(table.game.rematch(), cube=match.game_cube()),
        match=match,
        moves=(),
        events=(),
        number=number,
        fair=new_fair_seeds(f"{table.id}/{number}", *seeds),
        proof=previous_game(table),
        proofs=(),  # a new match (or the next single game): the games before are the old match's
        clock=None if table.clock is None else Clock.start(table.clock.control, match.length),  # afresh
    )
    return await advance(nxt, dice, computer)


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
    gave_up = resign(table, user_id, table.number, whole_match=table.match.is_match)
    return replace(gave_up, players=(players[0], players[1]))
