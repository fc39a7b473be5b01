"""GNU Backgammon's .mat (Jellyfish) match files for short nardy, written as gnubg's own `export match mat`
lays them out, so that `gnubg -t` then `import mat FILE` reads the game or the match with our score.

- `to_mat` writes a short-nardy game as a 1-point match of one game (a money game when its cube was
  offered), doubles, takes and passes included;
- `match_to_mat` writes every game of a match to N points the same way, each with the score before it;
- `mat_names` and `mat_play` are the names and the plays as such a file writes them.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.game import Game
from engine.match import Match
from engine.records.values import RecordError, clean_name, match_games
from engine.sides import BAR, OFF, Side

# GNU Backgammon's own .mat layout (export.c): names in a 31-character column, "%3d) " before each
# line of moves, the left (first) player's move in a 28-character column.
_MAT_NAME_WIDTH = 31
_MAT_MOVE_WIDTH = 28
_MAT_LEFT_WINS = " " * 6
_MAT_RIGHT_WINS = " " * 34
_MAT_NAME_BYTES = 31  # gnubg keeps MAX_NAME_LEN - 1 = 31 bytes of a name
# gnubg's export writes a game's score line as " %-31s%s : %d": the first player's "NAME : SCORE" padded to
# 31 bytes, the second player's right after it. A cell of 31 bytes or more glues the two ("…Петров : 0Bob"),
# and gnubg cannot read its own file back: the first player's cell must stay within 30 bytes.
_MAT_LEFT_CELL_BYTES = 30


def _mat_name(name: str, fallback: str, limit: int = _MAT_NAME_BYTES) -> str:
    """A name gnubg's .mat reader keeps whole: no colon (it ends the name), at most `limit` UTF-8 bytes,
    cut between characters."""
    cleaned = clean_name(name.replace(":", " ")) or fallback
    data = cleaned.encode()[:limit]
    return data.decode(errors="ignore").rstrip() or fallback


def mat_names(white: str, black: str, scores: Iterable[tuple[int, int]] = ((0, 0),)) -> tuple[str, str]:
    """The players' names as a .mat file of games with these scores writes them: both cut to one limit,
    so that the first player's `NAME : SCORE` fits gnubg's 30 bytes for the widest score (26 bytes for
    scores below 10) and the file survives gnubg's import, its export and a second import unchanged."""
    digits = max((len(str(score)) for pair in scores for score in pair), default=1)
    limit = min(_MAT_NAME_BYTES, _MAT_LEFT_CELL_BYTES - len(" : ") - digits)
    return _mat_name(white, "White", limit), _mat_name(black, "Black", limit)


def _mat_point(point: int) -> str:
    return "25" if point == BAR else "0" if point == OFF else str(point)


def mat_play(game_play: str) -> str:
    """A play of the record (`bar/22 6/off 13/8*`) as a .mat writes it (`25/22 6/0 13/8*`): gnubg's
    export numbers the bar 25 and borne off 0, each side counting from its own home as ours does."""
    if game_play == "pass":
        return ""
    return " ".join("/".join(_mat_hop(hop) for hop in move.split("/")) for move in game_play.split())


def _mat_hop(text: str) -> str:
    mark = "*" if text.endswith("*") else ""
    return _mat_point(_point_number(text.removesuffix("*"))) + mark


def _point_number(text: str) -> int:
    return BAR if text == "bar" else OFF if text == "off" else int(text)


def _mat_money(game: Game) -> bool:
    """Whether a single game is written as a money game: when its cube was offered (a 1-point match has
    no live cube) or it is played under the Jacoby rule (which gnubg applies to money games only)."""
    return game.cube is not None and (game.cube.jacoby or bool(game.cube_actions))


def _mat_header(length: int, comments: tuple[str, ...] = ()) -> list[str]:
    return ['; [Variation "Backgammon"]', *(f"; {c}" for c in comments), "", f" {length} point match", ""]


def _mat_score_line(names: tuple[str, str], score: tuple[int, int]) -> str:
    """` White : 0   Black : 0`, the first cell padded to 31 bytes as gnubg's C printf pads it (not to 31
    characters: a Cyrillic or emoji name takes more bytes than characters)."""
    left = f" {names[0]} : {score[0]}"
    return f"{left}{' ' * (_MAT_NAME_WIDTH - len(left.encode()))} {names[1]} : {score[1]}"


def _points_text(points: int) -> str:
    return f"{points} point{'s' if points != 1 else ''}"


def _mat_cells(game: Game) -> list[tuple[Side, str]]:
    """The game's cells in order, each in its side's column: rolls with their plays, cube actions
    (` Doubles => 2`, ` Takes`, ` Drops`) before the turn they came before, and the winner's
    ` Wins N points` last."""
    cells: list[tuple[Side, str]] = []
    value = 1

    def cube_cells(turn: int) -> None:
        nonlocal value
        for action in (a for a in game.cube_actions if a.turn == turn):
            if action.action == "double":
                cells.append((action.side, f" Doubles => {value * 2}"))
            elif action.action == "take":
                value *= 2
                cells.append((action.side, " Takes"))
            else:
                cells.append((action.side, " Drops"))

    for index, turn in enumerate(game.history):
        cube_cells(index)
        cells.append((turn.side, f"{turn.dice.a}{turn.dice.b}: {mat_play(turn.play)}".rstrip()))
    cube_cells(len(game.history))
    if not cells and game.result is not None and game.opening and game.rules.opening_dice_are_first_roll:
        # Resigned on the opening roll: gnubg needs the roll (with no play) to have a game to resign.
        cells.append((game.turn, f"{max(game.opening)}{min(game.opening)}:"))
    if game.result is not None:
        cells.append((game.result.winner, f" Wins {_points_text(game.result.points)}"))
    return cells


