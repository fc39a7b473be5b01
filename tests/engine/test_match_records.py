"""Records with the doubling cube, and whole matches: .mat files that GNU Backgammon imports with the same
cube actions, the same result for every game, the Crawford game where ours is and the same final score;
text and JSON records with cube actions, and match texts, that read back into the identical games."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine import Cube, Game, Match, Options, Phase, Result, Side, WinKind
from engine.records.json_record import parse_json, to_json
from engine.records.mat import match_to_mat, to_mat
from engine.records.match_text import match_to_text, parse_match_text
from engine.records.text import parse_text, to_text
from engine.records.values import RecordError, match_games
from tests.engine.test_records import GNUBG, GNUBG_WARNINGS

WHITE, BLACK = "Alice", "Boris Petrov"


def advance(
    game: Game,
    rng: random.Random,
    *,
    doubles: float = 0.0,
    takes: float = 1.0,
    until: Callable[[Game], bool] = lambda game: False,
) -> Game:
    """Play `game` on with random dice and plays until it is over or `until` holds: the side on turn
    doubles with chance `doubles` when it may, a double is taken with chance `takes`, else passed."""
    while not game.is_over and not until(game):
        if game.phase is Phase.OPENING:
            game = game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase is Phase.CUBE:
            game = game.take() if rng.random() < takes else game.drop()
        elif game.phase is Phase.ROLL and game.may_double() and rng.random() < doubles:
            game = game.double()
        else:
            if game.phase is Phase.ROLL:
                game = game.roll(rng.randint(1, 6), rng.randint(1, 6))
            game = game.play(rng.choice(game.legal_plays()))
    return game


def may_double(game: Game) -> bool:
    return game.may_double()


def double_take_redouble_take(seed: int = 1) -> Game:
    rng = random.Random(seed)
    game = advance(Game.new("short", cube=Cube()), rng, until=may_double).double().take()
    game = advance(game, rng, until=may_double).double().take()
    return advance(game, rng)


def redouble_passed(seed: int = 2) -> Game:
    rng = random.Random(seed)
    game = advance(Game.new("short", cube=Cube()), rng, until=may_double).double().take()
    return advance(game, rng, until=may_double).double().drop()


def resigned_at_two(seed: int = 3) -> Game:
    rng = random.Random(seed)
    game = advance(Game.new("short", cube=Cube()), rng, until=may_double).double().take()
    game = advance(game, rng, until=lambda g: len(g.history) >= 12)
    assert game.cube is not None and game.cube.owner is not None
    return game.resign(game.cube.owner)  # the taker gives up


def resigned_on_a_double(seed: int = 4) -> Game:
    """The side offered a double resigns instead of answering it."""
    game = advance(Game.new("short", cube=Cube()), random.Random(seed), until=may_double).double()
    return game.resign(game.deciding)


def jacoby_mars() -> Game:
    """A money game under the Jacoby rule won with a mars or koks borne off, the cube never turned: one
    point (the first seed that gives one)."""
    for seed in range(200):
        game = advance(Game.new("short", cube=Cube(jacoby=True)), random.Random(seed))
        if game.result is not None and game.result.kind is not WinKind.OIN:
            assert game.result.points == 1
            return game
    raise AssertionError("no seed below 200 gives a mars")


def play_match(match: Match, rng: random.Random, *, doubles: float, takes: float) -> Match:
    while not match.over:
        game = advance(Game.new("short", cube=match.game_cube()), rng, doubles=doubles, takes=takes)
        assert game.result is not None
        match = match.after(game.result, game.to_json())
    return match


def three_point_match() -> Match:
    """A 3-point match with the cube of at least three games, one of them the Crawford game (the first
    seed that gives one)."""
    for seed in range(100):
        match = play_match(Match(length=3, cube=True), random.Random(seed), doubles=0.15, takes=0.6)
        games = match_games(match, None)
        if len(games) >= 3 and any(g.crawford for g in games) and any(g.game.cube_actions for g in games):
            return match
    raise AssertionError("no seed below 100 gives a 3-point match with a Crawford game")


def random_cube_game(seed: int) -> Game:
    """A random short game with random cube actions (money, Jacoby or in a match) that sometimes ends in a
    resignation, now and then while a double is offered."""
    rng = random.Random(seed)
    needs = (rng.randint(1, 7), rng.randint(1, 7))
    cube = (Cube(), Cube(jacoby=True), Cube(needs=needs))[seed % 3]
    stop = rng.randint(5, 120)
    game = advance(
        Game.new("short", cube=cube),
        rng,
        doubles=0.15,
        takes=0.75,
        until=lambda g: len(g.history) >= stop and g.phase in (Phase.ROLL, Phase.CUBE),
    )
    if not game.is_over and rng.random() < 0.7:
        return game.resign(rng.choice(list(Side)))
    return game


# ----- what gnubg makes of our files ------------------------------------------------------------------


@dataclass(frozen=True)
class GameView:
    """One game of a .mat file or of gnubg's view of it."""

    events: tuple[tuple[object, ...], ...]  # rolls (dice, sorted moves, hits) and cube actions, in order
    result: tuple[Side, int] | None = None  # gnubg's own scoring (from its .sgf); None: not over
    crawford: bool = False  # gnubg took it for the Crawford game


