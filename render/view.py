"""What the renderer draws: a plain, engine-independent description of one board (the input contract).

The bot builds a `BoardView` from its game state; `render.render_board` turns it into image bytes.
`check_view` validates a view and resolves the derived figures (pip counts) once, so the drawing code
can trust its input; every problem raises `RenderError` with what was wrong and where.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from engine.sides import Side, from_absolute
from render.theme import DEFAULT_THEME, THEMES

CHECKERS = 15
GAMES = ("short", "long")


class RenderError(ValueError):
    """A `BoardView` that cannot be drawn (wrong lengths, impossible counts, bad dice or marks)."""


@dataclass(frozen=True)
class MoveMark:
    """One single move of the last play, in the MOVER's own numbering."""

    src: int  # 1..24, or 25 = bar
    dst: int  # 1..24, or 0 = borne off
    hit: bool = False


@dataclass(frozen=True)
class BoardView:
    """Everything the picture shows. Points are absolute (White's numbering): >0 White, <0 Black."""

    game: str  # "short" | "long"
    points: tuple[int, ...]  # 24 signed counts, index i = absolute point i+1
    bar: tuple[int, int] = (0, 0)  # (white, black) checkers on the bar (always 0 in long)
    off: tuple[int, int] = (0, 0)  # (white, black) borne off
    viewer: Side = Side.WHITE  # drawn from this side: its home bottom right, its numbering
    names: tuple[str, str] = ("White", "Black")  # display names (any Unicode)
    to_move: Side | None = None  # whose turn (None when the game is over)
    dice: tuple[int, ...] = ()  # the roll: (6, 1) or (3, 3) -- doubles given as two dice
    dice_used: tuple[int, ...] = ()  # die values already played this turn: drawn dimmed
    last_mover: Side | None = None
    last_move: tuple[MoveMark, ...] = ()
    pips: tuple[int, int] | None = None  # (white, black); computed from the board if None
    status: str = ""  # one line of already-translated text
    winner: Side | None = None  # set when the game is over (highlights the winner)
    pips_label: str = "pips"  # translated word printed next to the pip counts
    theme: str = DEFAULT_THEME  # the colours: one of render.theme.THEMES ("light": today's look, "dark")
    cube: int | None = None  # the doubling cube's value (None: a game without the cube)
    cube_owner: Side | None = None  # who owns the cube (None: in the middle)
    cube_offered: bool = False  # a double is offered: the cube is drawn at twice its value, highlighted


@dataclass(frozen=True)
class CheckedView:
    """A validated view with the derived figures resolved (what the drawing code reads)."""

    view: BoardView
    viewer: Side
    pips: tuple[int, int]
    dice: tuple[int, ...]  # expanded: doubles as four dice
    dice_used: tuple[bool, ...]  # per die in `dice`: already played
    to_move: Side | None
    last_mover: Side | None
    winner: Side | None


def _where(view: BoardView) -> str:
    return f"(game {view.game!r}, viewer {getattr(view.viewer, 'name', view.viewer)!r})"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _side(value: object, field: str, view: BoardView, optional: bool) -> Side | None:
    if value is None and optional:
        return None
    if isinstance(value, Side):
        return value
    if _is_int(value) and value in (0, 1):
        return Side(value)
    raise RenderError(f"{field} must be a Side{' or None' if optional else ''}, got {value!r} {_where(view)}")


def _pair(value: object, field: str, view: BoardView) -> tuple[int, int]:
    if not isinstance(value, (tuple, list)) or len(value) != 2 or not all(_is_int(v) for v in value):
        raise RenderError(f"{field} must be two integers (white, black), got {value!r} {_where(view)}")
    white, black = value
    if white < 0 or black < 0:
        raise RenderError(f"{field} has a negative count {value!r} {_where(view)}")
    return white, black


def _pip_counts(game: str, points: tuple[int, ...], bar: tuple[int, int]) -> tuple[int, int]:
    white = 25 * bar[0]
    black = 25 * bar[1]
    for index, count in enumerate(points):
        absolute = index + 1
        if count > 0:
            white += count * absolute
        elif count < 0:
            black += -count * from_absolute(game, Side.BLACK, absolute)
    return white, black


def _check_dice(view: BoardView) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    dice = view.dice
    if not isinstance(dice, (tuple, list)) or not all(_is_int(d) and 1 <= d <= 6 for d in dice):
        raise RenderError(f"dice must be values 1..6, got {dice!r} {_where(view)}")
    if len(dice) not in (0, 1, 2, 4) or (len(dice) == 4 and len(set(dice)) != 1):
        raise RenderError(f"dice must be one roll like (6, 1) or (3, 3), got {dice!r} {_where(view)}")
    expanded = tuple(dice) * 2 if len(dice) == 2 and dice[0] == dice[1] else tuple(dice)
    used = view.dice_used
    if not isinstance(used, (tuple, list)) or not all(_is_int(d) for d in used):
        raise RenderError(f"dice_used must be die values, got {used!r} {_where(view)}")
    left = Counter(expanded)
    left.subtract(used)
    if any(n < 0 for n in left.values()):
        raise RenderError(
            f"dice_used {tuple(used)!r} are not all among the dice {tuple(dice)!r} {_where(view)}"
        )
    remaining = Counter(used)
    flags: list[bool] = []
    for die in expanded:  # dim the first occurrences of each used value
        flags.append(remaining[die] > 0)
        remaining[die] -= 1
    return expanded, tuple(flags)


