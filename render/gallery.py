"""Sample boards for a person to look at: `python -m render.gallery OUT_DIR`.

Writes both starts, a hit with a checker on the bar, a bear-off, a finished game with koks, long nardy
with a six-block, both sides' views of one position, and names in several scripts. `language_samples` are
a short game in a match against the computer and a finished long game in the words of a `gettext` passed in:
render/ never translates; the bot's gallery (bot/views/gallery.py) passes its catalogues in and writes these
boards in every language it speaks too.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from engine.sides import Side, to_absolute
from render.board import FILE_EXTENSION, render_board
from render.view import BoardView, MoveMark


def points_of(game: str, white: dict[int, int], black: dict[int, int]) -> tuple[int, ...]:
    """24 absolute counts from each side's checkers keyed by that side's own point numbers."""
    points = [0] * 24
    for side, own, sign in ((Side.WHITE, white, 1), (Side.BLACK, black, -1)):
        for point, count in own.items():
            absolute = to_absolute(game, side, point)
            if points[absolute - 1]:
                raise ValueError(f"{game}: A{absolute} is given to both sides")
            points[absolute - 1] = sign * count
    return tuple(points)


SHORT_START = points_of("short", {24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
LONG_START = points_of("long", {24: 15}, {24: 15})
NAMES = ("Алиса", "Bob")

HIT_POSITION = BoardView(
    game="short",
    points=points_of(
        "short",
        {24: 1, 22: 1, 13: 4, 9: 1, 8: 2, 6: 5, 4: 1},
        {24: 2, 13: 4, 8: 3, 6: 4, 5: 1},
    ),
    bar=(0, 1),
    names=NAMES,
    to_move=Side.BLACK,
    dice=(5, 2),
    last_mover=Side.WHITE,
    last_move=(MoveMark(13, 9, hit=True), MoveMark(24, 22)),
    status="Ход: Bob",
)


def samples() -> dict[str, BoardView]:
    """The gallery: file stem -> view."""
    return {
        "01-short-start": BoardView(
            game="short",
            points=SHORT_START,
            names=NAMES,
            to_move=Side.WHITE,
            dice=(6, 1),
            status="Ход: Алиса",
        ),
        "02-long-start": BoardView(
            game="long", points=LONG_START, names=NAMES, to_move=Side.WHITE, dice=(5, 3), status="Ход: Алиса"
        ),
        "03-short-hit-white-view": HIT_POSITION,
        "04-short-hit-black-view": BoardView(**{**HIT_POSITION.__dict__, "viewer": Side.BLACK}),
        "05-short-bear-off": BoardView(
            game="short",
            points=points_of("short", {6: 3, 5: 1, 4: 3, 3: 2, 2: 2}, {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 1}),
            off=(4, 1),
            names=NAMES,
            to_move=Side.WHITE,
            dice=(5, 5),
            dice_used=(5, 5),
            last_mover=Side.WHITE,
            last_move=(MoveMark(5, 0), MoveMark(5, 0)),
            status="Ход: Алиса",
        ),
        "06-short-koks": BoardView(
            game="short",
            points=points_of("short", {}, {24: 1, 13: 4, 8: 5, 6: 5}),
            off=(15, 0),
            names=NAMES,
            last_mover=Side.WHITE,
            last_move=(MoveMark(3, 0), MoveMark(2, 0)),
            winner=Side.WHITE,
            status="Алиса выиграла: кокс (3)",
        ),
        "07-long-six-block": BoardView(
            game="long",
            points=points_of(
                "long",
                {24: 4, 23: 2, 22: 2, 21: 2, 20: 2, 19: 2, 14: 1},
                {24: 9, 18: 2, 16: 1, 13: 1, 5: 1, 3: 1},
            ),
            viewer=Side.BLACK,
            names=NAMES,
            to_move=Side.BLACK,
            dice=(6, 4),
            last_mover=Side.WHITE,
            last_move=(MoveMark(24, 20), MoveMark(24, 19)),
            status="Ход: Bob",
        ),
        "08-long-start-black-view": BoardView(
            game="long",
            points=LONG_START,
            viewer=Side.BLACK,
            names=NAMES,
            to_move=Side.WHITE,
            dice=(3, 3),
            dice_used=(3,),
            status="Ход: Алиса",
        ),
        "09-names": BoardView(
            game="short",
            points=SHORT_START,
            names=("Արամ ნინო 😀 Ёжик\u202e\x07" + "Ω" * 60, "Wolfgang Amadeus " * 600),
            to_move=Side.BLACK,
            dice=(2, 2),
            dice_used=(2, 2, 2),
            status="Ход: Wolfgang Amadeus " * 20,
        ),
    }


# Two players of each language's country, in its script.
PLAYERS = {
    "en": ("Alice", "Bob"),
    "ru": ("Ольга", "Иван"),
    "uk": ("Оксана", "Тарас"),
    "az": ("Leyla", "Rəşad"),
    "hy": ("Անի", "Արամ"),
    "ka": ("ნინო", "გიორგი"),
    "tr": ("Elif", "Mehmet"),
    "fa": ("سارا", "علی"),
}


def language_samples(lang: str, gettext: Callable[..., str]) -> dict[str, BoardView]:
    """Two boards in `lang`: the computer (its longest level name) to move in a match of short nardy, and a
    finished long game with a mars; `gettext(message, **params)` translates (bot.i18n.Texts.gettext)."""
    player, other = PLAYERS.get(lang, PLAYERS["en"])
    computer = gettext("Computer ({level})", level=gettext("intermediate"))
    score = gettext("{w}:{b} of {n}", w=2, b=4, n=5) + " · "
    kind = gettext("mars")
    return {
        f"{lang}-1-short-match": BoardView(
            **{
                **HIT_POSITION.__dict__,
                "names": (player, computer),
                "status": score + gettext("{name} to move: {dice}", name=computer, dice="5-2"),
                "pips_label": gettext("pips"),
            }
        ),
        f"{lang}-2-long-mars": BoardView(
            game="long",
            points=points_of("long", {}, {24: 3, 18: 4, 13: 4, 7: 4}),
            off=(15, 0),
            names=(player, other),
            last_mover=Side.WHITE,
            last_move=(MoveMark(2, 0), MoveMark(1, 0)),
            winner=Side.WHITE,
            status=gettext("{name} wins: {kind}", name=player, kind=kind),
            pips_label=gettext("pips"),
            theme="dark",
        ),
    }


def write(out: Path, views: dict[str, BoardView]) -> list[Path]:
    """Each view drawn into `out` (made if missing) as <stem>.jpg; the files written, in order."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, view in views.items():
        path = out / f"{stem}{FILE_EXTENSION}"
        path.write_bytes(render_board(view))
        written.append(path)
    return written


def main(
    argv: list[str], views: Callable[[], dict[str, BoardView]] = samples, command: str = "render.gallery"
) -> int:
    """`python -m render.gallery OUT_DIR`: `views()` drawn into OUT_DIR, each file's path printed."""
    if len(argv) != 1:
        print(f"usage: python -m {command} OUT_DIR", file=sys.stderr)
        return 2
    for path in write(Path(argv[0]), views()):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