@dataclass(frozen=True)
class FileView:
    games: tuple[GameView, ...]
    score: tuple[int, int] | None  # gnubg's final score
    warnings: tuple[str, ...] = ()


MAT_TOKEN = re.compile(r"\b([1-6])([1-6]):((?:[ \t]+\d+(?:/\d+\*?)+)*)|Doubles => (\d+)|(Takes)|(Drops)")


def mat_events(mat: str) -> list[tuple[tuple[object, ...], ...]]:
    """Each game's rolls and cube actions as a .mat file lists them. gnubg writes a play's moves in its
    own order and marks a hit on the first move to the point: moves are compared sorted, hits counted."""
    games: list[list[tuple[object, ...]]] = []
    for line in mat.splitlines():
        if re.match(r"\s*Game \d+\s*$", line):
            games.append([])
        elif re.match(r"\s*\d+\)", line):
            for m in MAT_TOKEN.finditer(line.split(")", 1)[1]):
                if m.group(1):
                    moves = m.group(3)
                    games[-1].append(
                        (m.group(1) + m.group(2), sorted(moves.replace("*", "").split()), moves.count("*"))
                    )
                else:
                    games[-1].append((f"double {m.group(4)}",) if m.group(4) else (m.group(5) or m.group(6),))
    return [tuple(g) for g in games]


def gnubg_views(files: list[tuple[Path, bool]], home: Path) -> list[FileView]:
    """Import each .mat file into one run of gnubg (`set jacoby` as given first) and read back its final
    score, each game's result and Crawford mark (from `save match`, gnubg's .sgf) and the moves and cube
    actions as gnubg exports them again."""
    assert GNUBG is not None
    commands = []
    for k, (mat, jacoby) in enumerate(files):
        commands += [
            f"set jacoby {'on' if jacoby else 'off'}",
            f"import mat {mat}",
            "show score",
            f"save match {mat.with_suffix('.sgf')}",
            f"export match mat {mat.with_suffix('.back')}",
            f"nardy_file_done_{k}",  # an unknown command: its answer marks the end of this file's output
        ]
    env = {**os.environ, "HOME": str(home), "LANG": "C", "LC_ALL": "C"}
    done = subprocess.run(
        [GNUBG, "-t", "-q", "-r"],
        input="\n".join(commands) + "\n",
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one stream, in order: the markers split it
        text=True,
        env=env,
        timeout=120,
    )
    outputs = re.split(r"Unknown keyword `nardy_file_done_\d+'\.", done.stdout)
    views = []
    for (mat, _), out in zip(files, outputs, strict=False):
        score = re.search(rf"The score \(after \d+ games?\) is: {WHITE} (\d+), {BLACK} (\d+)", out)
        sgf_path, back_path = mat.with_suffix(".sgf"), mat.with_suffix(".back")
        sgf = sgf_path.read_text(encoding="utf-8") if sgf_path.exists() else ""
        back = back_path.read_text(encoding="utf-8") if back_path.exists() else ""
        games = []
        for events, sgf_game in zip(mat_events(back), sgf.split("(;FF[4]")[1:], strict=False):
            result = re.search(r"RE\[([WB])\+(\d+)R?\]", sgf_game)
            won = (
                (Side.WHITE if result.group(1) == "W" else Side.BLACK, int(result.group(2)))
                if result
                else None
            )
            games.append(GameView(events, won, "CrawfordGame" in sgf_game))
        warnings = tuple(line for line in out.splitlines() if GNUBG_WARNINGS.search(line))
        views.append(FileView(tuple(games), (int(score[1]), int(score[2])) if score else None, warnings))
    return views


