"""A tournament's standings as the Mini App's standings page shows them (bot/web/static/tourney/), and who may
see them. Pure: no I/O.

Who may watch: a page whose checked initData (bot/web/auth.py) either names one of the tournament's players,
or was opened from the group card's 📲 Standings link, whose start parameter (START_PREFIX + the id) Telegram
signs inside initData: so a forged id, or initData of another bot, shows nothing. A tournament id is random
(bot/model/table.py new_id): only those who saw the card have it.
"""

from __future__ import annotations

from typing import Any

from bot.model.tournament import STANDINGS_START, Tournament
from bot.web.auth import InitData

START_PREFIX = (
    STANDINGS_START  # the start parameter of the card's link: tourney_<id> (no game id is that long)
)
POLL_EVERY = 5  # seconds between a page's reads of the standings (its answer says so; the page obeys)


def start_param(tourney_id: str) -> str:
    return START_PREFIX + tourney_id


def may_watch(t: Tournament, init: InitData) -> bool:
    """A player, or a page opened from the tournament's own card link."""
    return t.entrant(init.user.id) is not None or init.start_param == start_param(t.id)


def standings_view(t: Tournament, now: float) -> dict[str, Any]:
    """What the page draws: the arena's table (place, name, points, wins, games, on fire, playing now) or the
    knockout's bracket round by round, the games in play, the time left."""
    busy = {p: g for g in t.running_games for p in g.players}
    view: dict[str, Any] = {
        "id": t.id,
        "kind": t.kind,
        "title": t.title or "",
        "stage": t.stage,
        "version": t.version,
        "format": t.fmt,
        "left": None if t.ends_at is None else max(0, round(t.ends_at - now)),
        "starts_in": max(0, round(t.starts_at - now)) if t.stage == "signup" else None,
        "playing": [[t.name_of(g.players[0]), t.name_of(g.players[1])] for g in t.running_games],
        "poll": POLL_EVERY,
    }
    if t.kind == "arena" and t.stage != "signup":
        view["standings"] = [
            {
                "place": place,
                "name": s.entrant.person.name,
                "points": s.points,
                "wins": s.wins,
                "games": s.games,
                "fire": s.on_fire,
                "playing": s.user_id in busy,
            }
            for place, s in enumerate(t.standings(), start=1)
        ]
    elif t.kind == "knockout" and t.bracket:
        view["rounds"] = [[_slot(t, uid) for uid in level] for level in t.rounds()]
    else:
        view["players"] = [e.person.name for e in t.entrants]
    return view


def _slot(t: Tournament, uid: int) -> str | None:
    """A bracket slot: the player's name, "" a bye, None not known yet."""
    if uid == -1:
        return None
    return "" if uid == 0 else t.name_of(uid)
