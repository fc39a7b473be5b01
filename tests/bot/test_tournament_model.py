"""The tournament record, pure: sign-up, the arena's scoring with streaks and its pairing, the knockout's seeded
bracket with byes, results applied once, the walkover's pause, the record's JSON."""

from __future__ import annotations

import itertools

import pytest

from bot.model.flow import Refused
from bot.model.knockout import bracket_order
from bot.model.table import Person
from bot.model.tournament import Entrant, Tournament, arena_pairs, format_of, seeded_bracket

NOW = 1_000_000.0


def new_ids() -> object:
    counter = itertools.count(1)
    return lambda: f"g{next(counter)}"


def entrants(n: int, ratings: list[float] | None = None) -> tuple[Entrant, ...]:
    return tuple(Entrant(Person(i, f"P{i}"), (ratings or [1500.0] * n)[i - 1]) for i in range(1, n + 1))


def arena(n: int, minutes: int = 5) -> Tournament:
    t = Tournament("t", -5, "arena", "short-blitz", Person(1, "P1"), "en", NOW, NOW + 60, minutes=minutes)
    for e in entrants(n):
        t = t.join(e)
    return t


def knockout(n: int, ratings: list[float] | None = None) -> Tournament:
    t = Tournament("k", -5, "knockout", "short-blitz", Person(1, "P1"), "en", NOW, NOW + 60)
    for e in entrants(n, ratings):
        t = t.join(e)
    return t


def test_sign_up_refuses_twice_and_after_the_start_and_the_start_needs_enough_players() -> None:
    t = arena(2)
    with pytest.raises(Refused, match="already"):
        t.join(Entrant(Person(1, "P1"), 1500.0))
    with pytest.raises(Refused, match="Not enough players"):
        t.start(NOW, new_ids())  # type: ignore[arg-type]
    t = t.join(Entrant(Person(3, "P3"), 1500.0)).start(NOW, new_ids())  # type: ignore[arg-type]
    assert t.stage == "running" and t.ends_at == NOW + 300
    with pytest.raises(Refused, match="no longer open"):
        t.join(Entrant(Person(9, "P9"), 1500.0))
    with pytest.raises(Refused, match="no longer open"):
        t.leave(1)


def test_an_arena_pairs_the_free_players_and_a_result_counts_once() -> None:
    fresh = new_ids()
    t = arena(5).start(NOW, fresh)  # type: ignore[arg-type]
    assert [g.players for g in t.games] == [(1, 2), (3, 4)]  # 5 waits
    once = t.record("g1", 2, False)
    assert once.record("g1", 2, False) is once  # the same result again changes nothing
    assert once.record("g1", 1, False) is once  # nor does another one
    assert once.record("nope", 1, False) is once
    stepped = once.step(NOW + 10, fresh)  # type: ignore[arg-type]
    # three free: the two who became free last cannot play each other again, one of them waits (arena.py);
    # white goes to the one who had it less often
    assert [g.players for g in stepped.games][2:] == [(5, 1)]
    assert not arena_pairs(stepped)


def test_a_win_after_two_in_a_row_is_worth_four_and_a_walkover_pauses_the_loser() -> None:
    t = arena(4)
    t = Tournament.from_json(t.to_json()).start(NOW, new_ids())  # type: ignore[arg-type]
    counter = itertools.count(100)
    for _ in range(3):  # player 1 wins three in a row
        game = next(g for g in t.running_games if 1 in g.players)
        t = t.record(game.game, 1, False).step(NOW, lambda: f"g{next(counter)}")
    top = t.standings()[0]
    assert (top.user_id, top.points, top.wins, top.on_fire) == (1, 2 + 2 + 4, 3, True)
    game = next(g for g in t.running_games if 1 not in g.players)
    loser = game.players[1]
    t = t.record(game.game, game.players[0], True)
    assert t.entrant(loser) is not None and t.entrant(loser).paused  # type: ignore[union-attr]
    assert all(loser not in pair for pair in arena_pairs(t))
    back = t.join(Entrant(Person(loser, "x"), 1500.0))
    assert not back.entrant(loser).paused  # type: ignore[union-attr]


def test_an_arena_ends_on_time_only_once_its_last_games_are_over() -> None:
    t = arena(4).start(NOW, new_ids())  # type: ignore[arg-type]
    late = t.step(NOW + 301, new_ids())  # type: ignore[arg-type]
    assert late.stage == "running" and len(late.games) == 2  # no new pairing after the time
    late = late.record("g1", 1, False).step(NOW + 302, new_ids())  # type: ignore[arg-type]
    assert late.stage == "running" and len(late.games) == 2
    late = late.record("g2", 4, False).step(NOW + 303, new_ids())  # type: ignore[arg-type]
    assert late.stage == "over" and late.champion() in (1, 4)


def test_the_bracket_puts_the_top_seeds_apart_and_gives_them_the_byes() -> None:
    assert bracket_order(8) == (1, 8, 4, 5, 2, 7, 3, 6)
    five = entrants(5, [1500.0, 1700.0, 1600.0, 1400.0, 1550.0])
    assert seeded_bracket(five) == (2, 0, 1, 4, 3, 0, 5, 0)  # seeds by rating: P2, P3, P5, P1, P4


def test_a_knockout_plays_its_rounds_as_soon_as_both_players_are_known() -> None:
    t = knockout(5).start(NOW, new_ids())  # type: ignore[arg-type]
    assert [(g.round, g.players) for g in t.games] == [(1, (4, 5)), (2, (2, 3))]
    t = t.record("g2", 3, False).step(NOW, new_ids())  # type: ignore[arg-type]
    assert len(t.games) == 2  # the final waits for the other semi-final
    t = t.record("g1", 5, True).step(NOW, lambda: "g3")
    assert [(g.round, g.players) for g in t.games][2] == (2, (1, 5))
    t = t.record("g3", 1, False).step(NOW, lambda: "g4")
    assert [(g.round, g.players) for g in t.games][3] == (3, (1, 3))
    assert [format_of(t, g) for g in t.games] == ["short-blitz"] * 3 + ["short.3-blitz"]  # a longer final
    t = t.record("g4", 3, False).step(NOW, lambda: "never")
    assert t.stage == "over" and t.champion() == 3
    assert t.podium() == [[3], [1], [2, 5]]
    assert Tournament.from_json(t.to_json()) == t