def _mat_game(game: Game, number: int, names: tuple[str, str], score: tuple[int, int]) -> list[str]:
    """One game as gnubg's export lays it out (export.c, ExportGameJF): White's cells on the left after
    `%3d) `, Black's in a column 28 wide to their right. The winner's `Wins` line: White's on a line of
    its own, Black's to the right of a White cell on the same line, or on a line of its own."""
    if game.game != "short":
        raise RecordError(f".mat files hold backgammon (short nardy), not {game.game} nardy")
    lines = [f" Game {number}", _mat_score_line(names, score)]
    left: str | None = None  # White's cell of the line being written
    count = 0

    def flush(right: str = "") -> None:
        nonlocal left, count
        assert left is not None
        count += 1
        text = left
        if right:
            text = left.ljust(_MAT_MOVE_WIDTH) if len(left) < _MAT_MOVE_WIDTH else left + "  "
        lines.append(f"{count:3d}) {text}{right}".rstrip())
        left = None

    cells = _mat_cells(game)
    for index, (side, cell) in enumerate(cells):
        wins = game.result is not None and index == len(cells) - 1
        if side is Side.WHITE:
            if left is not None:
                flush()
            if wins:
                lines.append(_MAT_LEFT_WINS[:-1] + cell)
            else:
                left = cell
        elif wins and left is None:
            lines.append(_MAT_RIGHT_WINS[:-1] + cell)
        else:
            if left is None:
                left = ""
            flush(cell)
    if left is not None:
        flush()
    return [*lines, ""]


def to_mat(game: Game, *, white: str, black: str) -> str:
    """A short-nardy game as a GNU Backgammon match file: `gnubg -t`, then `import mat FILE`.

    White is the first (left) player. A game whose cube was never offered is written as a 1-point match,
    not as a money session ("0 point match"): gnubg applies its own Jacoby setting to imported money games
    (on by default), which scores a mars or koks without a cube as a single game; in a match gammons
    count, so gnubg's score equals ours. A game whose cube was offered is written as a money game (a
    1-point match cannot hold a live cube): gnubg multiplies by the cube as we do, and its Jacoby setting
    cannot change the score, as Jacoby only counts while the cube was never turned, and an offered cube
    was either turned, passed, or still offered when the game was resigned. A single game under the
    Jacoby rule is a money game too: gnubg scores it as we do under its default Jacoby setting (on).
    A game of a match is written here as a game on its own; `match_to_mat` writes it in its match.

    Each play is written from its mover's side (24 = farthest point, 25 = the bar, 0 = off), hits marked
    `*`; a double as ` Doubles => 2` in the doubler's column, the answer as ` Takes` or ` Drops` in the
    other's. A game won by bearing off or by a pass ends with gnubg's `Wins N point(s)` line; a resigned
    one too, which gnubg reads as the loser resigning a single, mars or koks at the cube's value. A roll
    not yet played is left out: gnubg would play a forced move for it. Only a game resigned on its
    opening roll, before any play, shows that roll with no play, as gnubg needs a roll to have a game to
    resign."""
    names = mat_names(white, black)
    if not _mat_money(game):
        return "\n".join(_mat_header(1) + _mat_game(game, 1, names, (0, 0))) + "\n"
    assert game.cube is not None
    comment = (
        f"a single game with the doubling cube: money play, Jacoby rule {'on' if game.cube.jacoby else 'off'}"
    )
    return "\n".join(_mat_header(0, (comment,)) + _mat_game(game, 1, names, (0, 0))) + "\n"


def match_to_mat(match: Match, current: Game | None, *, white: str, black: str) -> str:
    """Every game of a match as one GNU Backgammon match file: ` N point match`, then each game's
    ` Game k` with the score before it (the layout of gnubg's `export match mat`), the current game last.

    gnubg's export does not mark the Crawford game and its import does not read a mark: it takes the
    first game where one player needs a single point as the Crawford game, as `Match.after` does, so the
    scores alone carry it. A series of single games (`length` 1) is written as a money session ("0 point
    match") of its games, as a 1-point match ends with its first game; gnubg scores its games as we do
    when its Jacoby setting is ours (the file's comment says which): the setting only matters for a mars
    or koks borne off while the cube was never turned. A series of one game is written as `to_mat`
    writes that game."""
    games = match_games(match, current)
    names = mat_names(white, black, (item.score for item in games))
    if not match.is_match and len(games) == 1:
        return to_mat(games[0].game, white=white, black=black)
    if match.is_match:
        header = _mat_header(match.length)
    else:
        cube = "with the doubling cube" if match.cube else "without the cube"
        jacoby = "on" if match.jacoby else "off"
        header = _mat_header(0, (f"single games {cube}: money play, Jacoby rule {jacoby}",))
    lines = header
    for number, item in enumerate(games, start=1):
        lines += _mat_game(item.game, number, names, item.score)
    return "\n".join(lines) + "\n"
