"""Clocks for live play: a time control (a reserve per player plus a delay per move) and a game's clock.

A pure value, like the engine's: no clock is read here, every time is passed in (the bot's clock, unix
seconds), so tests drive it with any times they like.

- A **time control** gives each player a reserve (so many seconds a point of the match's length) and a
  delay per decision that is used before the reserve: a decision made within the delay costs nothing.
- A game's **clock** runs for one side at a time: the side the game waits for (`Game.deciding`: the mover,
  or the player offered a double). It starts when that side's decision begins (their dice are shown, a
  double is offered to them) and stops at their last press of it; the time past the delay comes off their
  reserve. Their flag falls when the delay and the reserve are both used up: `deadline()`.
- The computer never has a clock: a game against it has none.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine import Side


@dataclass(frozen=True)
class TimeControl:
    """A reserve of `per_point` seconds a point of match length, and `delay` seconds a decision."""

    name: str
    per_point: float
    delay: float

    def reserve(self, length: int) -> float:
        return self.per_point * length


TIME_CONTROLS: dict[str, TimeControl] = {
    "live": TimeControl("live", per_point=120.0, delay=12.0),
    "blitz": TimeControl("blitz", per_point=30.0, delay=6.0),
}
WARN_AT = 20.0  # seconds left when a player is warned once (privately) that their time runs out


def time_control(name: str) -> TimeControl:
    try:
        return TIME_CONTROLS[name]
    except KeyError:
        raise ValueError(f"no time control {name!r}: one of {sorted(TIME_CONTROLS)}") from None


@dataclass(frozen=True)
class Clock:
    """A game's clock. `reserves` are as of the last switch; `running` is the side whose time runs since
    `since` (None: stopped, e.g. the game is over)."""

    control: TimeControl
    reserves: tuple[float, float]
    running: Side | None = None
    since: float | None = None
    used: tuple[tuple[int, int, float], ...] = ()  # (game number, side, seconds) of each decision timed
    key: str = ""  # which decision the running side's time is for (bot/model/flow.py decision_key)
    excused_to: float = 0.0  # the end of the last outage whose time was given back (`excuse`)

    @classmethod
    def start(cls, control: TimeControl, length: int) -> Clock:
        reserve = control.reserve(length)
        return cls(control, (reserve, reserve))

    def charge(self, now: float) -> float:
        """What the running side's decision has taken from their reserve so far (0 within the delay)."""
        if self.running is None or self.since is None:
            return 0.0
        return max(0.0, now - self.since - self.control.delay)

    def left(self, now: float) -> tuple[float, float]:
        """Each side's reserve as of `now` (the running side's already charged; never below 0)."""
        reserves = list(self.reserves)
        if self.running is not None:
            reserves[self.running] = max(0.0, reserves[self.running] - self.charge(now))
        return reserves[0], reserves[1]

    def delay_left(self, now: float) -> float:
        """What is left of the running side's delay for this decision."""
        if self.running is None or self.since is None:
            return 0.0
        return max(0.0, self.control.delay - max(0.0, now - self.since))

    def deadline(self) -> float | None:
        """When the running side's flag falls (None: nobody's clock runs)."""
        if self.running is None or self.since is None:
            return None
        return self.since + self.control.delay + self.reserves[self.running]

    def flagged(self, now: float) -> Side | None:
        """The side whose time ran out by `now`, if any."""
        due = self.deadline()
        return self.running if due is not None and now >= due else None

    def excuse(self, outages: Sequence[tuple[float, float]], now: float) -> Clock:
        """The clock with the running side's time spent in `outages` ((start, end) in the bot's time: Redis or
        the bot away, when no one could press) given back: its decision starts that much later. Each outage
        is given back once (`excused_to`); an outage before the decision began gives nothing."""
        if self.running is None or self.since is None:
            return self
        credit, last = 0.0, self.excused_to
        for start, end in merged(outages):
            if end <= self.excused_to or start >= now:
                continue
            overlap = min(end, now) - max(start, self.since)
            if overlap > 0:
                credit, last = credit + overlap, max(last, end)
        if credit <= 0:
            return self
        return replace(self, since=self.since + credit, excused_to=last)

    def switch(self, now: float, to: Side | None, key: str = "", number: int = 1) -> Clock:
        """The running side's decision ends at `now` (its time past the delay comes off its reserve, and the
        decision is timed as one of game `number`); `to`'s decision `key` starts (None: the clock stops)."""
        reserves, used = list(self.reserves), self.used
        if self.running is not None and self.since is not None:
            reserves[self.running] = max(0.0, reserves[self.running] - self.charge(now))
            used = (*used, (number, int(self.running), round(max(0.0, now - self.since), 3)))
        return replace(
            self,
            reserves=(reserves[0], reserves[1]),
            running=to,
            since=None if to is None else now,
            used=used,
            key=key if to is not None else "",
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "control": self.control.name,
            "reserves": list(self.reserves),
            "running": None if self.running is None else int(self.running),
            "since": self.since,
            "used": [list(u) for u in self.used],
            "key": self.key,
            **({"excused_to": self.excused_to} if self.excused_to else {}),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Clock:
        running = d.get("running")
        reserves = d["reserves"]
        return cls(
            time_control(str(d["control"])),
            (float(reserves[0]), float(reserves[1])),
            None if running is None else Side(int(running)),
            None if d.get("since") is None else float(d["since"]),
            tuple((int(n), int(side), float(seconds)) for n, side, seconds in d.get("used", ())),
            str(d.get("key", "")),
            float(d.get("excused_to", 0.0)),
        )


def merged(spans: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The time spans (start, end) as disjoint spans covering the same time (several workers note one outage)."""
    out: list[tuple[float, float]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def clock_text(seconds: float) -> str:
    """A reserve as a person reads it: 1:05, 0:09 (rounded up: a flag falls at 0:00, never at 0:01)."""
    whole = max(0, math.ceil(seconds - 1e-9))
    return f"{whole // 60}:{whole % 60:02d}"
