"""A tournament as the pictures draw it (bot/views/tournament.py), and the sample pictures' script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bot.model.arena import Arena
from bot.model.knockout import Knockout, Seeded
from bot.views.tournament import bracket_picture, podium_picture
from render.bracket import BracketTexts, Entrant
from render.podium import PodiumTexts

NAMES = {1: "Alice", 2: "Bob", 3: "Carol", 4: "Dave", 5: "Eve"}
TEXTS = BracketTexts("Cup", ("QF", "SF", "F"))


def test_a_knockout_of_five_is_drawn_with_its_byes_walkover_scores_and_champions_path() -> None:
    knockout = Knockout.seed([Seeded(u, 2000.0 - u) for u in range(1, 6)])
    knockout = knockout.record("r0m1", 5, (0, 0), walkover=True)
    knockout = knockout.record("r1m0", 5, (1, 0)).record("r1m1", 2, (1, 0)).record("r2m0", 5, (2, 1))
    picture = bracket_picture(knockout, NAMES, TEXTS)
    first, _semis, final = picture.rounds
    assert [b.bye for b in first] == [True, False, True, True]
    assert first[0].top == Entrant("Alice", 1, None, True) and first[0].bottom == Entrant()
    assert first[1].walkover and first[1].bottom == Entrant("Eve", 5, 0, True)
    assert final[0].top == Entrant("Eve", 5, 2, True) and final[0].bottom == Entrant("Bob", 2, 1, False)
    assert [b.on_path for r in picture.rounds for b in r] == [False, True, False, False, True, False, True]


def test_an_unplayed_knockout_has_no_winner_and_no_path() -> None:
    picture = bracket_picture(Knockout.seed([Seeded(u, 1500.0) for u in range(1, 5)]), NAMES, TEXTS)
    assert not any(e.won or b.on_path for r in picture.rounds for b in r for e in (b.top, b.bottom))
    assert picture.rounds[1][0].top == Entrant()


def test_the_podium_lists_the_standings_best_first_with_points_and_games() -> None:
    arena = Arena()
    for user_id in (1, 2, 3):
        arena = arena.join(user_id, 1500.0, at=0.0)
    arena = arena.start("g", 1, 3).record("g", 3, at=5.0)
    picture = podium_picture(arena, NAMES, PodiumTexts("Arena"))
    assert [(p.rank, p.name, p.points, p.games) for p in picture.places] == [
        (1, "Carol", 2, 1),
        (2, "Bob", 0, 0),
        (3, "Alice", 0, 1),
    ]


def test_the_sample_pictures_are_written_as_pngs(tmp_path: Path) -> None:
    # run as the docs say (tests do not import scripts/: tests/test_architecture.py's floors)
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-m", "scripts.tournament_pictures", str(tmp_path)], cwd=root, check=True)
    written = sorted(tmp_path.glob("*.png"))
    assert [p.name for p in written] == ["tournament-bracket.png", "tournament-podium.png"]
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in written)
