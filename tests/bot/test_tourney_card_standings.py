"""The group card's 📲 Standings (bot/telegram/tourney_cards.py, keyboards.WebAppLinks.standings): a Direct
Link whose start parameter names the tournament, last on a live card, only where the Mini App has a name."""

from __future__ import annotations

from bot.i18n import texts
from bot.model.table import Person
from bot.model.tournament import Tournament
from bot.telegram.keyboards import WebAppLinks
from bot.telegram.tourney_cards import card_markup
from bot.web.tourney_view import start_param

LINKS = WebAppLinks("https://nardy.example/app/", "nardybot", "play")


def tour(stage: str = "signup") -> Tournament:
    return Tournament(
        "Tq1", -100, "arena", "short-blitz", Person(1, "Ann"), "en", 1.0, 2.0, minutes=5, stage=stage
    )


def test_a_live_card_ends_with_the_standings_link_naming_its_tournament() -> None:
    t = texts("en")
    for stage in ("signup", "running"):
        markup = card_markup(t, tour(stage), "nardybot", LINKS)
        assert markup is not None
        last = markup.inline_keyboard[-1]
        assert [b.text for b in last] == ["📲 Standings"]
        assert last[0].url == f"https://t.me/nardybot/play?startapp={start_param('Tq1')}"
        assert last[0].web_app is None  # groups refuse web_app buttons


def test_no_standings_link_without_the_mini_app_or_its_name_nor_on_a_finished_card() -> None:
    t = texts("en")
    plain = card_markup(t, tour(), "nardybot")
    nameless = card_markup(t, tour(), "nardybot", WebAppLinks("https://nardy.example/app/", "nardybot"))
    assert plain is not None and nameless is not None
    assert plain.inline_keyboard == nameless.inline_keyboard
    assert all("Standings" not in b.text for row in plain.inline_keyboard for b in row)
    assert card_markup(t, tour("over"), "nardybot", LINKS) is None
