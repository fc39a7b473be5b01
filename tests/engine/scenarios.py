"""Reads the scenario blocks of RULES.md §7-§8, kept as test data in tests/data/rules_scenarios.md."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from engine import Dice, Options, Position

DATA = Path(__file__).resolve().parent.parent / "data" / "rules_scenarios.md"


def counts(text: str) -> dict[int, int]:
    """`{24:2, 13:5}` -> {24: 2, 13: 5}."""
    body = text.strip().strip("{}").strip()
    if not body:
        return {}
    return {int(k): int(v) for k, v in (item.split(":") for item in body.split(","))}


@dataclass
class Variant:
    header: str
    options: list[Options]
    first_turn: bool | None  # overrides the block's "first turn of X" when set
    used: int
    declared: int
    outcomes: set[tuple[tuple[int, ...], tuple[int, ...]]]


@dataclass
class Scenario:
    ident: str
    title: str
    game: str
    position: Position
    dice: Dice
    variants: list[Variant] = field(default_factory=list)


def _options_for(header: str) -> tuple[list[Options], bool | None]:
    if header.startswith("default"):
        return [Options()], None
    if header.startswith("first turn"):
        return [Options(head_exception=h) for h in ("principle", "fixed_663", "seed001_list")], True
    if header.startswith("same position, NOT the first turn"):
        return [Options()], False
    name, _, values = header.partition("=")
    key = name.strip().lower()
    result = []
    for value in values.split(" or "):
        value = re.sub(r"\(.*?\)", "", value).strip()
        parsed: object = {"on": True, "off": False}.get(value, value)
        result.append(Options(**{key: parsed}))  # type: ignore[arg-type]
    return result, None


def load() -> list[Scenario]:
    text = DATA.read_text(encoding="utf-8")
    scenarios = []
    for section in re.split(r"^#### ", text, flags=re.MULTILINE)[1:]:
        ident, _, title = section.partition(" — ")
        title = title.splitlines()[0]
        block = re.search(r"```\n(game:.*?)```", section, flags=re.DOTALL)
        if not block:
            continue  # the scoring and opening tables are tested by hand
        lines = block.group(1).splitlines()
        game_line = lines[0]
        game = "short" if "SHORT" in game_line else "long"
        first = "first turn of X: yes" in game_line
        second_player = "second player" in game_line
        x = counts(re.search(r"X: (\{.*?\})", block.group(1)).group(1))  # type: ignore[union-attr]
        o = counts(re.search(r"\nO: (\{.*?\})", block.group(1)).group(1))  # type: ignore[union-attr]
        dice = Dice.parse(re.search(r"dice: (\d-\d)", block.group(1)).group(1))  # type: ignore[union-attr]
        opened = re.search(r"opened (\d)-(\d)", title)
        opening = tuple(sorted((int(opened.group(1)), int(opened.group(2))))) if opened else None
        base = Position.from_counts(
            x,
            o,
            x_first_turn=first,
            o_first_turn=first and not second_player,
            opening_roll=opening if second_player else None,  # type: ignore[arg-type]
        )
        scenario = Scenario(ident.strip(), title, game, base, dice)
        current: Variant | None = None
        for line in lines:
            head = re.match(r"\[(.*?)\]\s+dice used M = (\d).*outcomes \((\d+)\)", line)
            if head:
                options, first_override = _options_for(head.group(1))
                current = Variant(
                    head.group(1), options, first_override, int(head.group(2)), int(head.group(3)), set()
                )
                scenario.variants.append(current)
                continue
            out = re.match(r"\s+\d+\. X (\{.*?\})(?:\s+O (\{.*?\}))?", line)
            if out and current is not None:
                ox = Position.from_counts(counts(out.group(1)), counts(out.group(2)) if out.group(2) else o)
                current.outcomes.add((ox.x, ox.o))
        scenarios.append(scenario)
    return scenarios
