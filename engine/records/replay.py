"""A record read from a file, replayed through the rules (`Game.replay`): when it does not replay, which of
its parts is at fault (the opening, a turn, a cube action, the roll to play, the result) and what is wrong
with it, so that a reader can name the line."""

from __future__ import annotations

from typing import Any

from engine.cube import CubeAction
from engine.errors import NardyError
from engine.game import Game, Phase, TurnRecord
from engine.records.values import CUBE_WORDS, RecordError


def replay(record: dict[str, Any], where: dict[str, Any]) -> Game:
    """Game.replay; when it fails, a RecordError naming the first line that does not replay (`where`
    gives the lines of the parts: opening, turns, pending, result)."""
    try:
        return Game.replay(record)
    except NardyError as exc:
        part, index, message = locate(record, exc)
    line = (
        where["turns"][index] if part == "turn" else where["cube"][index] if part == "cube" else where[part]
    )
    raise RecordError(message, line) from None


def locate(record: dict[str, Any], failure: NardyError) -> tuple[str, int, str]:
    """Which part of a record that does not replay is at fault, as (part, index, what is wrong), the part
    one of opening, turn, cube (the index into the turns or the cube actions), pending and result: found
    by replaying ever longer beginnings of the record, its turns and cube actions in the order they were
    made (a binary search over them)."""
    turns = record.get("turns")
    raw_actions = record.get("cube_actions") or []
    if not isinstance(turns, list) or not isinstance(raw_actions, list):
        return "opening", 0, detail(failure)
    actions: list[CubeAction] = []
    for index, raw in enumerate(raw_actions):
        try:
            actions.append(CubeAction.from_json(raw))
        except (TypeError, ValueError) as exc:
            return "cube", index, f"bad cube action {raw!r}: {exc}"
    # the steps of the game in order: ("cube", index into actions) before ("turn", index into turns)
    steps: list[tuple[str, int, int]] = sorted(
        [("cube", i, action.turn) for i, action in enumerate(actions)]
        + [("turn", i, i) for i in range(len(turns))],
        key=lambda step: (step[2], step[0] == "turn", step[1]),
    )

    def beginning(count: int, dice: str | None = None) -> Game | None:
        made = steps[:count]
        cube = sorted(i for kind, i, _ in made if kind == "cube")
        played = sum(kind == "turn" for kind, _, _ in made)
        try:
            return Game.replay(
                {
                    **record,
                    "turns": turns[:played],
                    "cube_actions": [raw_actions[i] for i in cube],
                    "dice": dice,
                    "resigned": None,
                }
            )
        except NardyError:
            return None

    if beginning(0) is None:
        return "opening", 0, detail(failure)
    good, bad = 0, len(steps) + 1  # the first `good` steps replay, the first `bad` do not
    while bad - good > 1:
        mid = (good + bad) // 2
        if beginning(mid) is None:
            bad = mid
        else:
            good = mid
    if good < len(steps):
        before = beginning(good)
        assert before is not None
        kind, index, _ = steps[good]
        if kind == "cube":
            return "cube", index, _cube_fault(before, actions[index], failure)
        return "turn", index, _turn_fault(before, turns[index], failure)
    if record.get("dice") and beginning(good, record["dice"]) is None:
        return "pending", 0, detail(failure)
    return "result", 0, detail(failure)


def _cube_fault(before: Game, action: CubeAction, failure: NardyError) -> str:
    """What is wrong with one cube action, given the game just before it."""
    what = f"{action.side.label} {CUBE_WORDS.get(action.action, 'doubles')}"
    if before.is_over:
        return f"cube action {what!r} comes after the end of the game"
    if action.side is not before.deciding:
        waiting = "answer to the double" if before.phase is Phase.CUBE else "turn"
        return f"cube action {what!r}: it is {before.deciding.label}'s {waiting}"
    try:
        {"double": Game.double, "take": Game.take, "pass": Game.drop}[action.action](before)
    except NardyError as exc:
        return f"cube action {what!r}: {exc}"
    return detail(failure)


def detail(exc: NardyError) -> str:
    """The engine's message without Game.replay's wrapper."""
    return str(exc).removeprefix("game record does not replay: ")


def _turn_fault(before: Game, raw: Any, failure: NardyError) -> str:
    """What is wrong with one turn, given the game just before it."""
    try:
        turn = TurnRecord.from_json(raw)
    except NardyError as exc:
        return str(exc)
    if before.is_over:
        return f"turn {turn.side.label} {turn.dice} {turn.play!r} comes after the end of the game"
    if before.phase is Phase.OPENING:
        return "the opening rolls have not decided who starts"
    if before.phase is Phase.CUBE:
        return f"{before.deciding.label} must take or pass the double before {turn.side.label} plays"
    expected = before.turn
    if turn.side is not expected:
        return f"it is {expected.label}'s turn, not {turn.side.label}'s"
    if before.phase is Phase.MOVE and before.dice != turn.dice:
        return f"{expected.label} has {before.dice} to play, not {turn.dice}"
    game = before.roll(turn.dice.a, turn.dice.b) if before.phase is Phase.ROLL else before
    try:
        game.play(turn.play)
    except NardyError as exc:
        return str(exc)
    return detail(failure)