def _check_marks(view: BoardView, points: tuple[int, ...]) -> None:
    marks = view.last_move
    if not isinstance(marks, (tuple, list)):
        raise RenderError(f"last_move must be a tuple of MoveMark, got {marks!r} {_where(view)}")
    if marks and view.last_mover is None:
        raise RenderError(f"last_move is given but last_mover is None {_where(view)}")
    for number, mark in enumerate(marks, 1):
        if not isinstance(mark, MoveMark):
            raise RenderError(f"last_move[{number - 1}] is not a MoveMark: {mark!r} {_where(view)}")
        top = 25 if view.game == "short" else 24
        if not (_is_int(mark.src) and 1 <= mark.src <= top):
            raise RenderError(f"move {number} {mark!r}: src must be 1..{top} {_where(view)}")
        if not (_is_int(mark.dst) and 0 <= mark.dst <= 24):
            raise RenderError(f"move {number} {mark!r}: dst must be 0..24 {_where(view)}")
        if mark.src == mark.dst:
            raise RenderError(f"move {number} {mark!r}: src and dst are the same point {_where(view)}")


def check_view(view: BoardView) -> CheckedView:
    """Validate `view`; raise `RenderError` saying what is wrong and where."""
    if not isinstance(view, BoardView):
        raise RenderError(f"render_board needs a BoardView, got {type(view).__name__}")
    if view.game not in GAMES:
        raise RenderError(f"game must be 'short' or 'long', got {view.game!r}")
    if not isinstance(view.theme, str) or view.theme not in THEMES:
        raise RenderError(f"theme must be one of {THEMES}, got {view.theme!r:.40} {_where(view)}")
    viewer = _side(view.viewer, "viewer", view, optional=False)
    assert viewer is not None
    to_move = _side(view.to_move, "to_move", view, optional=True)
    last_mover = _side(view.last_mover, "last_mover", view, optional=True)
    winner = _side(view.winner, "winner", view, optional=True)
    points = view.points
    if not isinstance(points, (tuple, list)) or len(points) != 24:
        size = len(points) if isinstance(points, (tuple, list)) else type(points).__name__
        raise RenderError(f"points must hold 24 counts, got {size} {_where(view)}")
    for index, count in enumerate(points):
        if not _is_int(count):
            raise RenderError(f"points[{index}] (A{index + 1}) is not an integer: {count!r} {_where(view)}")
        if abs(count) > CHECKERS:
            raise RenderError(
                f"A{index + 1} holds {abs(count)} checkers, more than {CHECKERS} {_where(view)}"
            )
    bar = _pair(view.bar, "bar", view)
    off = _pair(view.off, "off", view)
    if view.game == "long" and bar != (0, 0):
        raise RenderError(f"long nardy has no bar, got bar={bar!r} {_where(view)}")
    for side, sign in ((Side.WHITE, 1), (Side.BLACK, -1)):
        on_points = sum(sign * c for c in points if sign * c > 0)
        total = on_points + bar[side] + off[side]
        if total != CHECKERS:
            raise RenderError(
                f"{side.label} has {total} checkers ({on_points} on points, {bar[side]} on the bar, "
                f"{off[side]} off), expected {CHECKERS} {_where(view)}"
            )
    if view.pips is None:
        pips = _pip_counts(view.game, tuple(points), bar)
    else:
        pips = _pair(view.pips, "pips", view)
    dice, used = _check_dice(view)
    _check_marks(view, tuple(points))
    for field in ("status", "pips_label"):
        if not isinstance(getattr(view, field), str):
            raise RenderError(f"{field} must be a str, got {getattr(view, field)!r} {_where(view)}")
    if view.cube is not None and (not _is_int(view.cube) or view.cube not in {2**n for n in range(7)}):
        raise RenderError(f"cube must be a power of two from 1 to 64, got {view.cube!r} {_where(view)}")
    _side(view.cube_owner, "cube_owner", view, optional=True)
    names = view.names
    if not isinstance(names, (tuple, list)) or len(names) != 2 or not all(isinstance(n, str) for n in names):
        raise RenderError(f"names must be two strings (white, black), got {names!r:.200} {_where(view)}")
    sides = (view.viewer, view.to_move, view.last_mover, view.winner)
    if any(s is not None and type(s) is not Side for s in sides):  # plain 0/1 given: store Sides
        view = replace(view, viewer=viewer, to_move=to_move, last_mover=last_mover, winner=winner)
    return CheckedView(
        view=view,
        viewer=viewer,
        pips=pips,
        dice=dice,
        dice_used=used,
        to_move=to_move,
        last_mover=last_mover,
        winner=winner,
    )
