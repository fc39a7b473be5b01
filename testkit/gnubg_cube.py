"""GNU Backgammon's command line (`gnubg -t -q`, Debian's /usr/games/gnubg) as an oracle for cube actions.

A gnubg process per position: a money session (or a match whose score
gives the away scores) with the board set by its Position ID, the roller (gnubg's player 1, "root") on
roll, the cube set, and `hint`; its "Proper cube action" line is mapped to the reference vocabulary
("no double, take", "double, take", "double, pass", "too good, pass"). No beavers, as in the game.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

GNUBG = "/usr/games/gnubg"


@dataclass(frozen=True, slots=True)
class CubeQuestion:
    """A cube decision for gnubg: the roller's Position ID (roller to move), the cube's value and whether
    the roller owns it (else centred), the Jacoby rule (money), and for a match the away scores and
    whether this is the Crawford game."""

    position_id: str
    cube: int = 1
    roller_owns: bool = False
    jacoby: bool = False
    roller_away: int | None = None
    opponent_away: int | None = None
    crawford: bool = False


def gnubg_path() -> str | None:
    """The gnubg executable, or None when GNU Backgammon is not installed."""
    if os.access(GNUBG, os.X_OK):
        return GNUBG
    return shutil.which("gnubg")


def _script(question: CubeQuestion, plies: int) -> str:
    lines = []
    if question.roller_away is None or question.opponent_away is None:
        lines += ["new session", f"set jacoby {'on' if question.jacoby else 'off'}"]
    else:
        length = max(question.roller_away, question.opponent_away) + 1
        lines += [
            f"new match {length}",
            # gnubg's `set score` takes player 0's (gnubg's, the opponent's) score, then player 1's (the roller's)
            f"set score {length - question.opponent_away} {length - question.roller_away}",
        ]
        if 1 in (question.roller_away, question.opponent_away):
            lines.append(f"set crawford {'on' if question.crawford else 'off'}")
    lines += [
        f"set evaluation chequer eval plies {plies}",
        f"set evaluation cubedecision eval plies {plies}",
        f"set board {question.position_id}",
        "set turn 1",
        f"set cube value {question.cube}",
        "set cube owner 1" if question.roller_owns else "set cube centre",
        "hint",
    ]
    return "\n".join(lines) + "\n"


def _action(text: str) -> str | None:
    """The reference name of gnubg's "Proper cube action" (None for one it cannot map)."""
    text = re.sub(r"\s*\(.*\)\s*$", "", text.strip()).lower().replace("redouble", "double")
    if text.startswith("too good"):
        return "too good, pass" if text.endswith("pass") else "too good, take"
    for prefix in ("no double", "double", "optional double"):
        if text.startswith(prefix):
            answer = "pass" if text.endswith("pass") else "take"
            return f"{'no double' if prefix == 'no double' else 'double'}, {answer}"
    return None


def gnubg_cube_action(question: CubeQuestion, plies: int = 2, timeout: float = 120.0) -> str | None:
    """gnubg's cube action for one question (None where it gave none or one this module cannot name).

    One gnubg process per question: gnubg's evaluation cache does not tell Jacoby from non-Jacoby
    sessions, so a batch would answer a position seen before from the cache."""
    path = gnubg_path()
    if path is None:
        raise FileNotFoundError("GNU Backgammon (gnubg) is not installed")
    with tempfile.TemporaryDirectory() as folder:
        commands = os.path.join(folder, "commands.txt")
        with open(commands, "w", encoding="utf-8") as f:
            f.write("set beavers 0\n" + _script(question, plies))
        out = subprocess.run(
            [path, "-q", "-t", "--no-rc", "-c", commands],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
            check=False,
            env={**os.environ, "HOME": folder},
        ).stdout
    found = re.search(r"Proper cube action: (.+)", out)
    return _action(found.group(1)) if found else None


def gnubg_cube_actions(questions: Sequence[CubeQuestion], plies: int = 2) -> list[str | None]:
    """gnubg's cube action for each question, two gnubg processes at a time."""
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(lambda q: gnubg_cube_action(q, plies), questions))
