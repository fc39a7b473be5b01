"""Tournaments through the fake Bot API, with the bot's clock injected (no wall-clock asserts): a 6-player arena
with blitz clocks where two players never move (walked over, paused, the arena ends on time and its running
games count), a 5-player knockout with byes and a walkover, forged card presses, the deep link."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from bot.embedded_redis import EmbeddedRedis
from bot.model.flow import ScriptedDice, engine_computer
from bot.telegram import callbacks
from testkit.fake_clock import FakeClock
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import has_turn, play_turn, reply_to, resign, wait_board
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import CallbackAnswer, StoredMessage

GROUP = -1001234
START = 1_800_000_000.0
FLAG = 40.0  # seconds past a blitz single game's flag (30 s reserve + 6 s delay)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def timed_bot(tg: FakeTelegram, redis_url: str, dice: ScriptedDice, clock: FakeClock) -> Iterator[BotRunner]:
    runner = BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=3), clock=clock, clocks_every=0.1)
    runner.start()
    tg.settlers.append(runner.settle)
    yield runner
    tg.settlers.remove(runner.settle)
    runner.stop()


def _client(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url, decode_responses=True)


def _tourney(redis_url: str) -> dict[str, Any]:
    r = _client(redis_url)
    try:
        key = next(k for k in r.scan_iter(match="nardy:tourney:*") if k.count(":") == 2)
        found: dict[str, Any] = json.loads(str(r.get(key)))
        return found
    finally:
        r.close()


def _wait_tourney(
    tg: FakeTelegram, redis_url: str, test: Any, what: str, timeout: float = 20.0
) -> dict[str, Any]:
    try:
        found: dict[str, Any] = tg.wait_for(
            lambda: (lambda t: t if test(t) else None)(_tourney(redis_url)), timeout, what
        )
    except TimeoutError as err:
        raise TimeoutError(f"{err}; the tournament: {json.dumps(_tourney(redis_url))}") from None
    return found


def _create(tg: FakeTelegram, creator: SimUser, *choices: str) -> StoredMessage:
    """/tournament in the group and the menu's choices: the message becomes the card."""
    menu = reply_to(creator, "/tournament", GROUP)
    assert "Which kind?" in menu.body, menu.body
    for choice in choices:
        answer = creator.press(menu, choice)
        assert not answer.show_alert, answer.text
    card = tg.message(GROUP, menu.message_id)
    assert "Players (0):" in card.body, card.body
    return card


def _join(tg: FakeTelegram, card: StoredMessage, users: list[SimUser]) -> None:
    for user in users:
        answer = user.press(card, "Join")
        assert not answer.show_alert, answer.text
    body = tg.message(GROUP, card.message_id).body
    assert f"Players ({len(users)}):" in body, body


def _move_once_if_on_turn(tg: FakeTelegram, user: SimUser) -> None:
    """The player plays a turn on their newest board if it waits for them, so their opponent's clock runs."""
    tg.settle()
    msg = wait_board(tg, user.id)
    if has_turn(msg):
        play_turn(user, msg, random.Random(7))
    tg.settle()


def _started(tg: FakeTelegram, redis_url: str, game_id: str) -> None:
    """Wait until the game `game_id` is created and its boards are out."""
    tg.wait_for(lambda: _all_started(redis_url, {"games": [{"g": game_id}]}), 10.0, f"game {game_id} started")
    tg.settle()


def resign_match(user: SimUser) -> None:
    """/resign in a match, the whole match."""
    sent = user.say("/resign")
    question = user.wait_message(  # the question itself: a board may land after it on a loaded machine
        lambda m: m.message_id > sent.message_id and any("The whole match" in b["text"] for b in m.buttons),
        timeout=30.0,
    )
    answer = user.press(question, "The whole match")
    assert not answer.show_alert, answer.text


def _all_started(redis_url: str, t: dict[str, Any]) -> bool:
    r = _client(redis_url)
    try:
        return all(r.exists(f"nardy:game:{g['g']}") for g in t["games"])
    finally:
        r.close()


