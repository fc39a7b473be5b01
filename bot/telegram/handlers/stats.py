"""/stats, /top and /history: a player's statistics and rating chart, the leaderboards, the last games.

The figures are bot/model/stats.py's (recorded when games end); the chart is render/stats.py's, drawn in a thread.
/stats in a private chat: your own; in a group, in reply to someone's message: theirs, else your own.
/top in a group: that chat's leaderboard per variant; in private: the global one (players with at least
stats.MIN_RATED_MATCHES rated matches who did not hide in /settings). /history: your last games."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from telegram import Update, User
from telegram.constants import ChatType
from telegram.ext import ContextTypes

from bot.i18n import Texts
from bot.model import stats
from bot.model.stats import TopEntry
from bot.service.settings import current
from bot.telegram import display
from bot.telegram.handlers.common import Deps, command, deps, user_texts
from bot.telegram.names import user_name
from bot.views.stats_lines import VARIANT_NAMES, history_line, stats_text
from render.stats import ChartTexts, Series, rating_chart
from render.theme import DEFAULT_THEME

CAPTION_LIMIT = 1024  # Telegram's limit on a photo's caption
TOP_SIZE = 10  # players shown per leaderboard
HISTORY_SIZE = 10  # games shown by /history


def chart(
    t: Texts, name: str, histories: Sequence[tuple[str, tuple[stats.RatingPoint, ...]]], theme: str
) -> bytes:
    t = t.for_picture()
    series = [
        Series(t.gettext(VARIANT_NAMES[variant]), tuple((p.at, p.rating) for p in points))
        for variant, points in histories
        if points
    ]
    words = ChartTexts(
        t.gettext("Rating of {name}", name=name),
        t.gettext("date"),
        t.gettext("rating"),
        t.gettext("No rated matches yet"),
    )
    return rating_chart(series, words, theme)


def _whose(update: Update) -> User:
    """Whose /stats: in a group, the author of the message replied to (a person); else the sender."""
    message, user = update.effective_message, update.effective_user
    assert message is not None and user is not None
    replied = message.reply_to_message
    if message.chat.type == ChatType.PRIVATE or replied is None or replied.from_user is None:
        return user
    return user if replied.from_user.is_bot else replied.from_user


@command
async def stats_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/stats: a player's statistics per variant and a picture of their rating over time."""
    t = user_texts(update)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    d = deps(context)
    who = _whose(update)
    results = d.storage.results
    found = await results.stats_of(who.id)
    name = user_name(who)
    text = stats_text(t, name, found)
    histories = [(v, await results.rating_history(who.id, v)) for v in stats.VARIANTS]
    if not any(points for _, points in histories):
        d.say(chat.id, text)
        return
    chosen = current(user.id)
    theme = chosen.theme if chosen is not None and chat.type == ChatType.PRIVATE else DEFAULT_THEME
    picture = await asyncio.to_thread(chart, t, name, histories, theme)
    send_picture(d, chat.id, picture, text)


def send_picture(d: Deps, chat_id: int, picture: bytes, text: str) -> None:
    """The picture with `text` as its caption, or (a text over Telegram's caption limit) the text first."""
    bot = d.boards.bot
    caption: str | None = text
    if len(text) > CAPTION_LIMIT:
        d.say(chat_id, text)
        caption = None
    d.outbox.post(chat_id, lambda: display.send_photo(bot, chat_id, picture, caption), "a rating chart")


def board_lines(t: Texts, entries: Sequence[TopEntry]) -> list[str]:
    return [
        t.gettext(
            "{place}. {name} — {rating} (games {games}, wins {wins})",
            place=place,
            name=e.name,
            rating=round(e.rating),
            games=e.games,
            wins=e.wins,
        )
        for place, e in enumerate(entries, 1)
    ]


def top_text(t: Texts, boards: Sequence[tuple[str, Sequence[TopEntry]]], group: bool) -> str:
    """What /top says: a title and a board per variant."""
    if group:
        title = t.gettext("🏆 Leaderboard of this chat")
        if not any(entries for _, entries in boards):
            return t.gettext("🏆 Nobody here has finished a game against another person yet: /newgame.")
    else:
        title = t.gettext(
            "🏆 Global leaderboard (players with at least {n} rated matches)", n=stats.MIN_RATED_MATCHES
        )
    lines = [title]
    for variant, entries in boards:
        lines += ["", t.gettext(VARIANT_NAMES[variant]) + ":"]
        lines += board_lines(t, entries) if entries else [t.gettext("nobody yet")]
    return "\n".join(lines)


@command
async def top_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/top: the chat's leaderboard in a group, the global one in private."""
    t = user_texts(update)
    chat = update.effective_chat
    assert chat is not None
    d = deps(context)
    results = d.storage.results
    group = chat.type != ChatType.PRIVATE
    boards = [
        (
            v,
            await (results.top_of_chat(chat.id, v, TOP_SIZE) if group else results.top_global(v, TOP_SIZE)),
        )
        for v in stats.VARIANTS
    ]
    d.say(chat.id, top_text(t, boards, group))


@command
async def history_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/history: the sender's last games."""
    t = user_texts(update)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    d = deps(context)
    games = await d.storage.results.history_of(user.id, HISTORY_SIZE)
    if not games:
        d.say(chat.id, t.gettext("🕑 {name}, you have no finished games yet.", name=user_name(user)))
        return
    lines = [t.gettext("🕑 Last games of {name}:", name=user_name(user)), ""]
    lines += [history_line(t, e) for e in games]
    d.say(chat.id, "\n".join(lines))
