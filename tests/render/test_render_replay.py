"""The replay of a finished game: one view per play plus the start and the result, an animated GIF with
one frame each, durations set, under 2 MB for long random games, the same bytes for the same game."""

from __future__ import annotations

import io
import random
from dataclasses import replace

import pytest
from PIL import Image, ImageChops, ImageStat
from PIL.GifImagePlugin import GifImageFile
from PIL.WebPImagePlugin import WebPImageFile

from engine import Game, Phase, Side
from render import MoveMark, RenderError
from render.board import draw_board
from render.replay import (
    FIRST_MS,
    LAST_MS,
    MAX_BYTES,
    PLAY_MS,
    SCALE,
    ReplayTexts,
    render_replay,
    replay_views,
)
from testkit.random_play import random_game

TEXTS = ReplayTexts(start="Алиса – Bob", result="Алиса выиграла", no_move="нет хода", pips_label="пипсы")
NAMES = ("Алиса", "Bob")


def seeded_game(variant: str, seed: int, actions: int | None = None) -> Game:
    """`variant` played with seeded random dice and random legal plays: to the end, or for `actions` steps."""
    return random_game(variant, random.Random(seed), actions)


def decode(data: bytes) -> GifImageFile | WebPImageFile:
    """The animation in `data`, opened with Pillow (a GIF or an animated WebP)."""
    image = Image.open(io.BytesIO(data))
    assert isinstance(image, (GifImageFile, WebPImageFile)), image.format
    return image


def durations(image: GifImageFile | WebPImageFile) -> list[int]:
    found = []
    for k in range(image.n_frames):
        image.seek(k)
        found.append(image.info["duration"])
    return found


@pytest.fixture(scope="module")
def short_game() -> Game:
    return seeded_game("short", 3)


@pytest.fixture(scope="module")
def short_replay(short_game: Game) -> bytes:
    return render_replay(replay_views(short_game, NAMES, TEXTS))


def test_a_replay_has_the_start_one_view_per_play_and_the_result(short_game: Game) -> None:
    views = replay_views(short_game, NAMES, TEXTS, viewer=Side.BLACK, theme="dark")
    plays = short_game.history
    assert len(views) == len(plays) + 2
    first, last = views[0], views[-1]
    assert first.points == tuple(Game.new("short").board().points)
    assert (first.dice, first.last_move, first.status) == ((), (), TEXTS.start)
    assert first.to_move is plays[0].side
    assert short_game.result is not None and last.winner is short_game.result.winner
    assert (last.to_move, last.dice, last.status) == (None, (), TEXTS.result)
    assert last.points == tuple(short_game.board().points) and last.off == short_game.board().off
    assert all(v.viewer is Side.BLACK and v.names == NAMES and v.theme == "dark" for v in views)
    assert all(v.pips_label == "пипсы" for v in views)


def test_a_play_view_shows_the_position_after_it_its_dice_and_its_moves(short_game: Game) -> None:
    views = replay_views(short_game, NAMES, TEXTS)
    game = Game.replay({**short_game.record(), "turns": short_game.record()["turns"][:10]})
    view, turn = views[10], short_game.history[9]
    assert view.points == tuple(game.board().points) and view.bar == game.board().bar
    assert view.pips == game.pip_counts()
    assert (view.dice, view.to_move, view.last_mover) == ((turn.dice.a, turn.dice.b), turn.side, turn.side)
    assert game.last_play is not None
    assert view.last_move == tuple(MoveMark(m.src, m.dst, m.hit) for m in game.last_play.moves)
    assert view.status == f"10/{len(short_game.history)}"


def test_a_turn_without_a_move_says_so() -> None:
    games = (seeded_game("short", seed) for seed in range(40))
    game = next(g for g in games if any(t.play == "pass" for t in g.history))
    views = replay_views(game, texts=TEXTS)
    number = next(n for n, t in enumerate(game.history, 1) if t.play == "pass")
    assert views[number].status == f"{number}/{len(game.history)} · нет хода"
    assert views[number].last_move == () and views[number].last_mover is None


def test_the_replay_is_a_gif_with_one_frame_per_view_and_their_durations(
    short_game: Game, short_replay: bytes
) -> None:
    image = decode(short_replay)
    plays = len(short_game.history)
    assert image.format == "GIF" and image.is_animated
    assert image.n_frames == plays + 2
    assert image.info["loop"] == 0
    assert durations(image) == [FIRST_MS] + [PLAY_MS] * plays + [LAST_MS]
    assert image.size == (round(814 * SCALE), round(782 * SCALE))