def our_view(mat: str, games: list[Game], crawford: list[bool]) -> FileView:
    """What gnubg should make of the file `mat` we wrote for `games`."""
    score = [0, 0]
    views = []
    for events, game, is_crawford in zip(mat_events(mat), games, crawford, strict=True):
        result = (game.result.winner, game.result.points) if game.result else None
        if result:
            score[result[0]] += result[1]
        views.append(GameView(events, result, is_crawford))
    return FileView(tuple(views), (score[0], score[1]))


def check_with_gnubg(cases: list[tuple[str, list[Game], list[bool], bool]], tmp_path: Path) -> None:
    """Each case: a name, its .mat text, its games, their Crawford marks, the Jacoby setting to import
    under. gnubg must read every roll, play and cube action, warn of nothing, score each game as we do and
    end with our score."""
    files = []
    for k, (mat, _, _, jacoby) in enumerate(cases):
        path = tmp_path / f"case{k}.mat"
        path.write_text(mat, encoding="utf-8")
        files.append((path, jacoby))
    problems = []
    for (mat, games, crawford, _), (path, _), theirs in zip(
        cases, files, gnubg_views(files, tmp_path), strict=True
    ):
        ours = our_view(mat, games, crawford)
        if theirs != ours:
            problems.append(f"{path.name}:\ngnubg {theirs}\nours  {ours}\n{mat}")
    assert not problems, f"{len(problems)} of {len(cases)} files differ; first: {problems[0]}"


def game_case(game: Game) -> tuple[str, list[Game], list[bool], bool]:
    jacoby = game.cube is not None and game.cube.jacoby
    return to_mat(game, white=WHITE, black=BLACK), [game], [False], jacoby


def match_case(match: Match, current: Game | None = None) -> tuple[str, list[Game], list[bool], bool]:
    games = match_games(match, current)
    mat = match_to_mat(match, current, white=WHITE, black=BLACK)
    return mat, [g.game for g in games], [g.crawford for g in games], match.jacoby


needs_gnubg = pytest.mark.skipif(
    GNUBG is None, reason="GNU Backgammon (gnubg) is not installed: apt-get install gnubg"
)


# ----- the scenarios ----------------------------------------------------------------------------------


def test_the_scenarios_are_what_their_names_say() -> None:
    game = double_take_redouble_take()
    assert [a.action for a in game.cube_actions] == ["double", "take", "double", "take"]
    assert game.cube is not None and game.cube.value == 4 and game.result and not game.result.resigned
    passed = redouble_passed()
    assert passed.result == Result(passed.cube_actions[-2].side, 2, WinKind.OIN, dropped=True)
    resigned = resigned_at_two()
    assert resigned.cube is not None and resigned.cube.value == 2
    assert resigned.result is not None and resigned.result.resigned
    match = three_point_match()
    games = match_games(match, None)
    assert match.over and sum(g.crawford for g in games) == 1
    crawford = next(g.game for g in games if g.crawford)
    assert not crawford.cube_actions and crawford.cube is not None and crawford.cube.crawford


@needs_gnubg
def test_gnubg_scores_cube_games_and_a_crawford_match_as_we_do(tmp_path: Path) -> None:
    """Double, take, redouble, take; a passed redouble; a resignation at 2 and one instead of answering a
    double; a mars under the Jacoby rule; a 3-point match with its
    Crawford game, with and without the game being played; single games with the cube as a money session
    with the Jacoby rule."""
    match = three_point_match()
    unfinished = Match(length=3, cube=True).after(*_finished(redouble_passed(5)))
    current = advance(
        Game.new("short", cube=unfinished.game_cube()), random.Random(7), until=lambda g: len(g.history) > 9
    )
    series = Match(length=1, cube=True, jacoby=True)
    rng = random.Random(9)
    for doubles in (0.0, 0.2, 0.2):
        game = advance(Game.new("short", cube=series.game_cube()), rng, doubles=doubles, takes=0.7)
        assert game.result is not None
        series = series.after(game.result, game.to_json())
    cases = [
        game_case(double_take_redouble_take()),
        game_case(redouble_passed()),
        game_case(resigned_at_two()),
        game_case(resigned_on_a_double()),
        game_case(jacoby_mars()),
        match_case(match),
        match_case(unfinished, current),
        match_case(series),
    ]
    check_with_gnubg(cases, tmp_path)


def _finished(game: Game) -> tuple[Result, dict[str, object]]:
    assert game.result is not None
    return game.result, game.to_json()


