"""A finished game's review over HTTP, without a browser (aiohttp's client against the bot's page server and
the test Redis): what a player gets (frames, plays as the record writes them, the dice proof that checks out,
downloads whose bytes are the chat's record files), the analysis worked out once and kept, who may see a
review (players; a group's members by getChatMember; nobody with a stranger's, forged or expired initData),
the signed download links, and the answers for games that are not there or not over, and with Redis away."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import aiohttp
import pytest
import redis.asyncio as aioredis
from telegram import Bot

from bot.i18n import texts
from bot.model.flow import ScriptedDice
from bot.model.sources import FairDice
from bot.model.table import Person, Table
from bot.service.context import Services
from bot.service.records import record_file
from bot.service.reviews import work_out
from bot.storage import Storage
from bot.storage.keys import FINISHED_TTL, analysis_key, game_key
from bot.telegram.members import Members
from bot.web import reviews as reviews_web
from bot.web.server import WebServer
from engine import Game
from engine.ai.analysis import analyse
from engine.fair_dice import FairSeeds, verify
from testkit.fake_telegram.server import BOT_TOKEN, FakeTelegram
from testkit.web_client import (
    DAY,
    computer_game,
    friend_game,
    group_game,
    init_data,
    page_server,
    played_out,
    services,
)

ALICE, BOB, CAROL = Person(1001, "Alice"), Person(1002, "Bob"), Person(1003, "<script>alert(1)</script>")
GROUP = -100500
NOW = 1_800_000_000.0


@dataclass
class Setup:
    s: Services
    server: WebServer
    http: aiohttp.ClientSession
    now: list[float]
    works: list[str]

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.port}/app/"

    def init(self, who: Person, **kw: Any) -> str:
        return init_data(who.user_id, who.name, auth_date=kw.pop("auth_date", NOW), **kw)

    async def get(self, who: Person | str, path: str, game: str) -> tuple[int, dict[str, Any]]:
        init = who if isinstance(who, str) else self.init(who)
        url = self.base + path + "?" + urlencode({"game": game})
        async with self.http.get(url, headers={"Authorization": "tma " + init}) as r:
            return r.status, await r.json()

    async def review(self, who: Person | str, game: str) -> tuple[int, dict[str, Any]]:
        return await self.get(who, "api/review", game)

    async def analysis(self, who: Person | str, game: str) -> tuple[int, dict[str, Any]]:
        return await self.get(who, "api/review/analysis", game)

    async def download(self, url: str) -> tuple[int, bytes, Any]:
        async with self.http.get(self.base + url) as r:
            return r.status, await r.read(), r.headers


def counted(works: list[str]) -> Callable[[Services, Game], Awaitable[dict[str, Any]]]:
    async def work(s: Services, game: Game) -> dict[str, Any]:
        works.append(game.game)
        await asyncio.sleep(0.05)  # the others ask while it is worked out
        return await work_out(s, game)

    return work


@pytest.fixture
async def setup(redis_url: str) -> AsyncIterator[Setup]:
    storage = Storage.from_url(redis_url)
    now = [NOW]
    s = services(storage, ScriptedDice(seed=5), clock=lambda: now[0])
    works: list[str] = []
    async with page_server(s) as server, aiohttp.ClientSession() as http:
        server.reviews.analyses.work = counted(works)
        yield Setup(s, server, http, now, works)
    await storage.close()


async def finished(setup: Setup, variant: str = "short") -> Table:
    table = await friend_game(setup.s, ALICE, BOB, variant)
    return await played_out(setup.s, table)


async def test_a_player_gets_their_finished_games_review(setup: Setup) -> None:
    table = await finished(setup)
    status, review = await setup.review(ALICE, f"{table.id}/1")
    assert status == 200, review
    game = table.game
    assert game.result is not None
    assert review["game"] == f"{table.id}/1" and review["variant"] == "short" and review["you"] == 0
    assert review["names"] == ["Alice", "Bob"] and review["lang"] == "en" and review["dir"] == "ltr"
    assert review["title"] == "Short nardy (backgammon) · Alice – Bob"
    assert len(review["frames"]) == len(review["plays"]) + 2 == len(game.history) + 2
    assert review["frames"][-1]["winner"] == int(game.result.winner) and review["frames"][0]["winner"] is None
    assert review["result"] == review["frames"][-1]["status"] and review["result"]
    assert [p["text"] for p in review["plays"]] == [t.play for t in game.history]
    assert [p["dice"] for p in review["plays"]] == [[t.dice.a, t.dice.b] for t in game.history]
    assert review["words"]["review"] == "Game review" and review["analysis"] is None
    _, bobs = await setup.review(BOB, f"{table.id}/1")
    assert bobs["you"] == 1 and bobs["frames"][0]["viewer"] == 1


async def test_the_reviews_dice_proof_checks_out(setup: Setup) -> None:
    setup.s.dice = FairDice()  # the dice the seeds derive (the scripted ones follow no seeds)
    table = await finished(setup)
    _, review = await setup.review(ALICE, table.id)
    proof = review["proof"]
    seeds = FairSeeds(proof["seed"], tuple(proof["clients"]), proof["game"], proof["made"])
    rolls = [(a, b) for a, b in proof["rolls"]]
    assert proof["game"] == f"{table.id}/1" and len(proof["commitment"]) == 64
    assert verify(proof["seed"], proof["commitment"], seeds, rolls).ok


async def test_the_downloads_are_the_chats_record_files(setup: Setup) -> None:
    table = await finished(setup)
    _, review = await setup.review(ALICE, f"{table.id}/1")
    assert [d["kind"] for d in review["downloads"]] == ["mat", "txt", "json"]
    for entry in review["downloads"]:
        status, body, headers = await setup.download(entry["url"])
        data, name = record_file(texts("en"), table, table.game, 1, entry["kind"])
        assert status == 200 and body == data and name == entry["name"]
        assert headers["Content-Disposition"] == f'attachment; filename="{name}"'


async def test_a_tampered_or_expired_download_link_is_refused(setup: Setup) -> None:
    table = await finished(setup)
    _, review = await setup.review(ALICE, f"{table.id}/1")
    url = review["downloads"][1]["url"]
    query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    for changed in (
        {"kind": "json"},
        {"u": str(BOB.user_id)},
        {"until": str(int(NOW) + DAY)},
        {"sig": "0" * 64},
    ):
        status, _, _ = await setup.download("api/record?" + urlencode(query | changed))
        assert status == 403, changed
    setup.now[0] = NOW + 15 * 60 + 1
    status, _, _ = await setup.download(url)
    assert status == 403


async def test_a_long_games_downloads_have_no_mat(setup: Setup) -> None:
    table = await played_out(setup.s, await computer_game(setup.s, ALICE, "long"))
    status, review = await setup.review(ALICE, table.id)
    assert status == 200 and [d["kind"] for d in review["downloads"]] == ["txt", "json"]
    assert review["names"][1].startswith("Computer")


async def test_the_analysis_is_worked_out_once_and_then_read_from_redis(setup: Setup) -> None:
    table = await finished(setup)
    status, first = await setup.analysis(ALICE, f"{table.id}/1")
    assert status == 200, first
    status, second = await setup.analysis(BOB, f"{table.id}/1")
    assert status == 200 and second == first and setup.works == ["short"]
    analysis = first["analysis"]
    expected = analyse(table.game)
    assert [p["n"] for p in analysis["plays"]] == [r.turn for r in expected.plays]
    assert [p["best"] for p in analysis["plays"]] == [str(r.best) for r in expected.plays]
    assert [p["loss"] for p in analysis["plays"]] == [round(r.loss, 4) for r in expected.plays]
    assert analysis["sides"][0]["decisions"] == expected.white.decisions
    _, review = await setup.review(ALICE, f"{table.id}/1")
    assert review["analysis"] == analysis and len(analysis["chances"]) == len(review["frames"])
    assert table.game.result is not None
    assert analysis["chances"][-1] == (1.0 if table.game.result.winner == 0 else 0.0)
    forced = {p["n"] for p in review["plays"] if p["forced"]}
    assert not forced & {p["n"] for p in analysis["plays"]}
    assert "Alice" not in str(analysis) and "Bob" not in str(analysis)


async def test_twenty_requests_at_once_start_one_computation(setup: Setup) -> None:
    table = await finished(setup)
    answers = await asyncio.gather(*(setup.analysis(ALICE, f"{table.id}/1") for _ in range(20)))
    assert {status for status, _ in answers} == {200} and setup.works == ["short"]
    assert all(a == answers[0][1] for _, a in answers)


async def test_forget_drops_the_kept_analysis_with_the_game(setup: Setup) -> None:
    table = await finished(setup)
    await setup.analysis(ALICE, table.id)
    assert await setup.s.storage.reviews.analysis(table.id, 1) is not None
    kept = await setup.s.storage.games.load(table.id)
    assert kept is not None
    await setup.s.storage.games.delete_game(kept)
    assert await setup.s.storage.reviews.analysis(table.id, 1) is None


async def test_a_stranger_a_forged_or_an_expired_initdata_sees_nothing(setup: Setup) -> None:
    table = await finished(setup)
    for path in ("api/review", "api/review/analysis"):
        status, answer = await setup.get(CAROL, path, table.id)
        assert status == 404 and "Alice" not in str(answer)
        forged = setup.init(ALICE).replace("Alice", "Alicf")
        assert (await setup.get(forged, path, table.id))[0] == 401
        old = setup.init(ALICE, auth_date=NOW - 2 * DAY)
        assert (await setup.get(old, path, table.id))[0] == 401
    assert setup.works == []


async def test_a_game_still_running_or_unknown_is_not_found_and_a_bad_name_is_refused(setup: Setup) -> None:
    table = await friend_game(setup.s, ALICE, BOB)
    status, running = await setup.review(ALICE, table.id)
    status_unknown, unknown = await setup.review(ALICE, "nosuchgame/1")
    assert status == status_unknown == 404 and running["error"] and unknown["error"]
    assert (await setup.review(ALICE, "../etc/passwd"))[0] == 400
    assert (await setup.review(ALICE, "x" * 40))[0] == 400


async def test_a_name_with_a_script_comes_back_as_plain_json_text(setup: Setup) -> None:
    table = await played_out(setup.s, await friend_game(setup.s, CAROL, BOB))
    async with setup.http.get(
        setup.base + "api/review?game=" + table.id, headers={"Authorization": "tma " + setup.init(CAROL)}
    ) as r:
        assert r.status == 200 and r.content_type == "application/json"
        assert r.headers["Content-Encoding"] in ("gzip", "deflate")  # aiohttp's client asks for both
        review = await r.json()
    assert review["names"][0] == CAROL.name and CAROL.name in review["title"]


async def test_with_redis_away_the_review_says_try_again(setup: Setup, redis_server: Any) -> None:
    table = await finished(setup)
    redis_server.stop()
    status, answer = await setup.review(ALICE, table.id)
    assert status == 503 and answer["error"]
    status, answer = await setup.analysis(ALICE, table.id)
    assert status == 503 and answer["error"]


async def test_a_groups_member_sees_its_game_and_one_who_left_does_not(
    setup: Setup, tg: FakeTelegram
) -> None:
    table = await played_out(setup.s, await group_game(setup.s, GROUP, ALICE, BOB))
    tg.add_chat(GROUP, "supergroup", "Nardy club")
    tg.set_member_status(GROUP, 2002, "left")
    tg.set_member_status(GROUP, 2003, "kicked")
    async with Bot(BOT_TOKEN, base_url=tg.api_url + "/bot") as bot:
        setup.server.reviews.member_of = Members(bot).member_of
        status, review = await setup.review(Person(2001, "Dan"), table.id)
        assert status == 200 and review["you"] is None and review["frames"][0]["viewer"] == 0
        assert (await setup.review(Person(2002, "Eve"), table.id))[0] == 404
        assert (await setup.review(Person(2003, "Fay"), table.id))[0] == 404
    setup.server.reviews.member_of = None
    assert (await setup.review(Person(2001, "Dan"), table.id))[0] == 404


async def test_the_kept_analysis_expires_with_its_game_and_a_gone_games_is_not_kept(
    setup: Setup, redis_url: str
) -> None:
    table = await finished(setup)
    await setup.analysis(ALICE, table.id)
    client = aioredis.Redis.from_url(redis_url)
    try:
        game_ttl, kept_ttl = await client.pttl(game_key(table.id)), await client.pttl(analysis_key(table.id))
        assert 0 < kept_ttl <= game_ttl <= FINISHED_TTL * 1000
        assert not await setup.s.storage.reviews.keep_analysis("nosuchgame", 1, {"plays": []})
        assert not await client.exists(analysis_key("nosuchgame"))
    finally:
        await client.aclose()


async def test_a_person_waits_for_one_analysis_at_a_time(setup: Setup) -> None:
    """Someone with many finished games cannot fill the analysis workers that everyone's hints share: while
    one of their analyses is worked out, another is refused (503, the computer is busy: the page offers to
    try again), and once it is done the next one is worked out."""
    first, second = await finished(setup), await finished(setup)
    started, release = asyncio.Event(), asyncio.Event()
    work = counted(setup.works)

    async def held(s: Services, game: Game) -> dict[str, Any]:
        if not started.is_set():  # the first one waits until released
            started.set()
            await release.wait()
        return await work(s, game)

    setup.server.reviews.analyses.work = held
    asked = asyncio.create_task(setup.analysis(ALICE, f"{first.id}/1"))
    await asyncio.wait_for(started.wait(), 30)
    status, refused = await setup.analysis(ALICE, f"{second.id}/1")
    assert (
        status == 503 and refused["error"] == "The computer is very busy right now. Press again in a moment."
    )
    assert (await setup.analysis(BOB, f"{second.id}/1"))[0] == 200  # another person is not held back
    release.set()
    assert (await asked)[0] == 200
    assert (await setup.analysis(ALICE, f"{second.id}/1"))[0] == 200  # kept by Bob's
    assert setup.works == ["short", "short"] and setup.server.reviews.asking == {}


async def test_a_review_being_built_holds_up_no_other_request(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long game's review takes tens of milliseconds to build (its replay, its legal plays): it is built in
    a thread, so the page server answers other people meanwhile. Here the build is held until another
    person's request has been answered: were it built on the event loop, that answer could never come."""
    table = await finished(setup)
    answered, building = threading.Event(), threading.Event()
    real_frames = reviews_web.frames

    def held_frames(*args: Any) -> Any:
        building.set()
        assert answered.wait(30), "the other request was not answered while the review was built"
        return real_frames(*args)

    monkeypatch.setattr(reviews_web, "frames", held_frames)
    asked = asyncio.create_task(setup.review(ALICE, f"{table.id}/1"))
    assert await asyncio.to_thread(building.wait, 30)
    status, _ = await setup.get(BOB, "api/home", "")
    answered.set()
    assert status == 200
    status, review = await asked
    assert status == 200 and len(review["frames"]) == len(review["plays"]) + 2
