"""Game records as files: text and JSON read back into the identical game, .mat files that GNU
Backgammon imports with the same final position and score, and errors that name the line."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from engine import Game, Options, Phase, Side
from engine.records.json_record import from_json, parse_json, to_json
from engine.records.mat import mat_names, mat_play, to_mat
from engine.records.text import from_text, parse_text, to_text
from engine.records.values import RecordError
from testkit.random_play import random_dice

SHORT_OPTIONS = (
    Options(),
    Options(),
    Options(full_pip_rule=True),
    Options(resign_scoring="single"),
    Options(opening_dice_are_first_roll=False),
)
LONG_OPTIONS = (
    Options(),
    Options(),
    Options(block_rule="opponent_home"),
    Options(block_rule="none"),
    Options(block_timing="end_of_turn", head_exception="fixed_663"),
    Options(home_mars_3=True, koks_3=True, resign_scoring="single"),
    Options(opening_dice_are_first_roll=True),
)
NAMES = (("Alice", "Boris Petrov"), ("Вася", "Петя: the best"), (" two\nlines ", ""))
GAMES_PER_VARIANT = 36  # a third each borne off, resigned, in progress


def random_game(
    game: str,
    rng: random.Random,
    ending: str,
    options: Options | None = None,
    starter: Side | None = None,
) -> Game:
    """A seeded random game: `ending` "borne off" plays to the end, "resigned" has a random side give up
    after a random number of turns, "in progress" stops there (sometimes with a roll not yet played)."""
    g = Game.new(game, options, starter)
    stop = None if ending == "borne off" else rng.randint(0, 80)
    while g.phase is Phase.OPENING:
        g = g.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
    while not g.is_over and (stop is None or len(g.history) < stop):
        if g.phase is Phase.ROLL:
            dice = random_dice(rng)
            g = g.roll(dice.a, dice.b)
        g = g.play(rng.choice(g.legal_plays()))
    if g.is_over:
        return g
    if ending == "resigned":
        return g.resign(rng.choice(list(Side)))
    if g.phase is Phase.ROLL and rng.random() < 0.5:
        dice = random_dice(rng)
        g = g.roll(dice.a, dice.b)
    return g


def corpus(game: str, seed: int, count: int) -> list[Game]:
    rng = random.Random(seed)
    choices = SHORT_OPTIONS if game == "short" else LONG_OPTIONS
    games = []
    for i in range(count):
        starter = rng.choice(list(Side)) if rng.random() < 0.2 else None
        ending = ("borne off", "resigned", "in progress")[i % 3]
        games.append(random_game(game, rng, ending, rng.choice(choices), starter))
    return games


@pytest.fixture(scope="module")
def games() -> list[Game]:
    """Seeded random games of both variants with assorted house rules and endings, and a few odd ones:
    an opening tie not yet re-rolled, a game resigned on its opening roll, one not started."""
    odd = [
        Game.new("short").opening_roll(4, 4),
        Game.new("long").opening_roll(2, 2).opening_roll(5, 5),
        Game.new("short").opening_roll(6, 2).resign(Side.BLACK),
        Game.new("long", starter=Side.BLACK),
        Game.new("long").opening_roll(1, 6).roll(3, 3),
    ]
    return corpus("short", 20260115, GAMES_PER_VARIANT) + corpus("long", 20260116, GAMES_PER_VARIANT) + odd


def test_the_random_games_cover_every_ending_and_both_starters(games: list[Game]) -> None:
    finished = Counter(
        (g.game, "resigned" if g.result.resigned else g.result.kind.value) for g in games if g.result
    )
    assert finished[("short", "oin")] and finished[("short", "mars")] and finished[("long", "oin")]
    assert finished[("short", "resigned")] >= 10 and finished[("long", "resigned")] >= 10
    assert sum(finished[("long", k)] for k in ("oin", "mars", "koks", "home_mars")) >= 10
    playing = Counter((g.game, g.phase) for g in games if not g.is_over)
    for game in ("short", "long"):
        assert playing[(game, Phase.ROLL)] and playing[(game, Phase.MOVE)] and playing[(game, Phase.OPENING)]
    first = Counter(g.history[0].side for g in games if g.history)
    assert first[Side.WHITE] > 10 and first[Side.BLACK] > 10
    plays = [t.play for g in games for t in g.history]
    assert "pass" in plays and any("*" in p for p in plays) and any("bar/" in p for p in plays)
    assert any("/off" in p for p in plays) and any(g.starter for g in games)
    assert any(g.rules.options != Options() for g in games)


def test_text_records_read_back_into_the_identical_game(games: list[Game]) -> None:
    for i, game in enumerate(games):
        white, black = NAMES[i % len(NAMES)]
        text = to_text(game, white=white, black=black)
        record = parse_text(text)
        assert record.game == game, text
        assert (record.white, record.black) == (" ".join(white.split()), " ".join(black.split()))
        assert to_text(record.game, white=record.white, black=record.black) == text
        assert record.game.position_id() == game.position_id()


def test_json_records_read_back_into_the_identical_game(games: list[Game]) -> None:
    for i, game in enumerate(games):
        white, black = NAMES[i % len(NAMES)]
        text = to_json(game, white=white, black=black)
        data = json.loads(text)
        assert data["record"] == game.record()
        assert data["result"] == (game.result.to_json() if game.result else None)
        record = parse_json(text)
        assert record.game == game, text
        assert to_json(record.game, white=record.white, black=record.black) == text


def test_a_text_record_lists_the_header_then_one_numbered_turn_a_line() -> None:
    game = (
        Game.new("long", Options(block_rule="none"))
        .opening_roll(5, 2)
        .roll(6, 4)
        .play("24/18 18/14")
        .roll(3, 1)
        .play("24/21 21/20")
        .roll(2, 2)
    )
    assert to_text(game, white="Alice", black="Boris") == (
        "Variant: long\n"
        "Options: block_rule=none\n"
        "White: Alice\n"
        "Black: Boris\n"
        "Starter: opening roll\n"
        "Opening rolls: 5-2\n"
        "Result: in progress\n"
        "\n"
        "1. W 6-4: 24/18 18/14\n"
        "2. B 3-1: 24/21 21/20\n"
        "3. W 2-2 (to play)\n"
    )
    assert from_text(to_text(game)) == game


# ----- .mat ----------------------------------------------------------------------------------------


def known_short_game() -> Game:
    """White opens 3-1, Black hits, White enters and hits back, Black dances, White plays, Black resigns
    with a checker on the bar (a koks by position)."""
    return (
        Game.new("short")
        .opening_roll(3, 1)
        .play("24/21 6/5")
        .roll(6, 4)
        .play("24/20* 13/7")
        .roll(5, 2)
        .play("bar/20 20/18*")
        .roll(6, 6)
        .play("pass")
        .roll(2, 1)
        .play("13/11 11/10")
        .resign(Side.BLACK)
    )


def test_mat_of_a_known_game_is_gnubgs_layout() -> None:
    assert to_mat(known_short_game(), white="Alice", black="Boris Petrov") == (
        '; [Variation "Backgammon"]\n'
        "\n"
        " 1 point match\n"
        "\n"
        " Game 1\n"
        " Alice : 0                      Boris Petrov : 0\n"
        "  1) 31: 24/21 6/5               64: 24/20* 13/7\n"
        "  2) 52: 25/20 20/18*            66:\n"
        "  3) 21: 13/11 11/10\n"
        "      Wins 3 points\n"
        "\n"
    )


def test_mat_puts_a_black_start_and_a_black_win_in_the_right_column() -> None:
    game = Game.new("short").opening_roll(1, 5).play("13/8 6/5").roll(4, 4).play("24/20* 24/20 6/2 6/2")
    game = game.roll(2, 1).play("bar/24 13/11").resign(Side.WHITE)
    lines = to_mat(game, white="W", black="B").splitlines()
    assert lines[6:] == [
        "  1)                             51: 13/8 6/5",
        "  2) 44: 24/20* 24/20 6/2 6/2    21: 25/24 13/11",
        " " * 34 + "Wins 3 points",
        "",
    ]


def test_mat_writes_the_bar_as_25_and_off_as_0() -> None:
    assert mat_play("bar/22* 22/16") == "25/22* 22/16"
    assert mat_play("6/off 5/off") == "6/0 5/0"
    assert mat_play("pass") == ""


def test_mat_names_lose_colons_and_are_cut_so_that_gnubgs_export_keeps_a_space_between_them() -> None:
    header = to_mat(known_short_game(), white="a: b\nc", black="Щ" * 40).splitlines()[5]
    assert header.startswith(" a b c : 0 ")
    assert header.endswith(" " + "Щ" * 13 + " : 0"), header  # 26 bytes: " NAME : 0" within gnubg's 30
    header = to_mat(known_short_game(), white="Константин Петров", black="B").splitlines()[5]
    assert header == " Константин Пе : 0  B : 0", "a 25-byte name padded to 31 bytes, as gnubg's printf pads"
    assert mat_names("Ж" * 20, "😀" * 10) == ("Ж" * 13, "😀" * 6)
    assert mat_names("x" * 40, "y" * 40, [(0, 0), (12, 3)]) == ("x" * 25, "y" * 25), "a two-digit score"


def test_mat_is_only_for_short_nardy() -> None:
    with pytest.raises(RecordError, match="short nardy"):
        to_mat(Game.new("long"), white="A", black="B")


# ----- errors --------------------------------------------------------------------------------------


def raised(text: str, reader: object = from_text) -> RecordError:
    assert callable(reader)
    with pytest.raises(RecordError) as info:
        reader(text)
    assert isinstance(info.value, ValueError)
    return info.value


def test_an_illegal_play_names_its_line() -> None:
    text = to_text(known_short_game()).replace("3. W 5-2: bar/20 20/18*", "3. W 5-2: 13/8 13/11")
    error = raised(text)
    assert error.line == 11
    assert str(error).startswith("line 11: ") and "13/8 13/11" in str(error) and "5-2" in str(error)


def test_a_turn_out_of_order_or_misnumbered_names_its_line() -> None:
    text = to_text(known_short_game())
    error = raised(text.replace("2. B 6-4", "2. W 6-4"))
    assert error.line == 10 and "black's turn" in str(error)
    error = raised(text.replace("4. B 6-6", "5. B 6-6"))
    assert error.line == 12 and "expected 4" in str(error)
    error = raised(text.replace("4. B 6-6: pass", "4. B 6-7: pass"))
    assert error.line == 12 and "die 7" in str(error)


def test_a_wrong_header_or_result_names_its_line() -> None:
    text = to_text(known_short_game())
    assert raised(text.replace("Variant: short", "Variant: tavla")).line == 1
    assert raised(text.replace("Options: default", "Options: koks_3=maybe")).line == 2
    assert raised(text.replace("Black: Black", "Colour: Black")).line == 4
    error = raised(text.replace("white wins 3 points (koks)", "white wins 2 points (mars)"))
    assert error.line == 7 and "koks" in str(error)
    error = raised(text.replace(", black resigned", ""))
    assert error.line == 7 and "in progress" in str(error)
    assert raised(text.replace("Opening rolls: 3-1", "Opening rolls: 1-3")).line == 9


def test_a_broken_json_record_says_where() -> None:
    text = to_json(known_short_game())
    error = raised(text.replace('"5-2", "bar/20 20/18*"', '"5-2", "13/8 13/11"'), from_json)
    assert "turn 3" in str(error) and "13/8 13/11" in str(error)
    error = raised(text.replace('"version": 1,', '"version": 1'), from_json)
    assert error.line == 4 and "JSON" in str(error)
    assert "format" in str(raised("{}", from_json))


# ----- GNU Backgammon imports our .mat files ----------------------------------------------------------


def find_gnubg() -> str | None:
    """gnubg on PATH, or where Debian's package puts it (/usr/games, not on root's PATH)."""
    return shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")


GNUBG = find_gnubg()
GNUBG_WARNINGS = re.compile(r"warning|invalid|unrecogni[sz]ed|garbage|not a valid|error", re.IGNORECASE)
MAT_CELL = re.compile(r"\b([1-6])([1-6]):((?:[ \t]+\d+(?:/\d+\*?)+)*)")  # 52: 13/8 13/11* 25/20
Turn = tuple[str, list[str], int]  # dice, the single moves (sorted, hit marks dropped), how many hits


def mat_turns(mat: str) -> list[Turn]:
    """The turns of a .mat file in order. gnubg writes a play's moves in its own order and marks a hit
    on the first move to the point, so moves are compared as a sorted list plus the number of hits."""
    cells = [c for line in mat.splitlines() if re.match(r"\s*\d+\)", line) for c in MAT_CELL.findall(line)]
    return [(a + b, sorted(moves.replace("*", "").split()), moves.count("*")) for a, b, moves in cells]


def game_turns(game: Game) -> list[Turn]:
    """The turns of our game as `mat_turns` reads them; a game resigned on its opening roll shows that
    roll with no play."""
    turns = [
        (f"{t.dice.a}{t.dice.b}", sorted(mat_play(t.play).replace("*", "").split()), t.play.count("*"))
        for t in game.history
    ]
    if not turns and game.is_over and game.opening:
        turns.append((f"{max(game.opening)}{min(game.opening)}", [], 0))
    return turns


def gnubg_import(gnubg: str, mat: Path, home: Path) -> tuple[str, str]:
    """gnubg's answers after importing `mat` (the board, the score) and the match as gnubg exports it
    back, run with English messages and no rc files."""
    back = mat.with_suffix(".back.mat")
    commands = f"import mat {mat}\nshow board\nshow score\nexport match mat {back}\n"
    env = {**os.environ, "HOME": str(home), "LANG": "C", "LC_ALL": "C"}
    done = subprocess.run(
        [gnubg, "-t", "-q", "-r"], input=commands, capture_output=True, text=True, env=env, timeout=60
    )
    return done.stdout + done.stderr, back.read_text(encoding="utf-8") if back.exists() else ""


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed: apt-get install gnubg")
def test_gnubg_imports_exported_short_games_as_the_same_game(tmp_path: Path) -> None:
    """gnubg reads every turn as we wrote it (its own export of the imported match lists the same dice
    and moves), warns of nothing, and ends with our position and score."""
    assert GNUBG is not None
    rng = random.Random(20260117)
    cases = [random_game("short", rng, "borne off") for _ in range(8)]
    cases += [random_game("short", rng, "resigned") for _ in range(5)]
    cases += [random_game("short", rng, "in progress") for _ in range(3)]
    cases += [random_game("short", rng, "resigned", Options(resign_scoring="single"))]
    cases += [random_game("short", rng, "borne off", Options(opening_dice_are_first_roll=False))]
    cases += [known_short_game(), Game.new("short").opening_roll(2, 5).resign(Side.WHITE)]
    problems = []
    for i, game in enumerate(cases):
        mat = tmp_path / f"game{i}.mat"
        ours = to_mat(game, white="Alice", black="Boris Petrov")
        mat.write_text(ours, encoding="utf-8")
        out, back = gnubg_import(GNUBG, mat, tmp_path)
        # gnubg shows the position from the side to roll next: after a bear-off, the loser.
        borne_off = game.result is not None and not game.result.resigned
        expected_id = game.rules.position_id(game.position.swapped() if borne_off else game.position)
        ids = re.findall(r"Position ID: (\S+)", out)
        score = re.search(r"The score \(after (\d+) games?\) is: Alice (\d+), Boris Petrov (\d+)", out)
        points = (0, 0)
        if game.result is not None:
            points = (game.result.points, 0) if game.result.winner is Side.WHITE else (0, game.result.points)
        found = (ids[-1] if ids else None, score.groups() if score else None, mat_turns(back))
        wanted = (expected_id, (str(int(game.is_over)), str(points[0]), str(points[1])), game_turns(game))
        warnings = [line for line in out.splitlines() if GNUBG_WARNINGS.search(line)]
        if found != wanted or warnings:
            problems.append(f"{mat.name}: gnubg {found}\nours {wanted}\n{warnings}\n{ours}")
    assert not problems, f"{len(problems)} of {len(cases)} games differ; first: {problems[0]}"


# Names of 20 to 40 UTF-8 bytes in four scripts (each the longest prefix of its base within that many bytes).
NAME_BASES = (
    "Maximilian Alexander von Humboldt-Rossi",
    "Константин Петров-Водкин",
    "Արամ Խաչատրյան Գևորգյան",
    "😀😁😂🤣😃😄😅😆😉😊",
)
SCORE_LINE = re.compile(r"^ (.+?) : (\d+) +(.+?) : (\d+)$")  # " White : 0      Black : 0", a space between


def name_within(base: str, size: int) -> str:
    return base.encode()[:size].decode(errors="ignore")


def gnubg_round_trip(gnubg: str, mats: list[Path], home: Path) -> str:
    """One gnubg run: each file imported, exported (.b.mat), that export imported and exported (.c.mat)."""
    commands = "".join(
        f"import mat {m}\nexport match mat {m.with_suffix('.b.mat')}\n"
        f"import mat {m.with_suffix('.b.mat')}\nexport match mat {m.with_suffix('.c.mat')}\n"
        for m in mats
    )
    env = {**os.environ, "HOME": str(home), "LANG": "C", "LC_ALL": "C"}
    done = subprocess.run(
        [gnubg, "-t", "-q", "-r"], input=commands, capture_output=True, text=True, env=env, timeout=120
    )
    return done.stdout + done.stderr


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed: apt-get install gnubg")
def test_mat_names_of_20_to_40_bytes_in_any_script_round_trip_through_gnubg(tmp_path: Path) -> None:
    """gnubg imports our file, exports it, imports its own export and exports that again: both exports
    are equal, name the players as we do, and hold our game's turns."""
    assert GNUBG is not None
    game = known_short_game()
    cases: list[tuple[Path, str, str]] = []
    for i, base in enumerate(NAME_BASES):
        for size in (23, 27, 28, 31, 34, 40):
            white = name_within(base, size)
            black = name_within(NAME_BASES[(i + 1) % len(NAME_BASES)], 63 - size)
            assert all(20 <= len(name.encode()) <= 40 for name in (white, black)), (white, black)
            mat = tmp_path / f"names{len(cases)}.mat"
            mat.write_text(to_mat(game, white=white, black=black), encoding="utf-8")
            cases.append((mat, white, black))
    out = gnubg_round_trip(GNUBG, [mat for mat, _, _ in cases], tmp_path)
    warnings = [line for line in out.splitlines() if GNUBG_WARNINGS.search(line)]
    problems = []
    for mat, white, black in cases:
        exported, again = (mat.with_suffix(s) for s in (".b.mat", ".c.mat"))
        if not (exported.exists() and again.exists()):
            problems.append(f"{mat.name} ({white!r}, {black!r}): gnubg exported nothing")
            continue
        first, second = (p.read_text(encoding="utf-8") for p in (exported, again))
        body = first[first.index(" Game 1") :]
        score_line = SCORE_LINE.match(body.splitlines()[1])
        names = (score_line[1], score_line[3]) if score_line else body.splitlines()[1]
        found = (names, mat_turns(first), second[second.index(" Game 1") :] == body)
        wanted = (mat_names(white, black), game_turns(game), True)
        if found != wanted:
            problems.append(f"{mat.name} ({white!r}, {black!r}): gnubg {found}, ours {wanted}\n{body}")
    assert not problems and not warnings, f"{len(problems)} of {len(cases)}: {problems[:1]} {warnings[:3]}"