def _game_ids(t: dict[str, Any], running: bool = True) -> dict[frozenset[int], str]:
    return {frozenset(g["p"]): g["g"] for g in t["games"] if ("w" not in g) == running}


def test_an_arena_of_six_walks_over_two_players_who_never_move_and_ends_on_time(
    tg: FakeTelegram, timed_bot: BotRunner, clock: FakeClock, redis_url: str
) -> None:
    tg.add_chat(GROUP, "supergroup", "Nardy club")
    users = [
        SimUser(tg, i, name) for i, name in enumerate(("Ann", "Pat", "Cid", "Dan", "Eve", "Fay"), start=1)
    ]
    ann, _pat, cid, _dan, _eve, fay = users  # Pat and Dan never move
    card = _create(tg, ann, "Arena", "Short nardy", "Single games", "blitz", "5 min", "Now")
    assert "Arena" in card.body and "blitz clock" in card.body
    _join(tg, card, users)
    for user in users:  # each was told, privately, where the games will come
        user.wait_message(lambda m: "signed up" in m.body)
    assert not ann.press(card, "Start").show_alert
    t = _wait_tourney(tg, redis_url, lambda t: len(t["games"]) == 3, "three games paired")
    assert t["stage"] == "running"
    pairs = _game_ids(t)
    assert set(pairs) == {frozenset({1, 2}), frozenset({3, 4}), frozenset({5, 6})}
    for user in users:
        wait_board(tg, user.id)
    tg.settle()
    resign(fay)  # Eve beats Fay (the two are paired again: nobody else is free)
    _move_once_if_on_turn(tg, ann)
    _move_once_if_on_turn(tg, cid)
    clock.advance(FLAG)  # Pat's and Dan's flags fall: walkovers
    first = [pairs[frozenset({1, 2})], pairs[frozenset({3, 4})]]

    def walked_over(t: dict[str, Any]) -> bool:
        done = {g["g"] for g in t["games"] if "w" in g}
        return all(g in done for g in first) and any(set(g["p"]) & {1, 3} for g in t["games"][3:])

    t = _wait_tourney(tg, redis_url, walked_over, "Pat and Dan walked over, Ann or Cid paired again")
    done = {g["g"]: g for g in t["games"] if "w" in g}
    assert done[first[0]]["w"] == 1 and done[first[0]].get("wo") == 1
    assert done[first[1]]["w"] == 3 and done[first[1]].get("wo") == 1
    assert done[pairs[frozenset({5, 6})]]["w"] == 5 and "wo" not in done[pairs[frozenset({5, 6})]]
    paused = {e["p"]["id"] for e in t["entrants"] if e.get("x")}
    assert {2, 4} <= paused  # walked over: not paired again
    clock.advance(300.0)  # the arena's time is up: the games still running end on time and count
    _wait_tourney(
        tg, redis_url, lambda t: _all_started(redis_url, t), "every game paired before the end started"
    )
    clock.advance(FLAG)  # a game started as the clock jumped has its flag fall too
    t = _wait_tourney(tg, redis_url, lambda t: t["stage"] == "over", "the arena over")
    assert all("w" in g for g in t["games"])
    assert all(not ({2, 4} & set(g["p"])) for g in t["games"][3:])
    final = ann.wait_message(lambda m: "The tournament is over!" in m.body and m.photo is not None, GROUP)
    assert "🥇" in final.body  # the podium's picture, the places as its caption
    tg.settle()
    overs = [
        m
        for m in tg.bot_messages(GROUP)
        if "The tournament is over!" in m.body and m.message_id != card.message_id
    ]
    assert len(overs) == 1  # one final message
    r = _client(redis_url)
    try:
        assert r.llen(f"nardy:tourney:{t['id']}:inbox") == 0  # every result applied
        assert r.get(f"nardy:chat:{GROUP}:tourney") is None  # the group may start another
        assert r.get(f"nardy:chat:{GROUP}:tourney:last") == t["id"]
        assert not r.hget("nardy:user:2:stats", "short:games")  # a walkover is not rated nor counted
        assert int(r.hget("nardy:user:5:stats", "short:games") or 0) >= 1  # Eve's win over Fay is rated
    finally:
        r.close()
    last = reply_to(ann, "/tournament last", GROUP)
    assert "Arena" in last.body and "🥇" in last.body