@needs_gnubg
def test_gnubg_scores_random_cube_games_as_we_do(tmp_path: Path) -> None:
    """Random games with random doubles, takes, passes and resignations (money, Jacoby and match cubes),
    all in one run of gnubg."""
    games = [random_cube_game(seed) for seed in range(24)]
    assert any(g.result and g.result.dropped for g in games) and any(
        g.result and g.result.resigned for g in games
    )
    assert any(g.cube and g.cube.value >= 4 for g in games)
    check_with_gnubg([game_case(g) for g in games], tmp_path)


# ----- layout -----------------------------------------------------------------------------------------


def test_mat_writes_cube_actions_in_gnubgs_columns() -> None:
    """White doubles and Black takes on one line; Black redoubles to the right of White's roll; White's
    pass and Black's win share a line, as gnubg's own export writes them."""
    game = (
        Game.new("short", cube=Cube())
        .opening_roll(3, 1)
        .play("24/21 6/5")
        .roll(6, 4)
        .play("24/20* 13/7")
        .double()
        .take()
        .roll(5, 2)
        .play("bar/20 20/18*")
        .double()
        .drop()
    )
    assert to_mat(game, white="Alice", black="Bob") == (
        '; [Variation "Backgammon"]\n'
        "; a single game with the doubling cube: money play, Jacoby rule off\n"
        "\n"
        " 0 point match\n"
        "\n"
        " Game 1\n"
        " Alice : 0                      Bob : 0\n"
        "  1) 31: 24/21 6/5               64: 24/20* 13/7\n"
        "  2)  Doubles => 2                Takes\n"
        "  3) 52: 25/20 20/18*             Doubles => 4\n"
        "  4)  Drops                       Wins 2 points\n"
        "\n"
    )


def test_mat_puts_the_doublers_win_after_a_pass_on_its_own_line() -> None:
    game = Game.new("short", cube=Cube()).opening_roll(1, 3).play("24/21 6/5").double().drop()
    assert to_mat(game, white="W", black="B").splitlines()[7:] == [
        "  1)                             31: 24/21 6/5",
        "  2)  Doubles => 2                Drops",
        "      Wins 1 point",
        "",
    ]


def test_a_game_whose_cube_was_never_offered_stays_a_1_point_match() -> None:
    game = Game.new("short", cube=Cube()).opening_roll(3, 1).play("24/21 6/5").resign(Side.BLACK)
    assert " 1 point match" in to_mat(game, white="W", black="B").splitlines()


def test_a_match_file_gives_each_game_the_score_before_it() -> None:
    match = three_point_match()
    lines = match_to_mat(match, None, white=WHITE, black=BLACK).splitlines()
    assert lines[2] == " 3 point match"
    headings = [lines[i + 1] for i, line in enumerate(lines) if line.startswith(" Game ")]
    scores = [g.score for g in match_games(match, None)]
    assert headings == [f"{f' {WHITE} : {w}':<31} {BLACK} : {b}" for w, b in scores]


def test_a_match_whose_score_its_games_do_not_give_is_refused() -> None:
    match = three_point_match()
    broken = Match(length=3, cube=True, score=match.score, games=match.games[1:])
    with pytest.raises(RecordError, match="a game's record is missing"):
        match_to_mat(broken, None, white=WHITE, black=BLACK)
    with pytest.raises(RecordError, match="the match is over"):
        match_to_text(match, Game.new("short", cube=Cube()), white=WHITE, black=BLACK)


# ----- text and JSON ----------------------------------------------------------------------------------


def test_a_text_record_numbers_cube_actions_among_the_turns() -> None:
    game = Game.new("short", cube=Cube()).opening_roll(3, 1).play("24/21 6/5").double().take().roll(6, 4)
    game = game.play("24/20* 13/7").double().drop()
    text = to_text(game, white="Alice", black="Bob")
    assert text.splitlines()[6:] == [
        "Cube: money",
        "Result: white wins 2 points (oin), black passed",
        "",
        "1. W 3-1: 24/21 6/5",
        "2. B doubles to 2",
        "3. W takes",
        "4. B 6-4: 24/20* 13/7",
        "5. W doubles to 4",
        "6. B passes",
    ]
    assert parse_text(text).game == game


def test_cube_games_read_back_from_text_and_json() -> None:
    games = [random_cube_game(seed) for seed in range(30)]
    games += [double_take_redouble_take(), redouble_passed(), resigned_at_two()]
    games.append(advance(Game.new("short", cube=Cube(crawford=True, needs=(1, 3))), random.Random(4)))
    pending = advance(Game.new("short", cube=Cube(needs=(2, 2))), random.Random(5), until=may_double)
    games += [pending.double(), pending.double().take().roll(3, 2)]
    for game in games:
        text = to_text(game, white="Alice", black="Bob")
        assert parse_text(text).game == game, text
        assert to_text(parse_text(text).game, white="Alice", black="Bob") == text
        data = to_json(game, white="Alice", black="Bob")
        assert json.loads(data)["record"]["cube_actions"] == [a.to_json() for a in game.cube_actions]
        assert parse_json(data).game == game


