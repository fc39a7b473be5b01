"""Single moves and plays, and their usual notation: `24/18 13/11*`, `bar/22`, `6/off`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from engine.errors import InvalidMoveError
from engine.position import Position
from engine.sides import BAR, OFF


def point_text(point: int) -> str:
    return "bar" if point == BAR else "off" if point == OFF else str(point)


@dataclass(frozen=True, slots=True)
class Move:
    """One checker moved with one die, in the mover's own numbering (src 25 = bar, dst 0 = off)."""

    src: int
    dst: int
    die: int
    hit: bool = False

    def __str__(self) -> str:
        return f"{point_text(self.src)}/{point_text(self.dst)}{'*' if self.hit else ''}"


@dataclass(frozen=True, slots=True)
class Play:
    """The single moves of one turn and the position they lead to (still from the mover's side).

    Two plays are the same choice when they lead to the same position (RULES.md §2.4), so equality
    and hashing are by the resulting position only."""

    moves: tuple[Move, ...]
    position: Position

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Play) and other.position == self.position

    def __hash__(self) -> int:
        return hash(self.position)

    def __str__(self) -> str:
        return " ".join(str(m) for m in self.moves) if self.moves else "pass"

    def __repr__(self) -> str:
        return f"<Play {self} -> {self.position.describe()}>"

    @property
    def is_pass(self) -> bool:
        return not self.moves


_TOKEN = re.compile(r"^(bar|\d{1,2})((?:/(?:bar|off|\d{1,2})\*?)+)(?:\((\d)\))?$")


Hop = tuple[int, int, bool]  # (from, to, marked as a hit)


def parse_hops(text: str) -> list[Hop]:
    """Split play text into (from, to, hit-marked) hops: `24/18*/13 6/off(2)` ->
    [(24, 18, True), (18, 13, False), (6, 0, False), (6, 0, False)]."""
    cleaned = text.strip().lower()
    if cleaned in ("", "pass", "-", "no move", "(no move)"):
        return []
    hops: list[Hop] = []
    for token in cleaned.replace(",", " ").split():
        m = _TOKEN.match(token)
        if not m:
            raise InvalidMoveError(f"cannot read move {token!r} in play {text!r}")
        raw = [m.group(1)] + m.group(2).split("/")[1:]
        marks = [p.endswith("*") for p in raw]
        values = [BAR if p == "bar" else OFF if p == "off" else int(p) for p in (q.rstrip("*") for q in raw)]
        chain = [(src, dst, hit) for (src, dst), hit in zip(pairwise(values), marks[1:], strict=True)]
        for src, dst, _ in chain:
            if not (1 <= src <= 25 and 0 <= dst <= 24 and dst < src):
                raise InvalidMoveError(
                    f"move {src}/{dst} in {text!r} does not go from a higher point to a lower one"
                )
        hops.extend(chain * int(m.group(3) or 1))
    return hops