def test_a_knockout_of_five_gives_byes_to_the_top_seeds_and_a_walkover(
    tg: FakeTelegram, timed_bot: BotRunner, clock: FakeClock, redis_url: str
) -> None:
    tg.add_chat(GROUP, "supergroup", "Nardy club")
    users = [SimUser(tg, i, name) for i, name in enumerate(("Ann", "Ben", "Cid", "Dan", "Eve"), start=1)]
    ann, ben, cid, dan, eve = users  # Eve never moves
    card = _create(tg, ann, "Knockout", "Short nardy", "Single games", "blitz", "Now")
    _join(tg, card, users)
    assert not ann.press(card, "Start").show_alert
    # seeds 1-5 in sign-up order (equal ratings): byes to 1, 2, 3; round 1 is 4 v 5; 2 v 3 is ready at once
    t = _wait_tourney(tg, redis_url, lambda t: len(t["games"]) == 2, "the first games")
    assert t["bracket"] == [1, 0, 4, 5, 2, 0, 3, 0]
    rounds = {frozenset(g["p"]): (g["r"], g["g"]) for g in t["games"]}
    assert rounds[frozenset({4, 5})][0] == 1 and rounds[frozenset({2, 3})][0] == 2
    for user in (ben, cid, dan, eve):
        wait_board(tg, user.id)
    tg.settle()
    board = wait_board(tg, dan.id)
    assert "Tournament in Nardy club, round 1" in (board.caption or "")
    links = [b["url"] for b in board.buttons if b.get("url")]
    assert links == [f"https://t.me/c/1234/{card.message_id}"]  # back to the group's card
    resign(cid)  # Ben beats Cid
    _move_once_if_on_turn(tg, dan)
    clock.advance(FLAG)  # Eve never moved: Dan wins by walkover, then meets Ann
    t = _wait_tourney(tg, redis_url, lambda t: len(t["games"]) == 3, "the semi-final 1 v 4")
    semi = next(g for g in t["games"] if set(g["p"]) == {1, 4})
    assert semi["r"] == 2
    _started(tg, redis_url, semi["g"])
    resign(dan)  # Ann beats Dan
    t = _wait_tourney(tg, redis_url, lambda t: len(t["games"]) == 4, "the final")
    final = t["games"][-1]
    assert set(final["p"]) == {1, 2} and final["r"] == 3
    _started(tg, redis_url, final["g"])
    assert "match to 3" in (wait_board(tg, ben.id).caption or "")
    assert "The final is a match to 3." in tg.message(GROUP, card.message_id).body
    resign_match(ben)  # Ann wins the final (a match to 3: a knockout's final is one step longer)
    tg.settle()
    finished = wait_board(tg, ben.id)
    r = _client(redis_url)
    version = json.loads(str(r.get(f"nardy:game:{final['g']}")))["version"]
    r.close()
    forged = ben.press_data(finished, callbacks.rematch(final["g"], version))  # the tournament pairs, not he
    assert isinstance(forged, CallbackAnswer) and forged.show_alert and "no rematch" in (forged.text or "")
    t = _wait_tourney(tg, redis_url, lambda t: t["stage"] == "over", "the knockout over")
    message = ann.wait_message(lambda m: "The tournament is over!" in m.body and m.photo is not None, GROUP)
    assert "🥇 Ann" in message.body and "🥈 Ben" in message.body and "🥉" in message.body  # under the bracket
    body = tg.message(GROUP, card.message_id).body
    assert "Final: Ann – Ben → Ann" in body or "Final: Ben – Ann → Ann" in body, body
    assert "(walkover)" in body
    r = _client(redis_url)
    try:  # each player's statistics count the tournament once, the champion's a win
        assert [r.hget(f"nardy:user:{u.id}:stats", "tourneys") for u in users] == ["1"] * 5
        assert r.hget("nardy:user:1:stats", "tourney_wins") == "1"
        assert r.hget("nardy:user:2:stats", "tourney_wins") is None
    finally:
        r.close()
    stats = reply_to(ann, "/stats")
    assert "🏆 Tournaments: 1 played, 1 won" in stats.body, stats.body


