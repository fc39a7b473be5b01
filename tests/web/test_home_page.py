"""The Mini App's home in Chromium with the bot and the fake Bot API: the bot's menu button and /app open it;
a new player starts a game against the computer from it and plays it through on the board it opens (the
chat's board follows); a quick match between two homes, waiting shown and stopped, then paired; a Direct
Link's startapp opens the game or the invitation it names; a forged or foreign initData sees nothing; the
player's rating charts drawn from their points, a recent game opening its review, a friend invited through
Telegram's inline mode or a link, and the way back from a board to the home."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

from bot.model.stats import FinishedGame, PlayerRef
from bot.model.table import Invite, Person, new_id
from testkit.board_pages import buttons, is_over, play_to_the_end
from testkit.browser import wait_drawn
from testkit.fake_telegram import BOT_TOKEN, FakeTelegram, SimUser
from testkit.fake_telegram.play import is_over as board_over
from testkit.fake_telegram.play import reply_to
from testkit.fake_telegram.runner import BotRunner
from testkit.home_pages import (
    OLD_CLIENT,
    game_of,
    games,
    open_home,
    seek,
    start_computer_game,
    telegram_calls,
    wait_home,
    wait_waiting,
)
from testkit.review_pages import WAIT_MS, wait_ready
from testkit.web_client import init_data

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

GROUP = -100777


def call_api(tg: FakeTelegram, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        f"{tg.api_url}/bot{BOT_TOKEN}/{method}",
        data=json.dumps(params).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_the_menu_button_and_app_open_the_home(tg: FakeTelegram, web: BotRunner) -> None:
    assert web.webapp is not None
    tg.wait_for(lambda: tg.menu_button() is not None, timeout=30, what="the menu button")
    assert tg.menu_button() == {"type": "web_app", "text": "🎲 Nardy", "web_app": {"url": web.webapp.url}}
    carol = SimUser(tg, 3, "Carol")
    answer = reply_to(carol, "/app")
    assert answer.buttons == [{"text": "📲 Open the Mini App", "web_app": {"url": web.webapp.url}}]
    tg.add_chat(GROUP, "group", "Nardy club")
    in_group = reply_to(carol, "/app", GROUP)
    assert in_group.buttons == [{"text": "📲 Open the Mini App", "url": "https://t.me/nardy_test_bot/board"}]
    assert not web.errors.records, web.errors.messages()


def test_the_fake_bot_api_refuses_a_menu_button_telegram_refuses(tg: FakeTelegram) -> None:
    good = {"type": "web_app", "text": "Play", "web_app": {"url": "https://nardy.example.org/app/"}}
    assert call_api(tg, "setChatMenuButton", {"menu_button": good})[0] == 200
    for bad, said in (
        ({**good, "web_app": {"url": "http://nardy.example.org/app/"}}, "BUTTON_URL_INVALID"),
        ({**good, "text": ""}, "text is empty"),
        ({"type": "app", "text": "Play"}, "unsupported menu button type"),
    ):
        status, answer = call_api(tg, "setChatMenuButton", {"menu_button": bad})
        assert status == 400 and said in answer["description"], (bad, answer)
    status, answer = call_api(tg, "setChatMenuButton", {"chat_id": 424242, "menu_button": good})
    assert status == 400 and "chat not found" in answer["description"]
    assert tg.menu_button() == good


def test_a_new_player_starts_a_game_from_the_home_and_plays_it_through(
    tg: FakeTelegram, web: BotRunner, phone: Page
) -> None:
    assert web.webapp is not None
    erin = SimUser(tg, 5, "Erin")
    open_home(phone, web.webapp.url, init_data(5, "Erin", lang="uk"))
    assert games(phone) == [] and phone.get_attribute("html", "lang") == "uk"
    assert phone.text_content("#games-title") == "Ваші ігри"
    start_computer_game(phone, "short", "beginner")
    wait_drawn(phone)
    game_id = game_of(phone.url)
    moves = play_to_the_end(phone, "tap")
    assert moves >= 10 and buttons(phone) == ["rematch"] and is_over(phone)
    web.settle()
    erin.wait_message(board_over)  # the chat's board followed
    phone.go_back()
    wait_home(phone)
    assert game_id not in games(phone)  # finished: in the history now
    assert phone.locator("#history li").count() == 1
    phone.locator("#history a.review").first.click()  # and on into its review, in Ukrainian too
    phone.wait_for_url("**/app/?review=*", timeout=WAIT_MS)
    wait_ready(phone)
    assert phone.get_attribute("html", "lang") == "uk"
    assert phone.locator("#plays li").count() >= moves // 4  # a play is one to four moves
    assert phone.get_attribute("#board", "data-frame") == "0"
    assert not web.errors.records, web.errors.messages()


def test_a_direct_link_opens_the_game_or_the_invitation_it_names(
    tg: FakeTelegram, web: BotRunner, desktop: Page
) -> None:
    assert web.webapp is not None
    invite = Invite(new_id(12), "short", Person(6, "Frank"))

    async def put(d: Any) -> None:
        await d.storage.rooms.put_invite(invite)

    web.call(put)
    SimUser(tg, 6, "Frank")
    SimUser(tg, 7, "Gina")
    open_home(desktop, web.webapp.url, init_data(7, "Gina"), start_param="i" + invite.token)
    desktop.wait_for_url("**/app/?game=*", timeout=15000)
    wait_drawn(desktop)
    game_id = game_of(desktop.url)
    assert desktop.locator("#panel-top, #panel-bottom").all_text_contents() != []
    desktop.go_back()  # the home again: the link is not followed twice
    wait_home(desktop)
    assert games(desktop) == [game_id]


def test_a_persian_home_runs_right_to_left(tg: FakeTelegram, web: BotRunner, phone: Page) -> None:
    assert web.webapp is not None
    open_home(phone, web.webapp.url, init_data(10, "Sara", lang="fa"))
    assert phone.get_attribute("html", "dir") == "rtl" and phone.get_attribute("html", "lang") == "fa"
    assert phone.text_content("#games-title") == "بازی‌های شما"
    left, right = phone.evaluate(
        "(() => { const r = document.createRange();"
        " r.selectNodeContents(document.getElementById('games-title'));"
        " const b = r.getBoundingClientRect(); return [b.left, b.right]; })()"
    )
    assert right > 300 and left > 150, (left, right)  # the heading's words sit at the right edge


def test_a_forged_or_foreign_init_data_sees_nothing(tg: FakeTelegram, web: BotRunner, desktop: Page) -> None:
    assert web.webapp is not None
    carol = SimUser(tg, 3, "Carol")
    reply_to(carol, "/app")
    forged = init_data(3, "Carol").replace("Carol", "Mallory")
    foreign = init_data(3, "Carol", token="999:OTHER")
    for init in (forged, foreign):
        page = desktop.context.new_page()
        open_home(page, web.webapp.url, init)
        assert "could not prove who you are" in (page.text_content("#note") or "")
        assert games(page) == [] and page.is_hidden("#new-box") and page.is_hidden("#stats-box")
        page.close()


def test_a_quick_match_between_two_homes(
    tg: FakeTelegram, web: BotRunner, desktop: Page, browser: Browser
) -> None:
    assert web.webapp is not None
    SimUser(tg, 8, "Hana")
    SimUser(tg, 9, "Ivan")
    other = browser.new_context().new_page()
    open_home(desktop, web.webapp.url, init_data(8, "Hana"))
    open_home(other, web.webapp.url, init_data(9, "Ivan"))
    seek(desktop, "long", 3, "live")
    assert wait_waiting(desktop).startswith("Looking for an opponent: Long nardy, match to 3")
    desktop.click("#stop-seek")  # cancelled: the form again, and nobody waits
    desktop.wait_for_selector("#quick:not([hidden])", timeout=15000)
    seek(other, "long", 3, "live")
    wait_waiting(other)
    seek(desktop, "long", 3, "live")  # paired at once: its board opens
    desktop.wait_for_url("**/app/?game=*", timeout=15000)
    other.wait_for_url("**/app/?game=*", timeout=15000)  # the waiting home heard it and opened the board
    wait_drawn(desktop)
    wait_drawn(other)
    assert game_of(desktop.url) == game_of(other.url)
    other.context.close()
    assert not web.errors.records, web.errors.messages()


DAY = 24 * 3600.0


def rated_games(web: BotRunner, me: PlayerRef, them: PlayerRef, wins: list[bool], at: float) -> None:
    """Record single games of short nardy between two people, a day apart (each a rated match)."""

    async def put(d: Any) -> None:
        for n, won in enumerate(wins):
            when = at + n * DAY
            players = (me, them) if won else (them, me)
            await d.storage.results.record(
                FinishedGame(
                    f"rg{n}/1",
                    "short",
                    "friend",
                    None,
                    players,
                    0,
                    1,
                    "oin",
                    "played",
                    1,
                    True,
                    0,
                    (1, 0),
                    when,
                ),
                when,
            )

    web.call(put)


def test_the_rating_chart_is_drawn_with_the_players_points_and_a_recent_game_opens_its_review(
    tg: FakeTelegram, web: BotRunner, phone: Page
) -> None:
    assert web.webapp is not None
    rated_games(web, PlayerRef(11, "Kate"), PlayerRef(12, "Leo"), [True, True, False, True], 1_790_000_000.0)
    open_home(phone, web.webapp.url, init_data(11, "Kate"))
    chart = phone.locator('#ratings svg[data-variant="short"]')
    points = chart.locator("polyline").get_attribute("points") or ""
    assert len(points.split()) == 4, points
    ys = [float(p.split(",")[1]) for p in points.split()]
    assert ys[1] < ys[0] and ys[2] > ys[1] and ys[3] < ys[2]  # up, up, down, up: higher is up the chart
    label = chart.get_attribute("aria-label") or ""
    assert label.startswith("Short nardy: rating ") and label == chart.locator("title").text_content()
    assert phone.locator('#ratings svg[data-variant="long"]').count() == 0  # never rated in long
    assert phone.locator("#history a.review").count() == 4
    first = phone.locator("#history a.review").first
    assert "Leo" in (first.text_content() or "")
    first.focus()  # by keyboard
    phone.keyboard.press("Enter")
    phone.wait_for_url("**/app/?review=*", timeout=15000)
    assert "?review=rg3%2F1" in phone.url


def test_a_persian_chart_runs_right_to_left(tg: FakeTelegram, web: BotRunner, phone: Page) -> None:
    assert web.webapp is not None
    rated_games(web, PlayerRef(13, "Mina"), PlayerRef(14, "Nima"), [True, True], 1_790_000_000.0)
    open_home(phone, web.webapp.url, init_data(13, "Mina", lang="fa"))
    points = phone.locator("#ratings polyline").get_attribute("points") or ""
    xs = [float(p.split(",")[0]) for p in points.split()]
    assert xs[0] > xs[1], points  # the first match at the right, as the page reads


def test_invite_a_friend_calls_switch_inline_query_on_a_new_client(
    tg: FakeTelegram, web: BotRunner, desktop: Page
) -> None:
    assert web.webapp is not None
    open_home(desktop, web.webapp.url, init_data(15, "Olga"))
    assert desktop.is_hidden("#invite-format-box")  # the inline cards offer each variant themselves
    desktop.click("#invite")
    desktop.wait_for_function("window.__tg.calls.length > 0", timeout=15000)
    assert telegram_calls(desktop) == [["switchInlineQuery", "", ["users", "groups"]]]
    assert desktop.is_hidden("#invite-sent")


def test_an_old_client_invites_by_a_link_the_friend_opens(
    tg: FakeTelegram, web: BotRunner, desktop: Page, browser: Browser
) -> None:
    assert web.webapp is not None
    SimUser(tg, 16, "Pavel")
    SimUser(tg, 17, "Rita")
    open_home(desktop, web.webapp.url, init_data(16, "Pavel"), version="6.2")  # openTelegramLink, no inline
    desktop.select_option("#invite-format", "long")
    desktop.click("#invite")
    desktop.wait_for_selector("#invite-sent:not([hidden])", timeout=15000)
    link = desktop.input_value("#invite-link")
    assert link.startswith("https://t.me/nardy_test_bot/board?startapp=i"), link
    [(method, share)] = telegram_calls(desktop)
    assert method == "openTelegramLink" and share.startswith("https://t.me/share/url?url=https%3A%2F%2Ft.me")
    friend = browser.new_context().new_page()
    open_home(friend, web.webapp.url, init_data(17, "Rita"), start_param=link.split("startapp=")[1])
    friend.wait_for_url("**/app/?game=*", timeout=15000)
    wait_drawn(friend)
    assert "Pavel" in " ".join(friend.locator("#panel-top, #panel-bottom").all_text_contents())
    friend.context.close()
    assert not web.errors.records, web.errors.messages()


def test_the_back_button_returns_from_a_board_to_the_home(
    tg: FakeTelegram, web: BotRunner, phone: Page
) -> None:
    assert web.webapp is not None
    SimUser(tg, 18, "Sam")
    open_home(phone, web.webapp.url, init_data(18, "Sam"))
    start_computer_game(phone)
    wait_drawn(phone)
    assert ["BackButton.show"] in telegram_calls(phone) and phone.is_hidden("#home-link")
    game_id = game_of(phone.url)
    phone.evaluate("window.__tg.back()")  # Telegram's Back pressed
    wait_home(phone)
    assert "?game=" not in phone.url and games(phone) == [game_id]


def test_outside_telegram_a_home_link_returns_from_a_board_by_keyboard(
    tg: FakeTelegram, web: BotRunner, desktop: Page
) -> None:
    assert web.webapp is not None
    SimUser(tg, 19, "Tom")
    open_home(desktop, web.webapp.url, init_data(19, "Tom"), version=OLD_CLIENT)  # no BackButton
    start_computer_game(desktop)
    wait_drawn(desktop)
    link = desktop.locator("#home-link")
    link.wait_for(state="visible", timeout=15000)
    assert link.text_content() == "← Home"
    link.focus()
    desktop.keyboard.press("Enter")
    wait_home(desktop)
    assert "?game=" not in desktop.url and len(games(desktop)) == 1
