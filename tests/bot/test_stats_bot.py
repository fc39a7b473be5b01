"""/stats, /top and /history through the fake Bot API, with results seeded by stats.record (as the game's
end records them); the /settings choice that hides from the global board; /forget removing the figures."""

from __future__ import annotations

import asyncio
import io

import redis
import redis.asyncio as aioredis
from PIL import Image

from bot.model import stats
from bot.model.stats import FinishedGame, PlayerRef
from bot.storage.results import ResultStore
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import reply_to
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import StoredMessage

GROUP = -100777
NOW = 1_700_000_000.0
ALICE, BOB, CAROL = PlayerRef(1, "Alicia"), PlayerRef(2, "Bob"), PlayerRef(3, "Carol")
EXPERT = PlayerRef(0, "Computer", "expert")


def finished(
    key: str,
    white: PlayerRef,
    black: PlayerRef,
    winner: int,
    mode: str = "group",
    *,
    variant: str = "short",
    points: int = 1,
    kind: str = "oin",
    how: str = "played",
) -> FinishedGame:
    """A single game (a match of length 1) that `winner` (0 white, 1 black) won."""
    return FinishedGame(
        key=key,
        variant=variant,
        mode=mode,
        chat_id=GROUP if mode == "group" else None,
        players=(white, black),
        winner=winner,
        points=points,
        kind=kind,
        how=how,
        match_length=1,
        match_over=True,
        match_winner=winner,
        match_score=(points, 0) if winner == 0 else (0, points),
        ended_at=NOW,
    )


def seed(redis_url: str, *games: FinishedGame) -> None:
    """Record the games as their ends would (one after another, a minute apart)."""

    async def run() -> None:
        client = aioredis.Redis.from_url(redis_url, decode_responses=True)
        try:
            for n, game in enumerate(games):
                await ResultStore(client).record(game, NOW + 60 * n)
        finally:
            await client.aclose()

    asyncio.run(run())


def photo_of(msg: StoredMessage) -> Image.Image:
    assert msg.photo is not None, f"expected a picture, got {msg.body!r}"
    image = Image.open(io.BytesIO(msg.photo))
    assert image.format == "PNG"
    return image