def test_forged_and_misplaced_card_presses_are_refused(
    tg: FakeTelegram, timed_bot: BotRunner, redis_url: str
) -> None:
    tg.add_chat(GROUP, "supergroup", "Nardy club")
    ann, bob = SimUser(tg, 1, "Ann"), SimUser(tg, 2, "Bob")
    card = _create(tg, ann, "Arena", "Long", "Single games", "live", "15 min", "In 5 min")
    tid = _tourney(redis_url)["id"]
    start = bob.press_data(card, callbacks.tourney_card("ts", tid))
    assert isinstance(start, CallbackAnswer) and start.show_alert and "creator" in (start.text or "")
    cancel = bob.press_data(card, callbacks.tourney_card("tx", tid))
    assert isinstance(cancel, CallbackAnswer) and cancel.show_alert
    other = reply_to(bob, "/help", GROUP)  # a message with another home (none)
    forged = bob.press_data(other, callbacks.tourney_card("tj", tid))
    assert isinstance(forged, CallbackAnswer) and forged.show_alert
    garbage = bob.press_data(card, "tj:bad id!")
    assert isinstance(garbage, CallbackAnswer) and garbage.show_alert
    assert _tourney(redis_url)["entrants"] == []
    start = ann.press_data(card, callbacks.tourney_card("ts", tid))  # too few players
    assert (
        isinstance(start, CallbackAnswer) and start.show_alert and "Not enough players" in (start.text or "")
    )
    again = reply_to(bob, "/tournament", GROUP)  # one tournament per group: its card again
    assert "Players (0):" in again.body
    answer = ann.press(card, "Cancel")
    assert not answer.show_alert
    assert _tourney(redis_url)["stage"] == "cancelled"


def test_the_deep_link_signs_up_from_the_private_chat(
    tg: FakeTelegram, timed_bot: BotRunner, redis_url: str
) -> None:
    tg.add_chat(GROUP, "supergroup", "Nardy club")
    ann, bob = SimUser(tg, 1, "Ann"), SimUser(tg, 2, "Bob")
    card = _create(tg, ann, "Knockout", "Short nardy", "Matches to 3", "live", "In 15 min")
    link = next(b["url"] for b in tg.message(GROUP, card.message_id).buttons if b.get("url"))
    payload = link.rsplit("start=", 1)[1]
    assert payload.startswith("t_")
    told = reply_to(bob, f"/start {payload}")
    assert "signed up" in told.body
    t = _tourney(redis_url)
    r = _client(redis_url)
    try:  # while it signs up, the players are a hash of their own (sign_up.lua)
        assert json.loads(str(r.hget(f"nardy:tourney:{t['id']}:players", "2")))["p"]["name"] == "Bob"
    finally:
        r.close()
    tg.wait_for(
        lambda: "Bob (1500)" in tg.message_now(GROUP, card.message_id).body, 10.0, "the card names Bob"
    )


