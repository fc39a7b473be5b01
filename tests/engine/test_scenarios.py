"""Every scenario block of RULES.md §7 (S0-S15) and §8 (L1-L12): the complete set of legal outcomes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import find_rules
from tests.engine.scenarios import load

CASES = [
    pytest.param(s, v, opts, id=f"{s.ident}-{v.header}-{opts.head_exception}")
    for s in load()
    for v in s.variants
    for opts in v.options
]


def test_every_scenario_block_of_rules_md_is_loaded() -> None:
    idents = {s.ident for s in load()}
    expected = {
        "S0",
        "S1",
        "S1b",
        "S2",
        "S2b",
        "S3",
        "S4",
        "S5",
        "S5b",
        "S6",
        "S7",
        "S8",
        "S9",
        "S10",
        "S10b",
        "S10c",
        "S11",
        "S12",
        "S15",
        "L1",
        "L2a",
        "L2b",
        "L2c",
        "L2d",
        "L3a",
        "L3b",
        "L3c",
        "L3d",
        "L3e",
        "L3f",
        "L4",
        "L4b",
        "L5",
        "L5b",
        "L6",
        "L7",
        "L7b",
        "L7c",
        "L8",
        "L9",
        "L9b",
        "L10",
        "L10b",
    }
    assert expected <= idents
    assert len(CASES) >= 55
    for s in load():
        for v in s.variants:
            assert len(v.outcomes) == v.declared > 0, (s.ident, v.header)


@pytest.mark.parametrize(("scenario", "variant", "options"), CASES)
def test_scenario_outcomes_match_rules_md(scenario, variant, options) -> None:  # type: ignore[no-untyped-def]
    rules = find_rules(scenario.game, options)
    position = scenario.position
    if variant.first_turn is not None:
        position = replace(position, x_first_turn=variant.first_turn, o_first_turn=variant.first_turn)
    plays = rules.legal_plays(position, scenario.dice)
    got = {(p.position.x, p.position.o) for p in plays}
    assert got == variant.outcomes, "\n" + rules.diagram(position)
    assert len(plays) == len(got), "plays must be distinct outcomes"
    assert rules.max_dice_used(position, scenario.dice) == variant.used
    assert all(len(p.moves) == variant.used for p in plays)
