"""The arena's rules (bot/model/arena.py): scoring with streaks, the standings' tie-break, pairing."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from bot.model.arena import (
    Arena,
    ArenaError,
    Candidate,
    Outcome,
    Sheet,
    pair_free,
    rank_factor,
)


def sheet_of(*outcomes: str) -> Sheet:
    sheet = Sheet()
    for at, code in enumerate(outcomes):
        sheet = sheet.add(opponent=99, outcome=Outcome(code), at=float(at), opponent_rating=1500.0)
    return sheet


def arena_of(*user_ids: int, rating: float = 1500.0) -> Arena:
    arena = Arena()
    for user_id in user_ids:
        arena = arena.join(user_id, rating, at=0.0)
    return arena


def test_a_win_scores_two_and_the_third_win_in_a_row_scores_four() -> None:
    assert [r.points for r in sheet_of("w", "w", "w", "w").results] == [2, 2, 4, 4]


def test_a_loss_ends_the_streak() -> None:
    assert [r.points for r in sheet_of("w", "w", "w", "l", "w", "w", "w").results] == [2, 2, 4, 0, 2, 2, 4]


def test_a_walkover_win_scores_two_and_neither_builds_nor_breaks_a_streak() -> None:
    assert [r.points for r in sheet_of("ww", "ww", "w", "w", "ww", "w").results] == [2, 2, 2, 2, 2, 4]


def test_never_moving_scores_nothing_and_ends_the_streak() -> None:
    assert [r.points for r in sheet_of("w", "w", "wl", "w").results] == [2, 2, 0, 2]


def test_a_result_recorded_twice_is_scored_once() -> None:
    arena = arena_of(1, 2).start("g1", 1, 2)
    once = arena.record("g1", winner=1, at=10.0)
    assert once.record("g1", winner=2, at=11.0) == once
    assert once.entry(1).sheet.points == 2 and once.free() == (1, 2)


def test_a_game_between_busy_or_paused_players_is_refused() -> None:
    arena = arena_of(1, 2, 3).start("g1", 1, 2)
    with pytest.raises(ArenaError, match="user 2 is not free"):
        arena.start("g2", 3, 2)
    with pytest.raises(ArenaError, match="user 3 is not free"):
        arena.pause(3).start("g2", 3, 4)


def test_equal_points_performance_and_games_go_to_the_earlier_to_reach_them() -> None:
    arena = arena_of(1, 2, 3, 4)
    arena = arena.start("a", 1, 2).record("a", winner=1, at=1.0)
    arena = arena.start("b", 3, 4).record("b", winner=3, at=2.0)
    assert [s.user_id for s in arena.standings()] == [1, 3, 2, 4]  # same points: the earlier to reach them


def test_a_pair_is_never_the_last_opponent_when_another_is_free() -> None:
    free = [
        Candidate(1, 1, 1500, last_opponent=2),
        Candidate(2, 2, 1500, last_opponent=1),
        Candidate(3, 3, 1500),
    ]
    assert pair_free(free) in (((1, 3),), ((2, 3),))


def test_the_last_two_free_players_meet_again() -> None:
    free = [Candidate(1, 1, 1500, last_opponent=2), Candidate(2, 2, 1500, last_opponent=1)]
    assert pair_free(free) == ((1, 2),)


def test_the_arena_survives_a_json_round_trip() -> None:
    arena = arena_of(1, 2, 3).start("g1", 1, 2).record("g1", winner=2, at=5.0).pause(3).start("g2", 1, 2)
    assert Arena.from_json(arena.to_json()) == arena


def test_a_win_on_fire_is_marked_doubled_and_the_sheet_knows_it_is_on_fire() -> None:
    sheet = sheet_of("w", "w")
    assert sheet.on_fire and not sheet_of("w").on_fire and not sheet_of("w", "w", "l").on_fire
    assert [r.doubled for r in sheet.add(7, Outcome.WIN, 9.0, 1500.0).results] == [False, False, True]


def test_a_loss_on_fire_scores_nothing() -> None:
    assert sheet_of("w", "w", "l").points == 4


def test_performance_is_the_opponents_rating_plus_or_minus_500_without_walkovers() -> None:
    sheet = Sheet().add(1, Outcome.WIN, 1.0, 1600.0).add(2, Outcome.LOSS, 2.0, 1400.0)
    sheet = sheet.add(3, Outcome.WALKOVER_WIN, 3.0, 3000.0)
    assert sheet.performance(own_rating=1700.0) == round((2100 + 900) / 2)
    assert Sheet().performance(own_rating=1650.4) == 1650


def test_equal_points_go_to_the_better_performance() -> None:
    arena = arena_of(1, 2, 3)
    arena = arena.join(4, 1900.0, at=0.0)
    arena = arena.start("a", 1, 2).record("a", winner=1, at=1.0)  # 1 beat a 1500
    arena = arena.start("b", 3, 4).record("b", winner=3, at=2.0)  # 3 beat a 1900
    assert [s.user_id for s in arena.standings()][:2] == [3, 1]


def test_equal_points_and_performance_go_to_fewer_games() -> None:
    arena = arena_of(1, 2, 3).join(4, 2000.0, at=0.0)
    arena = arena.start("b1", 2, 4).record("b1", winner=2, at=1.0)  # 2: 2500 and 1500, 2 points in 2 games
    arena = arena.start("b2", 2, 4).record("b2", winner=4, at=2.0)
    arena = arena.start("a", 1, 3).record("a", winner=1, at=5.0)  # 1: 2000, 2 points in 1 game, later
    standings = {s.user_id: s for s in arena.standings()}
    assert (standings[1].points, standings[1].performance) == (standings[2].points, standings[2].performance)
    assert (standings[1].rank, standings[2].rank) == (1, 2)


def test_the_free_players_are_paired_with_their_neighbours_in_the_standings() -> None:
    free = [Candidate(user_id=10 + rank, rank=rank, rating=1500.0) for rank in range(1, 9)]
    assert pair_free(free) == ((11, 12), (13, 14), (15, 16), (17, 18))


def test_an_odd_count_leaves_out_only_the_player_free_last() -> None:
    free = [Candidate(rank, rank, 1500.0, free_since=10.0) for rank in range(1, 6)]
    free[1] = Candidate(2, 2, 1500.0, free_since=30.0)
    assert pair_free(free) == ((1, 3), (4, 5))


def test_the_player_free_last_plays_when_leaving_them_out_forces_a_rematch() -> None:
    free = [
        Candidate(1, 1, 1500, last_opponent=2),
        Candidate(2, 2, 1500, last_opponent=1),
        Candidate(3, 3, 1500, free_since=9),
    ]
    assert pair_free(free) == ((2, 3),)  # 3 plays, with the closer of the two


def test_one_free_player_or_none_gives_no_pair() -> None:
    assert pair_free([]) == () and pair_free([Candidate(1, 1, 1500.0)]) == ()


def test_a_player_twice_among_the_free_is_an_error() -> None:
    with pytest.raises(ArenaError, match="twice"):
        pair_free([Candidate(1, 1, 1500.0), Candidate(1, 2, 1500.0)])


def test_the_pairing_is_the_same_whatever_the_order_of_the_free_players() -> None:
    rng = random.Random(5)
    free = [
        Candidate(u, rank, rng.choice([1400.0, 1500.0]), rng.randrange(30))
        for rank, u in enumerate(range(30), 1)
    ]
    pairs = pair_free(free)
    for _ in range(5):
        rng.shuffle(free)
        assert pair_free(free) == pairs


def perfect_matchings(items: Sequence[int]) -> Iterator[list[tuple[int, int]]]:
    """Every way to pair `items` leaving out at most one (only when they are odd)."""
    if len(items) < 2:
        yield []
        return
    if len(items) % 2:
        for k in range(len(items)):
            yield from perfect_matchings([*items[:k], *items[k + 1 :]])
        return
    first, rest = items[0], items[1:]
    for k, other in enumerate(rest):
        for tail in perfect_matchings([*rest[:k], *rest[k + 1 :]]):
            yield [(first, other), *tail]


def objective(free: Sequence[Candidate], pairs: Sequence[tuple[int, int]]) -> tuple[int, int, int]:
    """The aims, in order, as a value to minimise: rematches, the newest left out, distance."""
    by_id = {c.user_id: c for c in free}
    last_rank = max(c.rank for c in free)
    paired = {u for pair in pairs for u in pair}
    newest = max(free, key=lambda c: (c.free_since, c.user_id)).user_id
    rematches = sum(by_id[a].last_opponent == b or by_id[b].last_opponent == a for a, b in pairs)
    cost = 0
    for a, b in pairs:
        ca, cb = by_id[a], by_id[b]
        cost += abs(ca.rank - cb.rank) * rank_factor(min(ca.rank, cb.rank), last_rank) + round(
            abs(ca.rating - cb.rating)
        )
    return rematches, int(len(free) % 2 == 1 and newest in paired), cost


@pytest.mark.parametrize("seed", range(60))
def test_the_pairing_is_as_good_as_the_best_of_every_possible_pairing(seed: int) -> None:
    rng = random.Random(seed)
    count = rng.randint(2, 9)
    ids = rng.sample(range(100, 200), count)
    free = [
        Candidate(
            u,
            rank,
            rng.choice([1450.0, 1500.0, 1700.0]),
            rng.choice([*ids, None]),
            rng.choice([1.0, 2.0, 3.0]),
        )
        for rank, u in enumerate(ids, start=1)
    ]
    pairs = pair_free(free)
    assert len(pairs) == count // 2
    best = min(objective(free, m) for m in perfect_matchings(ids))
    assert objective(free, pairs) == best


def test_two_hundred_free_players_are_all_paired_once_with_no_rematch() -> None:
    rng = random.Random(200)
    ids = rng.sample(range(1, 10_000), 200)
    # each player's last opponent is their neighbour in the standings: the obvious pairing is forbidden
    free = [
        Candidate(
            u, rank, rng.uniform(1200.0, 1900.0), ids[rank] if rank < 200 else ids[rank - 2], float(rank % 7)
        )
        for rank, u in enumerate(ids, start=1)
    ]
    pairs = pair_free(free)
    paired = [u for pair in pairs for u in pair]
    assert len(pairs) == 100 and sorted(paired) == sorted(ids)
    assert objective(free, pairs)[0] == 0
    ranks = {c.user_id: c.rank for c in free}
    assert max(abs(ranks[a] - ranks[b]) for a, b in pairs) <= 3


def test_an_odd_two_hundred_and_one_leave_out_the_newest() -> None:
    free = [Candidate(u, u, 1500.0, free_since=0.0 if u != 77 else 5.0) for u in range(1, 202)]
    paired = {u for pair in pair_free(free) for u in pair}
    assert set(range(1, 202)) - paired == {77}


def test_the_arena_pairs_its_free_players_and_not_the_paused_or_playing() -> None:
    arena = arena_of(1, 2, 3, 4, 5, 6).start("g", 1, 2).pause(6)
    assert arena.free() == (3, 4, 5)
    assert {u for pair in arena.pairings() for u in pair} <= {3, 4, 5} and len(arena.pairings()) == 1
    assert 6 in arena.resume(6, at=9.0).free()


def test_a_game_the_arena_does_not_know_or_a_stranger_winning_it_is_an_error() -> None:
    arena = arena_of(1, 2, 3).start("g", 1, 2)
    with pytest.raises(ArenaError, match="game h is not in progress"):
        arena.record("h", winner=1, at=1.0)
    with pytest.raises(ArenaError, match="user 3 did not play it"):
        arena.record("g", winner=3, at=1.0)
    with pytest.raises(ArenaError, match="user 9 is not in this arena"):
        arena.pause(9)


def test_a_walkover_in_the_arena_scores_the_player_who_was_there() -> None:
    arena = arena_of(1, 2).start("g", 1, 2).record("g", winner=2, at=3.0, walkover=True)
    assert [r.outcome for r in arena.entry(2).sheet.results] == [Outcome.WALKOVER_WIN]
    assert [r.outcome for r in arena.entry(1).sheet.results] == [Outcome.WALKOVER_LOSS]
    assert arena.entry(1).free_since == 3.0


def test_the_standings_round_trip_through_json_with_every_kind_of_result() -> None:
    arena = arena_of(1, 2, 3, 4)
    for number, (a, b, winner, walkover) in enumerate(
        [(1, 2, 1, False), (3, 4, 4, True), (1, 4, 1, False), (2, 3, 3, False)]
    ):
        arena = arena.start(f"g{number}", a, b).record(
            f"g{number}", winner, at=float(number), walkover=walkover
        )
    arena = arena.start("g9", 1, 3).pause(2)
    again = Arena.from_json(json.loads(json.dumps(arena.to_json())))
    assert again == arena and again.standings() == arena.standings()


def test_the_pairing_bench_prints_its_figures() -> None:
    script = Path(__file__).resolve().parents[2] / "bench" / "arena_pairing.py"
    run = subprocess.run(
        [sys.executable, str(script), "--players", "20", "--rounds", "2", "--games", "50"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    figures = json.loads(run.stdout.splitlines()[-1])
    assert figures["players"] == 20 and figures["rematches"] == 0 and figures["p50_s"] >= 0


@pytest.mark.parametrize("seed", range(8))
def test_an_arena_played_at_random_keeps_its_books(seed: int) -> None:
    """Games paired by the arena, ended in any order, players pausing and coming back: every result is on
    both sheets once, nobody plays two games at once, the standings rank everyone once."""
    rng = random.Random(seed)
    arena = arena_of(*range(1, rng.randint(3, 30)), rating=1500.0)
    now, number = 0.0, 0
    for _ in range(60):
        now += 1.0
        for a, b in arena.pairings():
            arena = arena.start(f"g{number}", a, b)
            number += 1
        for game in rng.sample(arena.playing, rng.randint(0, len(arena.playing))):
            arena = arena.record(game.game_id, rng.choice(game.players), at=now, walkover=rng.random() < 0.1)
        if rng.random() < 0.3:
            user_id = rng.choice(arena.entries).user_id
            arena = arena.pause(user_id) if rng.random() < 0.5 else arena.resume(user_id, at=now)
        busy = [u for game in arena.playing for u in game.players]
        assert len(busy) == len(set(busy)) and not set(busy) & set(arena.free())
    results = sum(len(e.sheet.results) for e in arena.entries)
    assert results == 2 * len(arena.scored) and len(set(arena.scored)) == len(arena.scored)
    assert [s.rank for s in arena.standings()] == list(range(1, len(arena.entries) + 1))
    points = sorted((s.points for s in arena.standings()), reverse=True)
    assert [s.points for s in arena.standings()] == points
    assert Arena.from_json(json.loads(json.dumps(arena.to_json()))) == arena
