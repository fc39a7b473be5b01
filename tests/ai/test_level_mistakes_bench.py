"""bench/level_mistakes.py runs and prints its figures as one JSON line, and the judge finds no mistake in the
expert's own plays (the judge's best play is the expert's decision). The script runs as a program: tests do
not import bench/."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
LEVEL_KEYS = {
    "games",
    "ppg",
    "decisions",
    "mean_loss",
    "memg",
    "lose_share",
    "doubtful_share",
    "error_share",
    "blunder_share",
    "median_losing_loss",
    "blunder_loss_share",
    "s_per_game",
    "phases",
}
PHASES = {"contact", "race", "bear-off"}


def run_bench(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "bench/level_mistakes.py", "--workers", "1", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    summary: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return summary


@pytest.mark.parametrize(
    ("game", "games", "levels"),
    [("short", 2, ["beginner", "intermediate", "expert"]), ("long", 1, ["expert"])],  # a long game: ~3 s
)
def test_each_level_gets_its_figures_and_the_expert_loses_nothing(
    game: str, games: int, levels: list[str]
) -> None:
    summary = run_bench("--game", game, "--games", str(games), "--levels", *levels)
    assert {k: summary[k] for k in ("game", "games", "seed")} == {"game": game, "games": games, "seed": 1}
    figures = summary["levels"]
    assert list(figures) == levels
    for level, f in figures.items():
        assert set(f) == LEVEL_KEYS, level
        assert f["games"] == games and f["decisions"] > 0
        for share in ("lose_share", "doubtful_share", "error_share", "blunder_share", "blunder_loss_share"):
            assert 0.0 <= f[share] <= 1.0, (level, share)
        assert set(f["phases"]) == PHASES
        assert sum(p["decisions"] for p in f["phases"].values()) == f["decisions"]
    expert = figures["expert"]
    assert expert["mean_loss"] == expert["memg"] == expert["lose_share"] == 0.0
    assert all(p["marked"] == 0 for p in expert["phases"].values())
    if games % 2 == 0:  # mirrored pairs: the same dice and the same players, the colours swapped
        assert expert["ppg"] == 0.0
