"""A tournament in words and buttons: /tournament's menu, the group's card (sign-up, then the standings or the
bracket), the final message. Pure text: the handlers (bot/telegram/handlers/tournaments.py) send it."""

from __future__ import annotations

import math

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.i18n import N_, Texts
from bot.model.game_format import GameFormat
from bot.model.tournament import (
    ARENA_MINUTES,
    START_IN,
    STREAK_AFTER,
    Tournament,
    final_length,
    round_count,
)
from bot.telegram import callbacks
from bot.views.captions import clock_words, variant_name

SHOWN_PLACES = 10  # the standings' lines on the card
SHOWN_GAMES = 8  # the games going on, listed on the card

KIND_NAMES = {"arena": N_("Arena"), "knockout": N_("Knockout")}
ASK_KIND = N_(
    "🏆 A tournament for this group. Which kind?\nArena: as many games as you can in a set time.\nKnockout: lose a match and you are out."
)
ASK_VARIANT = N_("🏆 Which game?")
ASK_LENGTH = N_("🏆 Single games or matches to 3?")
ASK_CLOCK = N_("🏆 Which clock? A tournament game always has one.")
ASK_MINUTES = N_("🏆 How long does the arena last?")
ASK_START = N_("🏆 When does it start? Players sign up until then.")


def kind_name(t: Texts, kind: str) -> str:
    name = KIND_NAMES[kind]
    return t.gettext(name)


def menu_step(t: Texts, user: int, choice: str) -> tuple[str, InlineKeyboardMarkup] | None:
    """The menu's next question for the choices made so far (None: all made, the tournament is created)."""

    def row(options: list[tuple[str, str]]) -> list[InlineKeyboardButton]:
        return [
            InlineKeyboardButton(label, callback_data=callbacks.tourney_menu(user, choice + c))
            for label, c in options
        ]

    def markup(*rows: list[InlineKeyboardButton]) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup(list(rows))

    arena = choice.startswith("a")
    if not choice:
        return t.gettext(ASK_KIND), markup(
            row(
                [
                    ("🏟 " + kind_name(t, "arena"), "a"),
                    ("⚔️ " + kind_name(t, "knockout"), "k"),
                ]
            )
        )
    if len(choice) == 1:
        return t.gettext(ASK_VARIANT), markup(
            row([(variant_name(t, "short"), "s")]), row([(variant_name(t, "long"), "l")])
        )
    if len(choice) == 2:
        return t.gettext(ASK_LENGTH), markup(
            row([(t.gettext("Single games"), "1"), (t.gettext("Matches to 3"), "3")])
        )
    if len(choice) == 3:
        return t.gettext(ASK_CLOCK), markup(
            row([(clock_words(t, "live"), "l")]), row([(clock_words(t, "blitz"), "b")])
        )
    if arena and len(choice) == 4:
        return t.gettext(ASK_MINUTES), markup(
            row([(t.gettext("{n} min", n=m), str(i)) for i, m in enumerate(ARENA_MINUTES)])
        )
    if len(choice) == (5 if arena else 4):
        options = [
            (t.gettext("Now") if m == 0 else t.gettext("In {n} min", n=m), str(i))
            for i, m in enumerate(START_IN)
        ]
        return t.gettext(ASK_START), markup(row(options[:1]), row(options[1:]))
    return None


def chosen(choice: str) -> tuple[str, str, int, int]:
    """A complete menu choice as (kind, game format, arena minutes, start in minutes); ValueError if it is
    not complete."""
    arena = choice.startswith("a")
    if len(choice) != (6 if arena else 5):
        raise ValueError(f"tournament menu choice {choice!r} is not complete")
    variant = "short" if choice[1] == "s" else "long"
    clock = "live" if choice[3] == "l" else "blitz"
    length = int(choice[2])
    fmt = str(GameFormat(variant, length, clock=clock))
    minutes = ARENA_MINUTES[int(choice[4])] if arena else 0
    return ("arena" if arena else "knockout"), fmt, minutes, START_IN[int(choice[-1])]


def card_markup(t: Texts, tour: Tournament, bot_username: str) -> InlineKeyboardMarkup | None:
    """The card's buttons: while signing up Join, Leave, a deep link for those who never opened the bot,
    Start and Cancel; while running Join (a paused arena player comes back) and Cancel."""
    if not tour.live:
        return None
    link = f"https://t.me/{bot_username}?start=t_{tour.id}"
    if tour.stage == "signup":
        return InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(
                        "✅ " + t.gettext("Join"), callback_data=callbacks.tourney_card("tj", tour.id)
                    ),
                    InlineKeyboardButton(
                        t.gettext("Leave"), callback_data=callbacks.tourney_card("tl", tour.id)
                    ),
                ],
                [InlineKeyboardButton("🤖 " + t.gettext("Join from the bot's chat"), url=link)],
                [
                    InlineKeyboardButton(
                        "▶️ " + t.gettext("Start"), callback_data=callbacks.tourney_card("ts", tour.id)
                    ),
                    InlineKeyboardButton(
                        t.gettext("Cancel"), callback_data=callbacks.tourney_card("tx", tour.id)
                    ),
                ],
            ]
        )
    rows = [[InlineKeyboardButton(t.gettext("Cancel"), callback_data=callbacks.tourney_card("tx", tour.id))]]
    if tour.kind == "arena":
        rows.insert(
            0,
            [
                InlineKeyboardButton(
                    t.gettext("I am back"), callback_data=callbacks.tourney_card("tj", tour.id)
                )
            ],
        )
    return InlineKeyboardMarkup(rows)


