"""The replay of a finished game as one animation: `replay_views(game)` then `render_replay(views) -> bytes`.

    views = replay_views(game, names=("Alice", "Bob"), texts=ReplayTexts(start="…", result="…"))
    animation = render_replay(views)  # an animated GIF (MIME_TYPE), for Telegram's sendAnimation

A replay is one frame per play (the position after it, the dice that were played and the moves drawn as
the board renders a last move), a first frame with the start position and a last frame with the result,
held longer. The frames are the board pictures scaled down and mapped to one shared palette, so that the
GIF's delta frames carry only the pixels a play changed.

GIF because Telegram plays a GIF sent with sendAnimation inline, silent and looping (it turns it into an
MP4 on its side), while sendAnimation takes no WebP: an animated WebP would arrive as a document (or a
sticker, 512 px at most). Measured with `bench/replay.py --format WEBP`, lossy WebP (quality 70) was also
about 25% larger and three times slower to encode than this GIF (64 shared colours, delta frames). MP4
would need PyAV or imageio-ffmpeg (bundled FFmpeg builds), a heavy dependency for no gain here.
Pure: no I/O, no clock; the same views give the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image

from engine.errors import NardyError
from engine.game import Game, Phase
from engine.sides import Side
from render import layout as L
from render.board import draw_board
from render.theme import DEFAULT_THEME
from render.view import BoardView, MoveMark, RenderError

IMAGE_FORMAT = "GIF"
MIME_TYPE = "image/gif"
FILE_EXTENSION = ".gif"
FORMATS = ("GIF", "WEBP")

SCALE = 0.6  # of the board picture (layout.SIZE): 488 x 469, still readable in a chat
MIN_SCALE = 0.3  # the smallest a very long game is scaled down to, to fit in MAX_BYTES
PLAY_MS = 1000  # each play
FIRST_MS = 2000  # the start position
LAST_MS = 5000  # the result
MAX_BYTES = 2_000_000
COLOURS = 64  # looks like the board and keeps the GIF small; a free index marks unchanged pixels
PALETTE_SAMPLES = 8  # frames the shared palette is built from
WEBP_QUALITY = 70


@dataclass(frozen=True)
class ReplayTexts:
    """The words on a replay's frames, already translated by the caller (render/ never translates)."""

    start: str = ""  # the first frame's status line, e.g. "Alice – Bob"
    result: str = ""  # the last frame's status line, e.g. "Alice won: mars (2)"
    no_move: str = "no move"  # after the play's number when a side could not move
    pips_label: str = "pips"


def replay_views(
    game: Game,
    names: tuple[str, str] = ("White", "Black"),
    texts: ReplayTexts | None = None,
    viewer: Side = Side.WHITE,
    theme: str = DEFAULT_THEME,
) -> list[BoardView]:
    """The frames of `game`'s replay, seen by `viewer`: the start, one view per play, the result.

    Walks the record (opening rolls, then every turn) from the start position. A play's view shows the
    position after it, its dice (drawn on the mover's side, the mover's panel lit) and its moves marked;
    its status line is the play's number ("12/87", plus `texts.no_move` for a turn without a move). The
    last view holds the final position, the winner lit and `texts.result`. A game stored as a record
    replays with `Game.replay(record)` first. Raises `RenderError` for a game that is not over."""
    if game.phase is not Phase.OVER or game.result is None:
        raise RenderError(
            f"a replay needs a finished game, this one is in phase {game.phase.value} "
            f"after {len(game.history)} plays ({game.rules.describe(game.position)})"
        )
    texts = texts or ReplayTexts()
    total = len(game.history)

    def view(at: Game, status: str, **marks: Any) -> BoardView:
        return game_view(at, names, texts.pips_label, status, viewer=viewer, theme=theme, **marks)

    at = Game.new(game.game, game.rules.options, game.starter)
    for white_die, black_die in game.opening_rolls:
        at = at.opening_roll(white_die, black_die)
    first = game.history[0].side if game.history else at.turn
    views = [view(at, to_move=first, status=texts.start)]
    marks: tuple[MoveMark, ...] = ()
    for number, turn in enumerate(game.history, 1):
        try:
            if at.phase is Phase.ROLL:
                at = at.roll(turn.dice.a, turn.dice.b)
            at = at.play(turn.play)
        except NardyError as error:
            raise RenderError(
                f"play {number} of the record ({turn.to_json()!r}) does not replay: {error}"
            ) from error
        assert at.last_play is not None
        marks = tuple(MoveMark(m.src, m.dst, m.hit) for m in at.last_play.moves)
        status = f"{number}/{total}" + (f" · {texts.no_move}" if not marks else "")
        views.append(
            view(
                at,
                to_move=turn.side,
                dice=(turn.dice.a, turn.dice.b),
                last_mover=turn.side if marks else None,
                last_move=marks,
                status=status,
            )
        )
    if at.position != game.position:
        raise RenderError(f"the record of this game does not lead to its position ({game.position_id()})")
    last_mover = game.history[-1].side if game.history and marks else None
    views.append(
        view(
            game,
            winner=game.result.winner,
            last_mover=last_mover,
            last_move=marks if last_mover is not None else (),
            status=texts.result,
        )
    )
    return views