def test_a_player_who_blocked_the_bot_is_walked_over_and_a_name_of_control_characters_is_cleaned(
    tg: FakeTelegram, timed_bot: BotRunner, clock: FakeClock, redis_url: str
) -> None:
    tg.add_chat(GROUP, "supergroup", "Nardy club")
    ann, ben, cid, dan = (
        SimUser(tg, 1, "Ann"),
        SimUser(tg, 2, "\u202eBen\x07\u200b\n"),
        SimUser(tg, 3, "Cid"),
        SimUser(tg, 4, "Dan"),
    )
    card = _create(tg, ann, "Knockout", "Short nardy", "Single games", "blitz", "Now")
    _join(tg, card, [ann, ben, cid, dan])
    body = tg.message(GROUP, card.message_id).body
    assert "• Ben (1500)" in body and "\u202e" not in body and "\x07" not in body, body
    tg.set_blocked(dan.id)  # Dan blocks the bot before his first board
    assert not ann.press(card, "Start").show_alert
    t = _wait_tourney(tg, redis_url, lambda t: len(t["games"]) == 2, "the semi-finals")
    assert {frozenset(g["p"]) for g in t["games"]} == {frozenset({1, 4}), frozenset({2, 3})}
    for g in t["games"]:
        _started(tg, redis_url, g["g"])
    resign(cid)  # Ben beats Cid
    _move_once_if_on_turn(tg, ann)
    clock.advance(FLAG)  # Dan never sees his board: his flag falls, a walkover
    t = _wait_tourney(tg, redis_url, lambda t: len(t["games"]) == 3, "the final")
    semi = next(g for g in t["games"] if set(g["p"]) == {1, 4})
    assert semi["w"] == 1 and semi.get("wo") == 1
    _started(tg, redis_url, t["games"][2]["g"])
    resign_match(ben)
    _wait_tourney(tg, redis_url, lambda t: t["stage"] == "over", "the knockout over")
    message = ann.wait_message(lambda m: "The tournament is over!" in m.body, GROUP)
    assert "🥇 Ann" in message.body and "🥈 Ben" in message.body
    assert timed_bot.errors.messages() == []  # a blocked player is no error, and nothing loops on him


def test_a_group_may_let_only_its_administrators_create_and_an_administrator_may_cancel(
    tg: FakeTelegram, timed_bot: BotRunner, redis_url: str
) -> None:
    tg.add_chat(GROUP, "supergroup", "Nardy club")
    tg.set_admins(GROUP, 9)
    ann, bob, boss = SimUser(tg, 1, "Ann"), SimUser(tg, 2, "Bob"), SimUser(tg, 9, "Boss")
    refused = reply_to(ann, "/tournament admins", GROUP)
    assert "Only an administrator" in refused.body
    told = reply_to(boss, "/tournament admins", GROUP)
    assert "only the group's administrators" in told.body
    refused = reply_to(ann, "/tournament", GROUP)
    assert "Only the group's administrators can create" in refused.body
    told = reply_to(boss, "/tournament anyone", GROUP)
    assert "anyone in the group" in told.body
    card = _create(tg, ann, "Arena", "Short nardy", "Single games", "live", "5 min", "In 5 min")
    tid = _tourney(redis_url)["id"]
    forged = bob.press_data(card, callbacks.tourney_card("tx", tid))
    assert isinstance(forged, CallbackAnswer) and forged.show_alert and "administrator" in (forged.text or "")
    answer = boss.press(card, "Cancel")  # the group's administrator may
    assert not answer.show_alert, answer.text
    assert _tourney(redis_url)["stage"] == "cancelled"
    assert "cancelled" in tg.message(GROUP, card.message_id).body