def heading(t: Texts, tour: Tournament) -> str:
    kind = kind_name(t, tour.kind)
    line = f"🏆 {kind}: {variant_name(t, tour.fmt)}"
    if tour.kind == "knockout":
        final = final_length(GameFormat.parse(tour.fmt).length)
        line += "\n" + t.gettext("The final is a match to {n}.", n=final)
    if tour.kind == "arena":
        line += "\n" + t.gettext(
            "{n} minutes; a win 2 points, 4 after {streak} wins in a row.",
            n=tour.minutes,
            streak=STREAK_AFTER,
        )
    return line


def card_text(t: Texts, tour: Tournament, now: float) -> str:
    """The group card: the settings, then who signed up (and when it starts), the standings or the bracket
    while it runs, the podium once over."""
    lines = [heading(t, tour)]
    if tour.stage == "signup":
        left = max(0, math.ceil((tour.starts_at - now) / 60))
        lines.append(
            t.gettext("Starts in {n} min, or when {name} presses Start.", n=left, name=tour.creator.name)
        )
        lines.append(t.gettext("Players ({count}):", count=len(tour.entrants)))
        lines += [f"• {e.person.name} ({e.rating:.0f})" for e in tour.entrants[:60]]
        if len(tour.entrants) > 60:
            lines.append(t.gettext("and {n} more", n=len(tour.entrants) - 60))
        return "\n".join(lines)
    if tour.stage == "cancelled":
        lines.append(t.gettext("This tournament was cancelled."))
        return "\n".join(lines)
    if tour.stage == "running" and tour.ends_at is not None:
        left = max(0, math.ceil((tour.ends_at - now) / 60))
        lines.append(
            t.gettext("{n} min left.", n=left) if left else t.gettext("Time is up: the last games finish.")
        )
    lines.append("")
    lines += standings_lines(t, tour) if tour.kind == "arena" else bracket_lines(t, tour)
    playing = tour.running_games
    if playing and tour.stage == "running":
        lines.append("")
        lines.append(t.gettext("Playing now:"))
        lines += [
            f"• {tour.name_of(g.players[0])} – {tour.name_of(g.players[1])}" for g in playing[:SHOWN_GAMES]
        ]
    if tour.stage == "over":
        lines.append("")
        lines.append(podium_text(t, tour))
    return "\n".join(lines)


def standings_lines(t: Texts, tour: Tournament) -> list[str]:
    out = []
    for place, s in enumerate(tour.standings()[:SHOWN_PLACES], start=1):
        fire = " 🔥" if s.on_fire else ""
        pause = " ⏸" if s.entrant.paused else ""
        out.append(
            t.gettext(
                "{place}. {name}: {points} pts, {wins}/{games} won",
                place=place,
                name=s.entrant.person.name,
                points=s.points,
                wins=s.wins,
                games=s.games,
            )
            + fire
            + pause
        )
    return out


def bracket_lines(t: Texts, tour: Tournament) -> list[str]:
    out = []
    total = round_count(tour)
    for g in sorted(tour.games, key=lambda g: (g.round, g.slot)):
        a, b = (tour.name_of(u) for u in g.players)
        result = ""
        if g.winner is not None:
            result = (
                " → " + tour.name_of(g.winner) + (" (" + t.gettext("walkover") + ")" if g.walkover else "")
            )
        out.append(f"{round_name(t, g.round, total)}: {a} – {b}{result}")
    return out


def round_name(t: Texts, rnd: int, total: int) -> str:
    if rnd == total:
        return t.gettext("Final")
    if rnd == total - 1:
        return t.gettext("Semi-final")
    return t.gettext("Round {n}", n=rnd)


def podium_text(t: Texts, tour: Tournament) -> str:
    """The winner and the runners-up."""
    medals = ("🥇", "🥈", "🥉")
    lines = [t.gettext("🏆 The tournament is over!")]
    for medal, place in zip(medals, tour.podium(), strict=False):
        lines.append(f"{medal} " + ", ".join(tour.name_of(u) for u in place))
    return "\n".join(lines)
