"""The picture of a finished tournament, for its last message in the group: a knockout's bracket
(render/bracket.py) or an arena's podium (render/podium.py), drawn from the record (bot/model/tournament.py)
through the pure rules' values (bot/model/knockout.py, bot/model/arena.py) and bot/views/tournament.py, with
the words in the group card's language."""

from __future__ import annotations

from bot.i18n import Texts
from bot.model.game_format import GameFormat
from bot.model.knockout import Knockout, KnockoutSettings, Seeded, match_id
from bot.model.tournament import Tournament, arena_of, final_length
from bot.views.tournament import bracket_picture, podium_picture
from render.bracket import BracketTexts, fits_a_photo, render_bracket, round_names
from render.podium import PodiumTexts, render_podium


def knockout_of(t: Tournament) -> Knockout:
    """The record's knockout as bot/model/knockout.py keeps one: the same seeding, its results in order."""
    fmt = GameFormat.parse(t.fmt)
    knockout = Knockout.seed(
        [Seeded(e.person.user_id, e.rating) for e in t.entrants],
        KnockoutSettings(fmt.length, final_length(fmt.length)),
    )
    for g in sorted((g for g in t.games if g.done), key=lambda g: g.seq):
        assert g.winner is not None
        knockout = knockout.record(match_id(g.round - 1, g.slot), g.winner, g.score, g.walkover)
    return knockout


def picture(t: Texts, tour: Tournament, theme: str = "light") -> tuple[bytes, bool]:
    """The finished tournament's picture (PNG bytes, as render gives them), and whether it is too tall for a
    photo (a 64-player bracket: render.bracket.fits_a_photo) and goes as a document."""
    names = {e.person.user_id: e.person.name for e in tour.entrants}
    title = tour.title or t.gettext("Tournament")
    if tour.kind == "knockout":
        knockout = knockout_of(tour)
        champion = knockout.champion
        words = BracketTexts(
            title=title,
            rounds=round_names(
                knockout.rounds,
                t.gettext("Final"),
                t.gettext("Semi-final"),
                t.gettext("Quarter-final"),
                t.gettext("Round of {players}"),
            ),
            champion="" if champion is None else t.gettext("Champion: {name}", name=names.get(champion, "?")),
            bye=t.gettext("bye"),
            walkover=t.gettext("walkover"),
        )
        drawn = bracket_picture(knockout, names, words)
        return render_bracket(drawn, theme), not fits_a_photo(drawn)
    played = arena_of(tour)
    words_podium = PodiumTexts(
        title=title,
        subtitle=t.gettext(
            "{minutes} min · {players} players · {games} games",
            minutes=tour.minutes,
            players=len(tour.entrants),
            games=len(tour.games),
        ),
        points=t.gettext("{points} pts"),
        games=t.gettext("{games} games"),
    )
    return render_podium(podium_picture(played, names, words_podium), theme), False