def test_a_knockout_goes_on_across_a_bot_restart_and_a_redis_crash_mid_round(
    tg: FakeTelegram, timed_bot: BotRunner, clock: FakeClock, redis_url: str, redis_server: EmbeddedRedis
) -> None:
    tg.add_chat(GROUP, "supergroup", "Nardy club")
    ann, ben, cid, dan = (SimUser(tg, i, n) for i, n in enumerate(("Ann", "Ben", "Cid", "Dan"), start=1))
    card = _create(tg, ann, "Knockout", "Short nardy", "Single games", "blitz", "Now")
    _join(tg, card, [ann, ben, cid, dan])
    assert not ann.press(card, "Start").show_alert
    t = _wait_tourney(tg, redis_url, lambda t: len(t["games"]) == 2, "the semi-finals")
    for g in t["games"]:
        _started(tg, redis_url, g["g"])
    resign(cid)  # Ben beats Cid: in the inbox, maybe applied, when the bot goes down
    _move_once_if_on_turn(tg, ann)  # Dan, who never moves, is on turn
    tg.settlers.remove(timed_bot.settle)
    timed_bot.stop()  # the bot goes down mid-round...
    clock.advance(FLAG)  # ...Dan's flag falls while it is down...
    client = redis.Redis.from_url(redis_url)
    pid = int(client.info("server")["process_id"])
    client.close()
    os.kill(pid, signal.SIGKILL)  # ...and Redis dies: only what its append-only file holds comes back
    tg.wait_for(lambda: not redis_server.running, 10.0, "redis-server gone")
    redis_server.start()
    timed_bot.start()
    tg.settlers.append(timed_bot.settle)
    try:
        t = _wait_tourney(tg, redis_url, lambda t: len(t["games"]) == 3, "the final after the restart")
    except TimeoutError as err:
        r = _client(redis_url)
        clocks = r.zrange("nardy:clocks", 0, -1, withscores=True)
        keys = [k for k in r.scan_iter("nardy:game:*") if k.count(":") == 2]
        games = [json.loads(str(r.get(k)))["game"]["state"] for k in keys]
        r.close()
        raise AssertionError(
            f"{err}; now {clock()}; clocks {clocks}; games {games}; {timed_bot.errors.messages()}"
        ) from None
    assert [g.get("wo", 0) for g in t["games"][:2]].count(1) == 1  # Dan's walkover, once
    final = t["games"][2]
    assert set(final["p"]) == {1, 2}
    _started(tg, redis_url, final["g"])
    resign_match(ben)
    _wait_tourney(tg, redis_url, lambda t: t["stage"] == "over", "the knockout over")
    ann.wait_message(lambda m: "The tournament is over!" in m.body, GROUP)
    tg.settle()
    assert (
        sum("The tournament is over!" in m.body for m in tg.bot_messages(GROUP)) == 2
    )  # the card and one message


def test_two_webhook_workers_run_an_arena_with_each_result_once(
    tg: FakeTelegram, redis_url: str, clock: FakeClock
) -> None:
    """Two workers behind webhooks share the updates and both sweep the tournament: every press answered,
    each result applied once, each game started once, one last message."""
    workers = []
    for name in ("worker-a", "worker-b"):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        worker = BotRunner(
            tg.api_url,
            redis_url,
            ScriptedDice(seed=11),
            engine_computer(seed=5),
            webhook_port=port,
            name=name,
            clock=clock,
            clocks_every=0.1,
        )
        worker.start()
        tg.settlers.append(worker.settle)
        workers.append(worker)
    try:
        tg.add_chat(GROUP, "supergroup", "Nardy club")
        users = [SimUser(tg, i, f"P{i}") for i in range(1, 7)]
        card = _create(tg, users[0], "Arena", "Short nardy", "Single games", "blitz", "5 min", "Now")
        _join(tg, card, users)
        assert not users[0].press(card, "Start").show_alert
        t = _wait_tourney(tg, redis_url, lambda t: len(t["games"]) == 3, "three games")
        for g in t["games"]:
            _started(tg, redis_url, g["g"])
        for g in t["games"]:  # white resigns each
            resign(users[g["p"][0] - 1])
        t = _wait_tourney(tg, redis_url, lambda t: sum("w" in g for g in t["games"]) == 3, "three results")
        assert sorted(g["n"] for g in t["games"] if "w" in g) == [1, 2, 3]  # each applied once
        clock.advance(300.0)
        _wait_tourney(tg, redis_url, lambda t: _all_started(redis_url, t), "the last pairings' games started")
        clock.advance(FLAG)
        t = _wait_tourney(tg, redis_url, lambda t: t["stage"] == "over", "the arena over")
        assert len({g["g"] for g in t["games"]}) == len(t["games"])
        users[0].wait_message(
            lambda m: "The tournament is over!" in m.body and m.message_id != card.message_id, GROUP
        )
        tg.settle()
        finals = [m for m in tg.bot_messages(GROUP) if "The tournament is over!" in m.body]
        assert len(finals) == 2, [
            (m.message_id, m.photo is not None, w.errors.messages()) for m in finals for w in workers
        ]
        r = _client(redis_url)
        try:
            played = [int(r.hget(f"nardy:user:{u.id}:stats", "tourneys") or 0) for u in users]
        finally:
            r.close()
        assert played == [1] * 6  # counted once
        assert all(not w.errors.messages() for w in workers)
    finally:
        for worker in workers:
            tg.settlers.remove(worker.settle)
            worker.stop()
