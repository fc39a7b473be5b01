"""The pictures README shows, drawn by the project's own renderer: `python -m render.readme_pictures OUT_DIR`.

Plays one game of each variant between two computer players (the engine's levels, seeded dice and choices:
the same files on every run) and writes a board of each in the middle of its game as PNG (short nardy in a
match with the cube, light; long nardy, dark) and the short game's replay as the bot sends it (an animated
GIF, `render/replay.py`). The README and docs/ use the files in docs/.
"""

from __future__ import annotations

import dataclasses
import io
import random
import sys
from pathlib import Path

from engine import Game, Phase, Side
from engine.ai import choose_play
from engine.scoring import WinKind
from render.board import draw_board
from render.replay import FILE_EXTENSION, ReplayTexts, game_view, render_replay, replay_views
from render.view import BoardView, MoveMark

SEED = 7  # of the dice and the players' choices: a short game of 44 plays with hits, won by the expert
PLAYERS = {Side.WHITE: "expert", Side.BLACK: "intermediate"}
REPLAY_NAMES = ("Computer (expert)", "Computer (intermediate)")
BOARD_NAMES = ("Alice", "Bob")
SHORT_BOARD_AFTER = 17  # plays: a hit, a checker on the bar
LONG_BOARD_AFTER = 52
PNG_COLOURS = 128  # a shared palette: the boards' PNGs stay small and look the same


def computer_game(variant: str, seed: int) -> Game:
    """`variant` played to the end by PLAYERS with seeded dice and choices."""
    rng = random.Random(f"{variant}-{seed}")
    game = Game.new(variant)
    while game.phase is not Phase.OVER:
        if game.phase is Phase.OPENING:
            game = game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase is Phase.ROLL:
            game = game.roll(rng.randint(1, 6), rng.randint(1, 6))
        else:
            assert game.dice is not None
            game = game.play(choose_play(game.rules, game.position, game.dice, PLAYERS[game.turn], rng))
    return game


def board_after(game: Game, plays: int, names: tuple[str, str]) -> BoardView:
    """The board of `game` after its first `plays` plays, the last one marked and the next roll shown."""
    at = Game.new(game.game, game.rules.options, game.starter)
    for white_die, black_die in game.opening_rolls:
        at = at.opening_roll(white_die, black_die)
    for turn in game.history[:plays]:
        if at.phase is Phase.ROLL:
            at = at.roll(turn.dice.a, turn.dice.b)
        at = at.play(turn.play)
    following = game.history[plays]
    assert at.last_play is not None
    marks = tuple(MoveMark(m.src, m.dst, m.hit) for m in at.last_play.moves)
    status = f"{names[following.side.value]} to move: {following.dice}"
    return game_view(
        at,
        names,
        "pips",
        status,
        to_move=following.side,
        dice=(following.dice.a, following.dice.b),
        last_mover=game.history[plays - 1].side,
        last_move=marks,
    )


def png(view: BoardView) -> bytes:
    """The board of `view` as a PNG with a palette of PNG_COLOURS."""
    image = draw_board(view).quantize(PNG_COLOURS)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def pictures(seed: int = SEED) -> dict[str, bytes]:
    """File name -> bytes: both boards and the short game's replay."""
    short = computer_game("short", seed)
    long = computer_game("long", seed)
    short_board = board_after(short, SHORT_BOARD_AFTER, BOARD_NAMES)
    short_board = dataclasses.replace(
        short_board, cube=2, cube_owner=Side.BLACK, status="2:1 of 5 · " + short_board.status
    )
    long_board = dataclasses.replace(board_after(long, LONG_BOARD_AFTER, BOARD_NAMES), theme="dark")
    assert short.result is not None
    result = f"{REPLAY_NAMES[short.result.winner.value]} wins"
    if short.result.kind is not WinKind.OIN:
        result += f": {short.result.kind.value} ({short.result.points})"
    texts = ReplayTexts(start=f"{REPLAY_NAMES[0]} – {REPLAY_NAMES[1]}", result=result)
    return {
        "board-short.png": png(short_board),
        "board-long.png": png(long_board),
        f"replay-short{FILE_EXTENSION}": render_replay(replay_views(short, REPLAY_NAMES, texts)),
    }


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: python -m render.readme_pictures OUT_DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for name, data in pictures().items():
        (out / name).write_bytes(data)
        print(out / name, f"{len(data) // 1024} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
