"""House rules (RULES.md §1.7) as one frozen value."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from engine.errors import OptionsError

_CHOICES: dict[str, tuple[Any, ...]] = {
    "opening_dice_are_first_roll": (None, True, False),
    "next_game_starter": (None, "opening_roll", "previous_winner", "previous_black"),
    "resign_scoring": ("position", "single"),
    "full_pip_rule": (False, True),
    "head_exception": ("principle", "fixed_663", "seed001_list"),
    "block_rule": ("ahead", "opponent_home", "none"),
    "block_timing": ("per_step", "end_of_turn"),
    "home_mars_3": (False, True),
    "koks_3": (False, True),
}


@dataclass(frozen=True, slots=True)
class Options:
    """House rules. `None` means the game's own default (RULES.md §0)."""

    opening_dice_are_first_roll: bool | None = None  # short: True, long: False
    next_game_starter: str | None = None  # short: opening_roll, long: previous_winner
    resign_scoring: str = "position"
    full_pip_rule: bool = False  # short only (seed 000 r.26)
    head_exception: str = "principle"  # long only
    block_rule: str = "ahead"  # long only
    block_timing: str = "per_step"  # long only
    home_mars_3: bool = False  # long only
    koks_3: bool = False  # long only

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value not in _CHOICES[f.name] or type(value) not in {type(c) for c in _CHOICES[f.name]}:
                raise OptionsError(f"option {f.name}={value!r} is not one of {_CHOICES[f.name]}")

    def to_json(self) -> dict[str, Any]:
        """Only the options that differ from the defaults."""
        default = Options()
        return {k: v for k, v in asdict(self).items() if getattr(default, k) != v}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Options:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise OptionsError(f"unknown options {sorted(unknown)}")
        return cls(**data)
