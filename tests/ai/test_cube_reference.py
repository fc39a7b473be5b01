"""The expert's cube decisions against positions with known correct cube actions from public sources
(tests/data/cube_reference.json: textbook last-roll positions with exactly counted chances, long races
judged by the Keith count and the 8-9-12 rule, opening positions, a too-good closed board with and
without the Jacoby rule, post-Crawford trailers), and against GNU Backgammon's verdict on the same
positions where gnubg is installed. Each position gives two decisions: the roller's (double or not) and
the opponent's (take or pass, if doubled)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from engine import Side, find_rules
from engine.ai.cube import cube_decision
from engine.cube import Cube
from engine.game import Game, Phase
from engine.position_id import gnubg_position_from_id
from testkit.gnubg_cube import CubeQuestion, gnubg_cube_actions, gnubg_path

DATA = Path(__file__).resolve().parents[1] / "data" / "cube_reference.json"
ACTIONS = ("no double, take", "double, take", "double, pass", "too good, pass")
MIN_AGREEMENT = 0.9


@dataclass(frozen=True, slots=True)
class Reference:
    name: str
    position_id: str
    cube: int
    roller_owns: bool
    jacoby: bool
    roller_away: int | None
    opponent_away: int | None
    crawford: bool
    action: str
    source: str

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Reference:
        match = data["match"]
        return cls(
            name=data["name"],
            position_id=data["position_id"],
            cube=int(data["cube"]),
            roller_owns=data["owner"] == "roller",
            jacoby=bool(data["jacoby"]),
            roller_away=match["roller_away"] if match else None,
            opponent_away=match["opponent_away"] if match else None,
            crawford=bool(match["crawford"]) if match else False,
            action=data["action"],
            source=data["source"],
        )

    @property
    def doubles(self) -> bool:
        return self.action.startswith("double")

    @property
    def takes(self) -> bool:
        return self.action.endswith("take")

    def game(self, roller: Side = Side.WHITE) -> Game:
        """The position in Phase.ROLL with `roller` on turn and the cube as the reference says."""
        needs = None
        if self.roller_away is not None and self.opponent_away is not None:
            away = {roller: self.roller_away, roller.other: self.opponent_away}
            needs = (away[Side.WHITE], away[Side.BLACK])
        cube = Cube(
            value=self.cube,
            owner=roller if self.roller_owns else None,
            crawford=self.crawford,
            jacoby=self.jacoby,
            needs=needs,
        )
        position = gnubg_position_from_id(self.position_id)
        return Game(find_rules("short"), Phase.ROLL, roller, position, cube=cube)

    def question(self) -> CubeQuestion:
        return CubeQuestion(
            self.position_id,
            self.cube,
            self.roller_owns,
            self.jacoby,
            self.roller_away,
            self.opponent_away,
            self.crawford,
        )


@cache
def references() -> tuple[Reference, ...]:
    return tuple(Reference.from_json(d) for d in json.loads(DATA.read_text(encoding="utf-8"))["positions"])


@cache
def expert_actions(roller: Side = Side.WHITE) -> tuple[tuple[bool, bool], ...]:
    """(doubles, takes) by the expert for every reference, with `roller` on turn."""
    out = []
    for ref in references():
        game = ref.game(roller)
        doubles = cube_decision(game, "expert", random.Random(0)) == "double"
        takes = cube_decision(game.double(), "expert", random.Random(0)) == "take"
        out.append((doubles, takes))
    return tuple(out)


def agreement(pairs: list[tuple[bool, bool]], refs: list[tuple[bool, bool]]) -> tuple[int, int, int]:
    """(decisions agreeing, positions agreeing in both decisions, decisions) for two lists of (double, take)."""
    decisions = sum((a[0] == b[0]) + (a[1] == b[1]) for a, b in zip(pairs, refs))
    positions = sum(a == b for a, b in zip(pairs, refs))
    return decisions, positions, 2 * len(refs)


def test_reference_set_is_well_formed_and_names_its_sources() -> None:
    refs = references()
    assert len(refs) >= 20
    assert len({(r.position_id, r.cube, r.roller_owns, r.jacoby, r.roller_away) for r in refs}) == len(refs)
    for ref in refs:
        assert ref.action in ACTIONS, ref
        assert len(ref.source) > 20, f"{ref.name}: no source named"
        assert ref.game().may_double(), f"{ref.name}: the roller may not double there"


def test_expert_agrees_with_the_reference_cube_actions() -> None:
    refs = references()
    expected = [(r.doubles, r.takes) for r in refs]
    got = list(expert_actions())
    decisions, positions, total = agreement(got, expected)
    for ref, (doubles, takes) in zip(refs, got):
        if (doubles, takes) != (ref.doubles, ref.takes):
            print(
                f"differs: {ref.name} ({ref.position_id}): reference {ref.action!r}, expert doubles={doubles} takes={takes}"
            )
    print(
        f"expert vs {len(refs)} reference positions: {decisions}/{total} decisions ({decisions / total:.1%}), "
        f"{positions}/{len(refs)} positions right in both decisions"
    )
    assert decisions / total >= MIN_AGREEMENT


def test_expert_decides_the_same_for_either_colour_on_roll() -> None:
    """Perspective: the same positions with Black on roll (and the away scores swapped to match)."""
    assert expert_actions(Side.BLACK) == expert_actions(Side.WHITE)


@pytest.mark.skipif(gnubg_path() is None, reason="GNU Backgammon (gnubg) is not installed")
def test_gnubg_agreement_on_the_reference_positions_is_reported() -> None:
    refs = references()
    answers = gnubg_cube_actions([r.question() for r in refs], plies=2)
    assert all(a is not None for a in answers), answers
    gnubg = [(a.startswith("double"), a.endswith("take")) for a in answers if a is not None]
    expected = [(r.doubles, r.takes) for r in refs]
    with_refs, _, total = agreement(gnubg, expected)
    with_expert, positions, _ = agreement(list(expert_actions()), gnubg)
    for ref, answer in zip(refs, answers):
        if answer != ref.action:
            print(f"gnubg differs: {ref.name}: reference {ref.action!r}, gnubg 2-ply {answer!r}")
    print(
        f"gnubg 2-ply vs references: {with_refs}/{total} decisions ({with_refs / total:.1%}); "
        f"expert vs gnubg 2-ply: {with_expert}/{total} decisions ({with_expert / total:.1%}), "
        f"{positions}/{len(refs)} positions"
    )
    assert with_expert / total >= MIN_AGREEMENT