def test_stats_show_the_figures_with_a_rating_chart_and_in_a_group_a_reply_shows_theirs(
    tg: FakeTelegram, bot: BotRunner, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alicia"), SimUser(tg, 2, "Bob")
    tg.add_chat(GROUP, "supergroup", "Club")
    seed(
        redis_url,
        finished("g1/1", ALICE, BOB, 0, kind="mars", points=2),
        finished("g2/1", BOB, ALICE, 0),
        finished("c1/1", ALICE, EXPERT, 0, mode="computer"),
        finished("c2/1", EXPERT, ALICE, 0, mode="computer", variant="long"),
    )
    mine = reply_to(alice, "/stats")
    assert photo_of(mine).size[0] > 300
    caption = mine.caption or ""
    assert caption.startswith("📊 Statistics of Alicia\n\nShort nardy:\n"), caption
    for line in (
        "Rating: 1500 (2 rated matches)",  # +10, then -10.1 (her factor 4.99 against Bob's 4.99)
        "Games: 2, won 1, lost 1; points per game +0.50",
        "Marses won/lost: 1/0; koks won/lost: 0/0",
        "Streak of wins: 0, best 1",
        "Against the computer (wins of games): expert 1 of 1",
        "Long nardy:\nRating: 1500 (no rated match yet)\nAgainst the computer (wins of games): expert 0 of 1",
    ):
        assert line in caption, (line, caption)
    hello = bob.say("hello", GROUP)
    asked = alice.say("/stats", GROUP, reply_to=hello)
    theirs = alice.wait_message(lambda m: m.message_id > asked.message_id, GROUP)
    tg.settle()
    assert len(tg.bot_messages(GROUP)) == 1, "one answer, to the command only"
    assert (theirs.caption or "").startswith("📊 Statistics of Bob"), theirs.body
    assert "Marses won/lost: 0/1" in (theirs.caption or "")
    carol = SimUser(tg, 3, "Carol")
    assert reply_to(carol, "/stats").text == "📊 Carol has no finished games yet."
    assert not bot.errors.records, bot.errors.messages()


def test_top_in_a_group_is_its_board_and_in_private_the_global_one_without_the_hidden(
    tg: FakeTelegram, bot: BotRunner, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alicia"), SimUser(tg, 2, "Bob")
    tg.add_chat(GROUP, "group", "Club")
    assert reply_to(alice, "/top", GROUP).text == (
        "🏆 Nobody here has finished a game against another person yet: /newgame."
    )
    games = [finished(f"a{n}/1", ALICE, BOB, 0 if n % 3 else 1) for n in range(stats.MIN_RATED_MATCHES)]
    games.append(finished("c/1", CAROL, BOB, 0, mode="friend"))  # Carol never played in the group
    seed(redis_url, *games)
    board = reply_to(alice, "/top", GROUP).text or ""
    assert board.startswith("🏆 Leaderboard of this chat\n\nShort nardy:\n1. Alicia — 15"), board
    assert "\n2. Bob — 14" in board and "Carol" not in board and board.endswith("Long nardy:\nnobody yet")
    assert "(games 5, wins 3)" in board, board
    everyone = reply_to(alice, "/top").text or ""
    assert everyone.startswith("🏆 Global leaderboard (players with at least 5 rated matches)"), everyone
    assert "1. Alicia" in everyone and "2. Bob" in everyone and "Carol" not in everyone

    menu = reply_to(bob, "/settings")
    assert "Global leaderboards (/top): shown" in menu.body and "✓ 🏆 In global /top" in menu.button_texts
    assert not bob.press(menu, "🙈 Hidden").show_alert
    changed = tg.message(bob.id, menu.message_id)
    assert "Global leaderboards (/top): hidden" in changed.body and "✓ 🙈 Hidden" in changed.button_texts
    everyone = reply_to(alice, "/top").text or ""
    assert "Alicia" in everyone and "Bob" not in everyone, everyone
    assert "Bob" in (reply_to(alice, "/top", GROUP).text or ""), "the group's own board still shows him"
    bob.press(menu, "In global /top")
    assert "Bob" in (reply_to(alice, "/top").text or "")
    assert not bot.errors.records, bot.errors.messages()


def test_history_lists_the_last_games_newest_first(tg: FakeTelegram, bot: BotRunner, redis_url: str) -> None:
    alice = SimUser(tg, 1, "Alicia")
    assert reply_to(alice, "/history").text == "🕑 Alicia, you have no finished games yet."
    seed(
        redis_url,
        finished("h1/1", ALICE, BOB, 0, kind="mars", points=2),
        finished("h2/1", ALICE, EXPERT, 1, mode="computer", how="resigned"),
    )
    assert reply_to(alice, "/history").text == (
        "🕑 Last games of Alicia:\n\n"
        "2023-11-14 Short nardy against the computer (expert): lost 1 point (by resignation)\n"
        "2023-11-14 Short nardy against Bob: won 2 points (mars, rating +10.0)"
    )
    assert not bot.errors.records, bot.errors.messages()


def test_forget_removes_ratings_statistics_history_and_leaderboard_places(
    tg: FakeTelegram, bot: BotRunner, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alicia"), SimUser(tg, 2, "Bob")
    tg.add_chat(GROUP, "group", "Club")
    seed(redis_url, *(finished(f"f{n}/1", ALICE, BOB, 0) for n in range(stats.MIN_RATED_MATCHES)))
    question = reply_to(alice, "/forget")
    assert "and so are your ratings, statistics and game history" in question.body
    assert not alice.press(question, "Yes, delete my data").show_alert
    report = tg.message(alice.id, question.message_id).text or ""
    assert report.endswith("\nRatings, statistics and game history deleted; you left every leaderboard."), (
        report
    )
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        assert not client.keys("nardy:user:1:*")
        for board in client.keys("nardy:top:*"):
            assert "1" not in client.zrange(board, 0, -1), board
        assert not any("Alicia" in str(client.get(k)) for k in client.keys("nardy:recorded:*"))
    finally:
        client.close()
    assert reply_to(alice, "/stats").text == "📊 Alicia has no finished games yet."
    assert "Alicia" not in (reply_to(bob, "/top", GROUP).text or "")
    assert reply_to(alice, "/history").text == "🕑 Alicia, you have no finished games yet."
    assert not bot.errors.records, bot.errors.messages()


def test_a_russian_player_reads_stats_top_and_history_in_russian(
    tg: FakeTelegram, bot: BotRunner, redis_url: str
) -> None:
    ivan = SimUser(tg, 1, "Иван", "ru")
    seed(
        redis_url,
        finished("r1/1", ALICE, BOB, 0, mode="friend"),
        finished("r2/1", ALICE, EXPERT, 0, mode="computer"),
    )
    mine = reply_to(ivan, "/stats")
    caption = mine.caption or ""
    assert caption.startswith("📊 Статистика: Иван\n\nКороткие нарды:\nРейтинг: 1510 (1 рейтинговый матч)"), (
        caption
    )
    assert "Против компьютера (побед из партий): эксперт 1 из 1" in caption
    photo_of(mine)
    assert (reply_to(ivan, "/top").text or "").startswith("🏆 Общая таблица лидеров")
    assert reply_to(ivan, "/history").text == (
        "🕑 Последние партии: Иван\n\n"
        "2023-11-14 Короткие нарды, соперник — компьютер (эксперт): выиграно 1 очко\n"
        "2023-11-14 Короткие нарды, соперник — Bob: выиграно 1 очко (рейтинг +10.0)"
    )
    assert not bot.errors.records, bot.errors.messages()
