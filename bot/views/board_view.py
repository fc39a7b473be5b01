"""The Game -> BoardView adapter: what the renderer draws for one viewer of a table."""

from __future__ import annotations

from bot.i18n import Texts
from bot.model.table import Table
from bot.views.captions import names, win_kind
from engine import Game, Phase, Side
from render.replay import ReplayTexts
from render.view import BoardView, MoveMark


def start_view(variant: str, t: Texts) -> BoardView:
    """The start position of `variant`, as a challenge card shows it (nobody's turn yet)."""
    board = Game.new(variant).board()
    return BoardView(
        game=variant,
        points=tuple(board.points),
        bar=tuple(board.bar),  # type: ignore[arg-type]
        off=tuple(board.off),  # type: ignore[arg-type]
        names=(t.gettext("White"), t.gettext("Black")),
        status=t.gettext("Who will accept?"),
        pips_label=t.gettext("pips"),
    )


def board_view(
    table: Table, viewer: Side, names: tuple[str, str], status: str, pips_label: str, theme: str = "light"
) -> BoardView:
    """The board of `table` drawn from `viewer`'s side, with the turn in progress (moves made) shown, in the
    colours of `theme` (render.theme.THEMES)."""
    game = table.game
    rules = game.rules
    dice: tuple[int, ...] = ()
    dice_used: tuple[int, ...] = ()
    last_mover: Side | None = game.last_side
    last_move = tuple(game.last_play.moves) if game.last_play is not None else ()
    if game.phase is Phase.MOVE and game.dice is not None:
        step = table.step()
        board = rules.absolute(step.position, game.turn)
        mover_pips, other_pips = rules.pip_counts(step.position)
        pips = (mover_pips, other_pips) if game.turn is Side.WHITE else (other_pips, mover_pips)
        dice = (game.dice.a, game.dice.b)
        dice_used = tuple(m.die for m in step.moves_made)
        if step.moves_made:
            last_mover, last_move = game.turn, tuple(step.moves_made)
    else:
        board = game.board()
        pips = game.pip_counts()
    to_move = game.deciding if game.phase in (Phase.MOVE, Phase.ROLL, Phase.CUBE) else None
    winner = game.result.winner if game.phase is Phase.OVER and game.result is not None else None
    marks = tuple(MoveMark(m.src, m.dst, m.hit) for m in last_move) if last_mover is not None else ()
    return BoardView(
        game=game.game,
        points=tuple(board.points),
        bar=tuple(board.bar),  # type: ignore[arg-type]
        off=tuple(board.off),  # type: ignore[arg-type]
        viewer=viewer,
        names=names,
        to_move=to_move,
        dice=dice,
        dice_used=dice_used,
        last_mover=last_mover if marks else None,
        last_move=marks,
        pips=(int(pips[0]), int(pips[1])),
        status=status,
        winner=winner,
        pips_label=pips_label,
        theme=theme,
        cube=game.cube.value if game.cube is not None else None,
        cube_owner=game.cube.owner if game.cube is not None else None,
        cube_offered=game.phase is Phase.CUBE,
    )


def replay_texts(t: Texts, table: Table, game: Game) -> ReplayTexts:
    """The words on a finished game's replay frames (the chat's 🎞 Replay, the Mini App's review)."""
    who = names(t, table)
    result = ""
    if game.result is not None:
        result = t.gettext(
            "{name} wins: {kind}", name=who[game.result.winner], kind=win_kind(t, game.result.kind)
        )
    return ReplayTexts(
        start=t.gettext("⚪ {white} vs ⚫ {black}", white=who[0], black=who[1]),
        result=result,
        no_move=t.gettext("no move"),
        pips_label=t.gettext("pips"),
    )