def game_view(
    at: Game,
    names: tuple[str, str],
    pips_label: str,
    status: str,
    *,
    viewer: Side = Side.WHITE,
    theme: str = DEFAULT_THEME,
    to_move: Side | None = None,
    dice: tuple[int, int] | tuple[()] = (),
    last_mover: Side | None = None,
    last_move: tuple[MoveMark, ...] = (),
    winner: Side | None = None,
) -> BoardView:
    """The board of `at` as a picture's view: its position and pips, with the dice, marks and status given."""
    board = at.board()
    white, black = at.pip_counts()
    return BoardView(
        game=at.game,
        points=tuple(board.points),
        bar=(board.bar[0], board.bar[1]),
        off=(board.off[0], board.off[1]),
        viewer=viewer,
        names=names,
        to_move=to_move,
        dice=dice,
        last_mover=last_mover,
        last_move=last_move,
        pips=(int(white), int(black)),
        status=status,
        winner=winner,
        pips_label=pips_label,
        theme=theme,
    )


def frame_durations(count: int, play_ms: int, first_ms: int, last_ms: int) -> list[int]:
    """Milliseconds per frame: the first and the last held longer than the plays between them."""
    if count < 2:
        raise RenderError(f"a replay needs at least a first and a last frame, got {count} frame(s)")
    return [first_ms] + [play_ms] * (count - 2) + [last_ms]


def _size(scale: float) -> tuple[int, int]:
    return round(L.WIDTH * scale), round(L.HEIGHT * scale)


def _draw(views: Sequence[BoardView], size: tuple[int, int]) -> list[Image.Image]:
    frames: list[Image.Image] = []
    for number, view in enumerate(views):
        try:
            image = draw_board(view)
        except RenderError as error:
            raise RenderError(f"frame {number} of {len(views)}: {error}") from error
        frames.append(image if image.size == size else image.resize(size, Image.Resampling.BOX))
    return frames


def _palette(views: Sequence[BoardView], frames: Sequence[Image.Image]) -> Image.Image:
    """One palette of COLOURS for every frame, from a strip of a few frames: evenly spaced ones, the
    first hit (its red badge) and the last (the winner's panel)."""
    step = max(1, len(frames) // PALETTE_SAMPLES)
    chosen = set(range(0, len(frames), step)) | {len(frames) - 1}
    hits = [k for k, view in enumerate(views) if any(mark.hit for mark in view.last_move)]
    chosen |= set(hits[:1])
    width, height = frames[0].size
    strip = Image.new("RGB", (width, height * len(chosen)))
    for row, k in enumerate(sorted(chosen)):
        strip.paste(frames[k], (0, row * height))
    return strip.quantize(COLOURS, Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


def _gif(frames: Sequence[Image.Image], palette: Image.Image, durations: list[int]) -> bytes:
    indexed = [frame.quantize(palette=palette, dither=Image.Dither.NONE) for frame in frames]
    out = io.BytesIO()
    indexed[0].save(
        out,
        "GIF",
        save_all=True,
        append_images=indexed[1:],
        duration=durations,
        loop=0,
        optimize=True,  # unchanged pixels become the free palette index: delta frames shrink to a play's changes
        disposal=1,
    )
    return out.getvalue()


def _webp(frames: Sequence[Image.Image], durations: list[int]) -> bytes:
    out = io.BytesIO()
    frames[0].save(
        out,
        "WEBP",
        save_all=True,
        append_images=list(frames[1:]),
        duration=durations,
        loop=0,
        quality=WEBP_QUALITY,
        method=4,
    )
    return out.getvalue()


def render_replay(
    views: Sequence[BoardView],
    *,
    play_ms: int = PLAY_MS,
    first_ms: int = FIRST_MS,
    last_ms: int = LAST_MS,
    scale: float = SCALE,
    max_bytes: int | None = MAX_BYTES,
    image_format: str = IMAGE_FORMAT,
) -> bytes:
    """An animation of `views`, looping: the first frame held `first_ms`, the last `last_ms`, every other
    `play_ms`; the board scaled by `scale`; GIF bytes (MIME_TYPE), or animated WebP for "WEBP".

    When the animation comes out larger than `max_bytes` (a very long game), its frames are scaled down
    further until it fits; `RenderError` if it would need a scale below MIN_SCALE. Pure and deterministic:
    the same views give the same bytes. Raises `RenderError` for a bad view (saying which frame) or bad
    settings."""
    if image_format not in FORMATS:
        raise RenderError(f"image_format must be one of {FORMATS}, got {image_format!r}")
    if not MIN_SCALE <= scale <= 1:
        raise RenderError(f"scale must be between {MIN_SCALE} and 1, got {scale!r}")
    if min(play_ms, first_ms, last_ms) < 20:
        raise RenderError(f"frame durations must be at least 20 ms, got {(play_ms, first_ms, last_ms)!r}")
    durations = frame_durations(len(views), play_ms, first_ms, last_ms)
    frames = _draw(views, _size(scale))
    palette = _palette(views, frames) if image_format == "GIF" else None
    while True:
        data = _webp(frames, durations) if palette is None else _gif(frames, palette, durations)
        if max_bytes is None or len(data) <= max_bytes:
            return data
        if scale <= MIN_SCALE:
            raise RenderError(
                f"a replay of {len(views)} frames takes {len(data)} bytes, "
                f"more than {max_bytes} even at the smallest scale {MIN_SCALE}"
            )
        # Measured: the bytes grow about with the side of the frames, not with their area.
        scale = max(MIN_SCALE, scale * max_bytes / len(data) * 0.95)
        frames = [frame.resize(_size(scale), Image.Resampling.BOX) for frame in frames]
