"""The Mini App's home over HTTP, without a browser (aiohttp's client against the bot's page server): who
sees what (signed, fresh initData of one person: their own games, statistics and history; nobody else's),
a new game against the computer started through the game service, a Direct Link's startapp opened (a game
named back, an invitation accepted), the page served at /app/ when no game is named."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import aiohttp
import pytest

from bot.model.flow import ScriptedDice
from bot.model.stats import FinishedGame, PlayerRef
from bot.model.table import Invite, Person, new_id
from bot.service import games
from bot.service.context import Services
from bot.service.rates import Limits, Rate
from bot.storage import Storage
from bot.web.home import BotLinks
from bot.web.sandbox import sandbox_server
from bot.web.server import WebServer
from testkit.web_client import DAY, computer_game, friend_game, init_data, page_server, services

ALICE, BOB, CAROL = Person(1001, "Alice"), Person(1002, "Bob"), Person(1003, "<b>Carol</b>")
NOW = 1_800_000_000.0


@dataclass
class Setup:
    s: Services
    server: WebServer
    http: aiohttp.ClientSession

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.port}/app/"

    def init(self, who: Person, **kw: Any) -> str:
        return init_data(who.user_id, who.name, auth_date=kw.pop("auth_date", NOW), **kw)

    async def get(self, who: Person | str) -> tuple[int, dict[str, Any]]:
        init = who if isinstance(who, str) else self.init(who)
        async with self.http.get(self.base + "api/home", headers={"Authorization": "tma " + init}) as r:
            return r.status, await r.json()

    async def post(
        self, who: Person | str, path: str, body: dict[str, Any], origin: str | None = None
    ) -> tuple[int, dict[str, Any]]:
        init = who if isinstance(who, str) else self.init(who)
        headers = {"Authorization": "tma " + init, "Origin": origin or self.base.split("/app/")[0]}
        async with self.http.post(self.base + "api/" + path, data=json.dumps(body), headers=headers) as r:
            text = await r.text()
            return r.status, json.loads(text) if text.startswith("{") else {"text": text}


@pytest.fixture
async def setup(redis_url: str) -> AsyncIterator[Setup]:
    storage = Storage.from_url(redis_url)
    s = services(storage, ScriptedDice(seed=5), clock=lambda: NOW)
    async with page_server(s) as server, aiohttp.ClientSession() as http:
        yield Setup(s, server, http)
    await storage.close()


async def test_a_new_player_sees_no_games_and_the_computer_games_they_may_start(setup: Setup) -> None:
    status, home = await setup.get(ALICE)
    assert status == 200 and home["type"] == "home" and home["name"] == "Alice"
    assert home["games"] == [] and home["history"] == [] and home["now"] == NOW
    assert [f["id"] for f in home["formats"]][:2] == ["short", "long"]
    assert [lv["id"] for lv in home["levels"]] == ["beginner", "intermediate", "expert"]
    assert home["words"]["yourGames"] == "Your games" and home["dir"] == "ltr"
    assert home["stats"] == []


async def test_the_home_speaks_the_players_language(setup: Setup) -> None:
    status, home = await setup.get(setup.init(ALICE, lang="fa"))
    assert status == 200 and home["lang"] == "fa" and home["dir"] == "rtl"
    status, home = await setup.get(setup.init(ALICE, lang="uk"))
    assert home["lang"] == "uk" and home["words"]["yourGames"] != "Your games"


async def test_a_game_against_the_computer_starts_from_the_home_and_is_listed(setup: Setup) -> None:
    status, answer = await setup.post(ALICE, "computer", {"format": "long", "level": "expert"})
    assert status == 200, answer
    table = await setup.s.storage.games.load(answer["game"])
    assert table is not None and table.mode == "computer" and table.game.game == "long"
    assert table.players[1].level == "expert" and table.side_of(ALICE.user_id) is not None
    _, home = await setup.get(ALICE)
    [entry] = home["games"]
    assert entry["game"] == table.id and entry["opponent"] == "Computer (expert)"
    assert entry["turn"] == "you" and entry["title"] == "Long nardy" and entry["clock"] is None
    status, again = await setup.post(ALICE, "computer", {"format": "short", "level": "beginner"})
    assert status == 409 and "already going on" in again["error"]  # one live game per chat, as the chat says


async def test_what_the_home_may_not_start_is_refused(setup: Setup) -> None:
    for body in ({"format": "chess", "level": "expert"}, {"format": "short", "level": "god"}, {"format": 1}):
        status, answer = await setup.post(ALICE, "computer", body)
        assert status == 400, (body, answer)
    status, _ = await setup.post(
        ALICE, "computer", {"format": "short", "level": "expert"}, "https://evil.example"
    )
    assert status == 403
    assert await setup.s.storage.games.games_of_user(ALICE.user_id) == []


async def test_forged_foreign_expired_or_missing_init_data_sees_nothing(setup: Setup) -> None:
    await computer_game(setup.s, ALICE)
    good = setup.init(ALICE)
    for name, init in {
        "forged": good.replace("Alice", "Carol"),
        "another bot's": init_data(ALICE.user_id, "Alice", token="999:OTHER", auth_date=NOW),
        "expired": setup.init(ALICE, auth_date=NOW - DAY - 1),
        "none": "",
    }.items():
        status, answer = await setup.get(init)
        assert status == 401 and set(answer) == {"error"}, (name, answer)
        assert "could not prove who you are" in answer["error"], name
        status, answer = await setup.post(init, "computer", {"format": "short", "level": "expert"})
        assert status == 401, (name, answer)
    assert len(await setup.s.storage.games.games_of_user(ALICE.user_id)) == 1


async def test_a_player_sees_only_their_own_games(setup: Setup) -> None:
    mine = await friend_game(setup.s, ALICE, CAROL)
    theirs = await friend_game(setup.s, BOB, Person(1004, "Dan"))
    _, home = await setup.get(ALICE)
    assert [g["game"] for g in home["games"]] == [mine.id]
    assert home["games"][0]["opponent"] == "<b>Carol</b>"  # as text: the page never makes it HTML
    _, carol = await setup.get(CAROL)
    assert [g["game"] for g in carol["games"]] == [mine.id]
    assert theirs.id not in json.dumps(home) and "Dan" not in json.dumps(home)
    turn = {g["turn"] for g in (home["games"][0], carol["games"][0])}
    assert turn == {"you", "them"}


async def test_finished_games_leave_the_list_and_reach_the_history(setup: Setup) -> None:
    table = await computer_game(setup.s, ALICE)
    await games.resign(setup.s, table, ALICE.user_id, table.number)
    _, home = await setup.get(ALICE)
    assert home["games"] == []
    [entry] = home["history"]
    assert "Short nardy against the computer (beginner): lost" in entry["line"], entry
    assert entry["key"] == f"{table.id}/1"  # the review page's ?review=
    assert home["stats"][:2] == ["Short nardy:", "Rating: 1500 (no rated match yet)"], home["stats"]


async def test_a_direct_link_names_a_game_or_an_invitation(setup: Setup) -> None:
    status, answer = await setup.post(ALICE, "open", {"start": "gAbC_12-x"})
    assert status == 200 and answer == {"game": "AbC_12-x"}  # the board then checks who may see it
    assert (await setup.post(ALICE, "open", {"start": "AbC12"}))[1] == {"game": "AbC12"}  # an older link
    invite = Invite(new_id(12), "short", BOB)
    await setup.s.storage.rooms.put_invite(invite)
    status, answer = await setup.post(ALICE, "open", {"start": "i" + invite.token})
    assert status == 200, answer
    table = await setup.s.storage.games.load(answer["game"])
    assert table is not None and {p.user_id for p in table.players} == {ALICE.user_id, BOB.user_id}
    status, answer = await setup.post(CAROL, "open", {"start": "i" + invite.token})
    assert status == 409 and "expired" in answer["error"]
    status, answer = await setup.post(ALICE, "open", {"start": "../etc"})
    assert status == 400
    for first in "gi":  # a group board's link from before the prefixes: a bare id that begins so
        old = await computer_game(setup.s, CAROL)
        await setup.s.storage.games.delete_game(old)
        bare = first + old.id
        await setup.s.storage.games.create(replace(old, id=bare))
        assert (await setup.post(CAROL, "open", {"start": bare}))[1] == {"game": bare}
        await setup.s.storage.games.delete_game(replace(old, id=bare))


async def test_the_app_folder_serves_the_home_and_a_named_game_the_board(setup: Setup) -> None:
    async with setup.http.get(setup.base) as answer:
        assert answer.status == 200 and "static/home/main.js" in await answer.text()
    async with setup.http.get(setup.base + "?game=abc") as answer:
        assert "static/board/main.js" in await answer.text()
    async with setup.http.get(setup.base + "static/home/main.js") as answer:
        assert answer.status == 200 and answer.content_type == "text/javascript"


async def test_a_quick_match_from_two_homes_waits_then_pairs(setup: Setup) -> None:
    seek = {"variant": "short", "length": 3, "clock": "live"}
    status, first = await setup.post(ALICE, "seek", seek)
    assert status == 200 and set(first) == {"seeking"}, first
    assert first["seeking"]["title"].startswith("Short nardy (backgammon), match to 3")
    _, home = await setup.get(ALICE)
    assert home["seeking"] == first["seeking"] and [v["id"] for v in home["quick"]["variants"]] == [
        "short",
        "long",
    ]
    async with setup.http.get(
        setup.base + "api/seek", headers={"Authorization": "tma " + setup.init(ALICE)}
    ) as r:
        assert await r.json() == {"seeking": first["seeking"], "game": None}
    status, again = await setup.post(ALICE, "seek", seek)
    assert status == 409 and "already looking" in again["error"]
    status, second = await setup.post(BOB, "seek", {**seek, "clock": ""})  # another format: waits apart
    assert "seeking" in second
    await setup.post(BOB, "stop", {"token": second["seeking"]["token"]})
    status, paired = await setup.post(BOB, "seek", seek)
    assert status == 200 and set(paired) == {"game"}, paired
    table = await setup.s.storage.games.load(paired["game"])
    assert table is not None and table.mode == "match" and table.match.length == 3 and table.clock is not None
    async with setup.http.get(
        setup.base + "api/seek", headers={"Authorization": "tma " + setup.init(ALICE)}
    ) as r:
        assert await r.json() == {"seeking": None, "game": table.id}  # Alice's page, waiting, opens it


async def test_a_search_is_stopped_from_the_home_once(setup: Setup) -> None:
    _, answer = await setup.post(ALICE, "seek", {"variant": "long", "length": 1, "clock": ""})
    token = answer["seeking"]["token"]
    status, _ = await setup.post(BOB, "stop", {"token": token})
    assert status == 409  # not Bob's search
    assert (await setup.post(ALICE, "stop", {"token": token}))[0] == 200
    status, over = await setup.post(ALICE, "stop", {"token": token})
    assert status == 409 and "search is over" in over["error"]
    _, home = await setup.get(ALICE)
    assert home["seeking"] is None


async def test_a_quick_match_the_home_does_not_offer_is_refused(setup: Setup) -> None:
    for body in (
        {"variant": "chess", "length": 1, "clock": ""},
        {"variant": "short", "length": 2, "clock": ""},
        {"variant": "short", "length": 1, "clock": "bullet"},
        {"variant": "short", "clock": ""},
    ):
        status, answer = await setup.post(ALICE, "seek", body)
        assert status == 400, (body, answer)
    assert await setup.s.storage.rooms.search_of(ALICE.user_id) is None


async def test_the_homes_requests_take_the_press_limits_tokens(redis_url: str) -> None:
    storage = Storage.from_url(redis_url)
    s = services(storage, ScriptedDice(seed=5), clock=lambda: NOW)
    limits = Limits(user_presses=Rate(3, 0.01), clock=lambda: 1000.0)  # the buckets' clock stands still
    async with page_server(s, limits=limits) as server, aiohttp.ClientSession() as http:
        setup = Setup(s, server, http)
        statuses = [(await setup.get(ALICE))[0] for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
        status, answer = await setup.post(ALICE, "computer", {"format": "short", "level": "expert"})
        assert status == 429 and answer["error"].startswith("Too many presses at once")
        assert (await setup.get(BOB))[0] == 200  # another person's bucket
    await storage.close()


async def test_the_sandbox_seat_serves_the_home_signed_in_by_its_cookie(redis_url: str) -> None:
    storage = Storage.from_url(redis_url)
    s = services(storage, ScriptedDice(seed=5))
    server, _ = sandbox_server(s, 0)
    await server.start()
    try:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:  # 127.0.0.1
            origin = server.local_url
            body = json.dumps({"name": "Zoe", "lang": "tr"})
            headers = {"Origin": origin, "Content-Type": "application/json"}
            async with http.post(origin + "/app/sandbox/signin", data=body, headers=headers) as answer:
                seat = (await answer.json())["next"].removesuffix("/home")
            async with http.get(origin + seat + "/") as answer:
                assert "static/home/main.js" in await answer.text()
            async with http.get(origin + seat + "/api/home") as answer:
                home = await answer.json()
                assert answer.status == 200 and home["name"] == "Zoe" and home["lang"] == "tr"
            async with (
                aiohttp.ClientSession() as stranger,
                stranger.get(origin + seat + "/api/home") as answer,
            ):
                assert answer.status == 401  # no cookie: nobody
    finally:
        await server.stop()
        await storage.close()


def rated(key: str, winner: PlayerRef, loser: PlayerRef, at: float, variant: str = "short") -> FinishedGame:
    """A single game between two people, won by `winner`: a rated match."""
    return FinishedGame(
        key, variant, "friend", None, (winner, loser), 0, 1, "oin", "played", 1, True, 0, (1, 0), at
    )


async def test_the_home_has_each_rated_variants_rating_and_its_charts_points(setup: Setup) -> None:
    alice, carol = PlayerRef(ALICE.user_id, "Alice"), PlayerRef(CAROL.user_id, CAROL.name)
    results = setup.s.storage.results
    for n in range(3):
        await results.record(rated(f"r{n}/1", alice, carol, NOW - (3 - n) * DAY), NOW - (3 - n) * DAY)
    await results.record(rated("r3/1", carol, alice, NOW - 3600), NOW - 3600)
    _, home = await setup.get(ALICE)
    [short] = home["ratings"]  # no rated long game: no long chart
    history = await results.rating_history(ALICE.user_id, "short")
    assert short["variant"] == "short" and short["title"] == "Short nardy"
    assert short["rating"] == round(history[-1].rating) and len(short["points"]) == 4
    assert short["points"] == [[round(p.at), round(p.rating, 1)] for p in history]
    first, last, low, high = short["span"]
    assert first == NOW - 3 * DAY and last == NOW - 3600
    assert low < min(p.rating for p in history) < max(p.rating for p in history) < high
    assert short["ticks"] and all(low <= x <= high for x in short["ticks"])
    assert [e["key"] for e in home["history"]] == ["r3/1", "r2/1", "r1/1", "r0/1"]
    assert "<b>Carol</b>" in home["history"][0]["line"]  # a name as text: the page never makes it HTML
    _, bob = await setup.get(BOB)
    assert bob["ratings"] == [] and bob["history"] == []  # nobody else's


async def test_an_invitation_from_the_home_starts_the_game_when_a_friend_opens_it(setup: Setup) -> None:
    status, answer = await setup.post(ALICE, "invite", {"format": "long"})
    assert status == 200, answer
    link = answer["link"]
    assert link.startswith(setup.base + "?tgWebAppStartParam=i")  # no bot: the page's own address
    assert answer["share"].startswith("https://t.me/share/url?url=http") and "nardy" in answer["share"]
    assert "Long nardy with a friend" in answer["text"] and link in answer["text"]
    start = link.split("tgWebAppStartParam=")[1]
    status, opened = await setup.post(BOB, "open", {"start": start})
    assert status == 200, opened
    table = await setup.s.storage.games.load(opened["game"])
    assert table is not None and table.mode == "friend" and table.game.game == "long"
    assert {p.user_id for p in table.players} == {ALICE.user_id, BOB.user_id}
    status, again = await setup.post(CAROL, "open", {"start": start})
    assert status == 409 and "expired" in again["error"]  # once
    status, busy = await setup.post(ALICE, "invite", {"format": "short"})
    assert status == 409 and "already going on" in busy["error"]  # one live game, as the chat's menu says


async def test_an_invitation_links_to_the_mini_app_or_the_bot_once_the_bot_is_known(setup: Setup) -> None:
    setup.server.home.links = BotLinks("nardy_bot", "board")
    _, answer = await setup.post(ALICE, "invite", {"format": "short"})
    assert answer["link"].startswith("https://t.me/nardy_bot/board?startapp=i")
    token = answer["link"].split("startapp=i")[1]
    setup.server.home.links = BotLinks("nardy_bot")
    _, answer = await setup.post(ALICE, "invite", {"format": "short"})
    assert answer["link"].startswith("https://t.me/nardy_bot?start=")
    assert await setup.s.storage.rooms.peek_invite(token) is None  # the newer invitation replaced it
    assert await setup.s.storage.rooms.peek_invite(answer["link"].split("start=")[1]) is not None


async def test_an_invitation_is_refused_to_nobody_another_origin_and_unoffered_formats(setup: Setup) -> None:
    forged = setup.init(ALICE).replace("Alice", "Carol")
    for who, body, origin, expected in (
        (forged, {"format": "short"}, None, 401),
        ("", {"format": "short"}, None, 401),
        (ALICE, {"format": "short"}, "https://evil.example", 403),
        (ALICE, {"format": "chess"}, None, 400),
        (ALICE, {"variant": "short"}, None, 400),
    ):
        status, answer = await setup.post(who, "invite", body, origin)
        assert status == expected, (body, answer)
    assert await setup.s.storage.rooms.cancel_invite(ALICE.user_id) is None  # none was made