def test_a_wrong_cube_action_in_a_text_record_names_its_line() -> None:
    text = to_text(redouble_passed())
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if "doubles to 2" in line)
    wrong_value = "\n".join([*lines[:first], lines[first].replace("to 2", "to 4"), *lines[first + 1 :]])
    with pytest.raises(RecordError, match="the cube is at 1: a double is to 2, not 4") as info:
        parse_text(wrong_value)
    assert info.value.line == first + 1
    letter = lines[first + 1].split()[1]
    other = "B" if letter == "W" else "W"
    wrong_side = "\n".join(
        [*lines[: first + 1], lines[first + 1].replace(f" {letter} ", f" {other} "), *lines[first + 2 :]]
    )
    with pytest.raises(RecordError, match="answer to the double") as info:
        parse_text(wrong_side)
    assert info.value.line == first + 2
    no_cube = text.replace("Cube: money\n", "")
    with pytest.raises(RecordError, match="without the cube") as info:
        parse_text(no_cube)


def test_a_json_record_with_a_cube_action_out_of_turn_says_which() -> None:
    data = json.loads(to_json(redouble_passed()))
    data["record"]["cube_actions"][1][1] = data["record"]["cube_actions"][0][1]  # the doubler takes
    with pytest.raises(RecordError, match=r"cube action 2 .*answer to the double"):
        parse_json(json.dumps(data))


def test_match_texts_read_back_into_the_identical_match() -> None:
    match = three_point_match()
    unfinished = Match(length=5, cube=True).after(*_finished(redouble_passed(6)))
    current = advance(
        Game.new("short", cube=unfinished.game_cube()), random.Random(3), until=lambda g: len(g.history) > 7
    )
    series = Match(length=1).after(*_finished(advance(Game.new("short"), random.Random(2))))
    for m, cur in (
        (match, None),
        (unfinished, current),
        (unfinished, None),
        (series, None),
        (series, Game.new("short")),
    ):
        text = match_to_text(m, cur, white="Alice", black="Bob")
        record = parse_match_text(text)
        assert (record.match, record.current, record.white, record.black) == (m, cur, "Alice", "Bob"), text
        assert match_to_text(record.match, record.current, white="Alice", black="Bob") == text


def test_a_match_text_shows_the_score_and_marks_the_crawford_game() -> None:
    match = three_point_match()
    text = match_to_text(match, None, white="Alice", black="Bob")
    winner = match.winner
    assert winner is not None
    assert text.startswith(
        f"Match: 3 points\nCube: on\nWhite: Alice\nBlack: Bob\n"
        f"Score: white {match.score[0]}, black {match.score[1]}, {winner.label} wins the match\n\nGame 1: white 0, black 0\n"
    )
    assert (
        sum(line.endswith(", Crawford game") and line.startswith("Game ") for line in text.splitlines()) == 1
    )
    broken = re.sub(
        r"^Game 2: white (\d+)", lambda m: f"Game 2: white {int(m[1]) + 1}", text, flags=re.MULTILINE
    )
    line = next(i for i, x in enumerate(broken.splitlines(), start=1) if x.startswith("Game 2:"))
    with pytest.raises(RecordError, match="game 2 starts at") as info:
        parse_match_text(broken)
    assert info.value.line == line


def test_an_illegal_play_in_a_match_text_names_its_line_in_the_whole_text() -> None:
    match = three_point_match()
    text = match_to_text(match, None)
    lines = text.splitlines()
    second = next(i for i, x in enumerate(lines) if x.startswith("Game 2:"))
    turn = next(i for i in range(second, len(lines)) if re.match(r"1\. [WB] \d-\d: ", lines[i]))
    lines[turn] = re.sub(r": .*$", ": 13/1", lines[turn])
    with pytest.raises(RecordError) as info:
        parse_match_text("\n".join(lines) + "\n")
    assert info.value.line == turn + 1


def test_records_of_games_without_the_cube_are_unchanged() -> None:
    game = advance(Game.new("short", Options()), random.Random(11))
    assert "Cube" not in to_text(game) and "cube_actions" not in to_json(game)
