"""What /stats and /history say, in words: a player's statistics per variant and their last games, as lines
of one language. Pure: the figures of bot/model/stats.py in, text out. The chat's /stats and /history
(bot/telegram/handlers/stats.py) and the Mini App's home (bot/web/home.py) both say them with these."""

from __future__ import annotations

import time

from bot.i18n import N_, Texts
from bot.model.stats import HistoryEntry, PlayerStats, VariantStats

VARIANT_NAMES = {"short": N_("Short nardy"), "long": N_("Long nardy")}
LEVEL_NAMES = {"beginner": N_("beginner"), "intermediate": N_("intermediate"), "expert": N_("expert")}
KIND_NAMES = {"mars": N_("mars"), "koks": N_("koks"), "home_mars": N_("home mars")}
FORMER_PLAYER = N_("a former player")  # an opponent who used /forget, or whose statistics expired
HOW_NAMES = {"resigned": N_("by resignation"), "dropped": N_("cube passed"), "claimed": N_("claimed")}


def _signed(x: float, digits: int = 1) -> str:
    text = f"{x:+.{digits}f}"
    return text.replace("-", "−")


def variant_block(t: Texts, v: VariantStats) -> list[str]:
    """A variant's lines of /stats (none if the player never played it)."""
    if not v.played:
        return []
    lines = [t.gettext(VARIANT_NAMES[v.variant]) + ":"]
    if v.rated:
        lines.append(
            t.gettext("Rating: {rating}", rating=round(v.rating))
            + " ("
            + t.ngettext("{n} rated match", "{n} rated matches", v.rated)
            + ")"
        )
    else:
        lines.append(t.gettext("Rating: {rating} (no rated match yet)", rating=round(v.rating)))
    if v.games:
        lines.append(
            t.gettext(
                "Games: {games}, won {wins}, lost {losses}; points per game {ppg}",
                games=v.games,
                wins=v.wins,
                losses=v.losses,
                ppg=_signed(v.points_per_game, 2),
            )
        )
        lines.append(
            t.gettext(
                "Marses won/lost: {mw}/{ml}; koks won/lost: {kw}/{kl}",
                mw=v.mars_won,
                ml=v.mars_lost,
                kw=v.koks_won,
                kl=v.koks_lost,
            )
        )
        lines.append(t.gettext("Streak of wins: {now}, best {best}", now=v.streak, best=v.best_streak))
    if v.computer:
        levels = ", ".join(
            t.gettext(
                "{level} {wins} of {games}", level=t.gettext(LEVEL_NAMES[c.level]), wins=c.wins, games=c.games
            )
            for c in v.computer
        )
        lines.append(t.gettext("Against the computer (wins of games): {levels}", levels=levels))
    return lines


def stats_text(t: Texts, name: str, found: PlayerStats) -> str:
    """What /stats says about a player."""
    blocks = [variant_block(t, v) for v in found.variants]
    if not any(blocks):
        return t.gettext("📊 {name} has no finished games yet.", name=name)
    lines = [t.gettext("📊 Statistics of {name}", name=name)]
    for block in blocks:
        if block:
            lines += ["", *block]
    tourneys = tourney_line(t, found)
    if tourneys:
        lines += ["", tourneys]
    return "\n".join(lines)


def tourney_line(t: Texts, found: PlayerStats) -> str:
    """The tournaments' line of /stats ("" for a player who never played one)."""
    if not found.tourneys:
        return ""
    return t.gettext(
        "🏆 Tournaments: {played} played, {won} won", played=found.tourneys, won=found.tourney_wins
    )


def history_line(t: Texts, e: HistoryEntry) -> str:
    """One game of /history: date, variant, opponent, result, and what it made of a match or a rating."""
    if e.level is not None:
        opponent = t.gettext("the computer ({level})", level=t.gettext(LEVEL_NAMES.get(e.level, e.level)))
    else:
        opponent = e.opponent or t.gettext(FORMER_PLAYER)
    points = t.ngettext("{n} point", "{n} points", e.points)
    result = t.gettext("won {points}", points=points) if e.won else t.gettext("lost {points}", points=points)
    details = [t.gettext(KIND_NAMES[e.kind])] if e.kind in KIND_NAMES else []
    if e.how in HOW_NAMES:
        details.append(t.gettext(HOW_NAMES[e.how]))
    if e.match_length > 1:
        details.append(
            t.gettext("match to {n}: {mine}–{theirs}", n=e.match_length, mine=e.score[0], theirs=e.score[1])
        )
    if e.change is not None:
        details.append(t.gettext("rating {change}", change=_signed(e.change)))
    line = t.gettext(
        "{date} {variant} against {opponent}: {result}",
        date=time.strftime("%Y-%m-%d", time.gmtime(e.at)),
        variant=t.gettext(VARIANT_NAMES.get(e.variant, e.variant)),
        opponent=opponent,
        result=result,
    )
    return line + (f" ({', '.join(details)})" if details else "")