def test_each_frame_is_its_board_scaled_down(short_game: Game, short_replay: bytes) -> None:
    views = replay_views(short_game, NAMES, TEXTS)
    image = decode(short_replay)
    for k in (0, 1, len(views) // 2, len(views) - 1):
        image.seek(k)
        frame = image.convert("RGB")
        drawn = draw_board(views[k]).resize(frame.size, Image.Resampling.BOX)
        other = draw_board(views[k - 1 if k else 1]).resize(frame.size, Image.Resampling.BOX)
        same = sum(ImageStat.Stat(ImageChops.difference(frame, drawn)).mean)
        assert same < 6, f"frame {k} differs from its board by {same:.1f}"
        assert sum(ImageStat.Stat(ImageChops.difference(frame, other)).mean) > same


def test_the_same_game_gives_the_same_bytes(short_game: Game, short_replay: bytes) -> None:
    assert render_replay(replay_views(short_game, NAMES, TEXTS)) == short_replay


@pytest.mark.parametrize("variant, seed, plays", [("short", 61, 200), ("long", 13, 105)])
def test_a_long_random_game_fits_in_two_megabytes(variant: str, seed: int, plays: int) -> None:
    game = seeded_game(variant, seed)
    assert len(game.history) >= plays  # a long game: random play runs much longer than people's games
    data = render_replay(replay_views(game, NAMES, TEXTS))
    assert len(data) <= MAX_BYTES == 2_000_000
    image = decode(data)
    assert image.n_frames == len(game.history) + 2
    assert image.size == (round(814 * SCALE), round(782 * SCALE))  # fits without scaling down further


def test_a_replay_over_max_bytes_is_scaled_down_until_it_fits(short_game: Game) -> None:
    views = replay_views(short_game, NAMES, TEXTS)
    data = render_replay(views, max_bytes=300_000)
    image = decode(data)
    assert len(data) <= 300_000 and image.n_frames == len(views)
    assert image.size[0] < round(814 * SCALE)
    with pytest.raises(RenderError, match="more than 1000 even at the smallest scale"):
        render_replay(views, max_bytes=1000)


def test_an_unfinished_game_has_no_replay() -> None:
    game = seeded_game("long", 5, actions=30)
    assert game.phase is not Phase.OVER
    with pytest.raises(RenderError, match=r"a replay needs a finished game, this one is in phase \w+"):
        replay_views(game)


def test_a_resigned_game_ends_on_the_position_it_was_resigned_in() -> None:
    game = seeded_game("long", 5, actions=30)
    resigned = game.resign(game.turn)
    views = replay_views(resigned, texts=TEXTS)
    assert len(views) == len(game.history) + 2
    assert views[-1].winner is game.turn.other
    assert views[-1].points == tuple(game.board().points)
    assert decode(render_replay(views)).n_frames == len(views)


def test_a_game_resigned_before_any_play_has_two_frames() -> None:
    game = Game.new("short").opening_roll(6, 1).resign(Side.WHITE)
    image = decode(render_replay(replay_views(game)))
    assert image.n_frames == 2 and durations(image) == [FIRST_MS, LAST_MS]


def test_custom_durations_are_kept(short_game: Game) -> None:
    views = replay_views(short_game)[:5]
    image = decode(render_replay(views, play_ms=800, first_ms=1500, last_ms=3000))
    assert durations(image) == [1500, 800, 800, 800, 3000]


def test_an_animated_webp_can_be_asked_for(short_game: Game) -> None:
    views = replay_views(short_game)[:6]
    image = decode(render_replay(views, image_format="WEBP"))
    assert image.format == "WEBP" and image.n_frames == 6


@pytest.mark.parametrize(
    "settings, words",
    [
        ({"image_format": "PNG"}, "image_format must be one of"),
        ({"scale": 2.0}, "scale must be between"),
        ({"play_ms": 0}, "frame durations must be at least 20 ms"),
    ],
)
def test_bad_settings_raise_render_error(short_game: Game, settings: dict[str, object], words: str) -> None:
    with pytest.raises(RenderError, match=words):
        render_replay(replay_views(short_game)[:3], **settings)  # type: ignore[arg-type]


def test_a_bad_view_names_its_frame(short_game: Game) -> None:
    views = replay_views(short_game)[:4]
    views[2] = replace(views[2], dice=(7, 1))
    with pytest.raises(RenderError, match=r"frame 2 of 4: dice must be values 1\.\.6"):
        render_replay(views)
    with pytest.raises(RenderError, match="at least a first and a last frame"):
        render_replay(views[:1])
