"""A finished tournament's picture from its record: the bracket of a knockout (a 64-player one too tall for a
photo: a document), the podium of an arena."""

from __future__ import annotations

import itertools

from bot.i18n import texts
from bot.model.table import Person
from bot.model.tournament import Entrant, Tournament
from bot.telegram.tourney_pictures import knockout_of, picture


def played(kind: str, players: int) -> Tournament:
    t = Tournament("t", -5, kind, "short-blitz", Person(1, "P1"), "en", 0.0, 0.0, minutes=5, title="Club")
    for uid in range(1, players + 1):
        t = t.join(Entrant(Person(uid, f"P{uid}\u202e"), 1500.0 + uid))
    ids = itertools.count(1)
    t = t.start(0.0, lambda: f"g{next(ids)}")
    rounds = 0
    while t.stage == "running" and rounds < 200:
        rounds += 1
        for g in t.running_games:
            t = t.record(g.game, g.players[0], rounds == 1 and g.slot == 0)  # one walkover
        t = t.step(0.0 if kind == "knockout" or rounds < 3 else 1e9, lambda: f"g{next(ids)}")
    assert t.stage == "over"
    return t


def test_a_knockouts_record_replays_as_the_pure_knockout_with_the_same_champion() -> None:
    t = played("knockout", 13)
    knockout = knockout_of(t)
    assert knockout.finished and knockout.champion == t.champion()
    image, tall = picture(texts("ru"), t)
    assert image.startswith(b"\x89PNG") and not tall


def test_a_64_player_bracket_goes_as_a_document_and_an_arena_as_a_podium() -> None:
    image, tall = picture(texts("en"), played("knockout", 64))
    assert image.startswith(b"\x89PNG") and tall
    image, tall = picture(texts("fa"), played("arena", 7))
    assert image.startswith(b"\x89PNG") and not tall
