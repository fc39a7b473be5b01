"""📊 Analysis of a finished game and 💡 hints during one (engine/ai/analysis.py, worked out in the computer's
worker processes: bot/workers/computer.py `think`).

The analysis is asked for by a player of the game; a progress message is sent at once and edited as the
plays are judged (in a private chat after each quarter of the game; in a group, where every edit counts
against Telegram's 20 messages a minute, only when it is done), then becomes the report: each side's
error rate and marks as GNU Backgammon counts them, its worst plays with the better play, and a picture of
the worst play of the game beside the better one. A hint is an alert only the player on turn sees: the
best plays for the dice and the chance to win."""

from __future__ import annotations

import contextlib
import itertools
import logging

from telegram import Bot, CallbackQuery, Update
from telegram.ext import ContextTypes

from bot.i18n import Texts
from bot.model import flow
from bot.model.flow import Refused
from bot.model.table import Table
from bot.service import hints
from bot.service.context import load as load_game
from bot.service.hints import hint_text
from bot.service.reviews import keep_for_review
from bot.storage import StorageError
from bot.telegram import display
from bot.telegram.callbacks import Callback
from bot.telegram.handlers.common import COMPUTER_BUSY, N_, WENT_WRONG, Deps, button, deps
from bot.telegram.handlers.records import ON_ITS_WAY, SENT_PRIVATELY, about, destination, post_and_wait
from bot.views.captions import names
from bot.workers.computer import ComputerBusy, Review, think
from bot.workers.pictures import ComparisonRequest
from engine import Game, Phase, Play, Side
from engine.ai.analysis import Analysis, PlayReview, summarise
from render.replay import game_view
from render.view import MoveMark

log = logging.getLogger(__name__)

PLAYERS_ONLY = N_("Only the players of this game can ask for its analysis.")
CHUNKS = 4  # the game is judged in this many stretches (a progress edit after each, in private chats)
ANALYSE_AGAIN_AFTER = 300.0  # seconds: one analysis of a game per chat in this time
ALERT_LIMIT = 200  # characters Telegram shows in a callback's alert
MESSAGE_LIMIT = 4096


@button
async def on_analyse(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """📊 Analysis: the finished game's plays judged, by a player of the game."""
    d = deps(context)
    table = await load_game(d, cb.game)
    game = flow.finished_game(table, cb.number)
    if table.side_of(query.from_user.id) is None:
        raise Refused(PLAYERS_ONLY)
    chat = destination(query)
    once = f"analyse:{table.id}:{cb.number}:{chat}"
    if not await d.storage.limits.once(once, ANALYSE_AGAIN_AFTER):
        return t.gettext(ON_ITS_WAY)
    d.spawn(analysis_or_apology(d, t, chat, table, game, cb.number, once), f"analysis-{table.id}-{cb.number}")
    return t.gettext(SENT_PRIVATELY, bot=context.bot.username) if query.message is None else None


async def analysis_or_apology(
    d: Deps, t: Texts, chat: int, table: Table, game: Game, number: int, once: str
) -> None:
    """The analysis; if it fails (the analysis workers busy or broken, Redis away), the progress message
    says so and the button works again at once."""
    progress: list[int] = []
    try:
        await run_analysis(d, t, chat, table, game, number, progress)
    except Exception as err:
        log.exception("the analysis of game %s/%s failed", table.id, number)
        line = t.gettext(COMPUTER_BUSY if isinstance(err, ComputerBusy) else WENT_WRONG)
        if progress:
            d.edit_text(chat, progress[0], f"{about(t, table, game, number)}\n{line}")
        else:
            d.say(chat, line)
        with contextlib.suppress(StorageError):
            await d.storage.limits.forget_once(once)


async def run_analysis(
    d: Deps, t: Texts, chat: int, table: Table, game: Game, number: int, progress: list[int]
) -> None:
    """Judge the game in CHUNKS stretches in the analysis workers, editing the progress message (its id
    is put in `progress`), then send the report and the picture of the worst play. Nothing is worked out
    for a chat the progress message could not reach."""
    bot = d.boards.bot
    title = about(t, table, game, number)
    begun = t.gettext("📊 Analysing… {done}%", done=0)
    message_id = await post_and_wait(d, chat, lambda: _say(bot, chat, f"{title}\n{begun}"))
    if message_id is None:
        return
    progress.append(message_id)
    record, turns = game.to_json(), len(game.history)
    bounds = [round(turns * i / CHUNKS) for i in range(CHUNKS + 1)]
    reviews: list[PlayReview] = []
    for i, (start, stop) in enumerate(itertools.pairwise(bounds)):
        if stop > start:
            reviews += await think(d.analysts, Review(record, start, stop))
        if chat > 0 and i < CHUNKS - 1:
            done = t.gettext("📊 Analysing… {done}%", done=round(100 * stop / max(turns, 1)))
            d.edit_text(chat, message_id, f"{title}\n{done}")
    analysis = summarise(game, reviews)
    report = analysis_text(t, table, analysis, title)
    d.edit_text(chat, message_id, report)
    await keep_for_review(d, table.id, number, game, analysis)
    worst = max(analysis.plays, key=lambda r: r.loss, default=None)
    if worst is not None and worst.loss > 0:
        picture = await think(d.analysts, worst_play_request(t, table, game, worst))
        caption = t.gettext(
            "Worst play of the game: {line}", line=review_line(t, names(t, table)[worst.side], worst)
        )
        d.outbox.post(chat, lambda: _photo(bot, chat, picture, caption), "an analysis picture")


async def _say(bot: Bot, chat: int, text: str) -> int | None:
    return await display.say(bot, chat, text)


async def _photo(bot: Bot, chat: int, picture: bytes, caption: str) -> None:
    await display.send_photo(bot, chat, picture, caption)


def review_line(t: Texts, name: str, review: PlayReview) -> str:
    return t.gettext(
        "{turn}. {name} {dice}: {play}; better {best} (−{loss})",
        turn=review.turn,
        name=name,
        dice=f"{review.dice.a}-{review.dice.b}",
        play=str(review.play) or "—",
        best=str(review.best),
        loss=f"{review.loss:.3f}",
    )


def analysis_text(t: Texts, table: Table, analysis: Analysis, title: str) -> str:
    """The report: how it was measured, then each side's figures and worst plays."""
    who = names(t, table)
    lines = [
        t.gettext("📊 Analysis"),
        title,
        "",
        t.gettext(
            "Each play is compared with the computer's best (expert level). The loss is in points of "
            "equity; the error rate is GNU Backgammon's: thousandths of a point lost per play with a "
            "choice (mEMG). Marks: ?! from 0.04, ? from 0.08, ?? from 0.16."
        ),
    ]
    for side, mark in ((Side.WHITE, "⚪"), (Side.BLACK, "⚫")):
        review = analysis.side(side)
        lines += [
            "",
            t.gettext(
                "{mark} {name}: {decisions} plays with a choice, error rate {rate}; "
                "?! {doubtful}, ? {errors}, ?? {blunders}",
                mark=mark,
                name=who[side],
                decisions=review.decisions,
                rate=f"{review.error_rate:.1f}",
                doubtful=review.doubtful,
                errors=review.errors,
                blunders=review.blunders,
            ),
        ]
        lines += ["  " + review_line(t, who[side], worst) for worst in review.worst]
    return "\n".join(lines)[:MESSAGE_LIMIT]


def worst_play_request(t: Texts, table: Table, game: Game, review: PlayReview) -> ComparisonRequest:
    """The picture of a reviewed play: the position after the play made, beside the one after the best."""
    t = t.for_picture()
    at = Game.new(game.game, game.rules.options, game.starter)
    for white_die, black_die in game.opening_rolls:
        at = at.opening_roll(white_die, black_die)
    for turn in game.history[: review.turn - 1]:
        if at.phase is Phase.ROLL:
            at = at.roll(turn.dice.a, turn.dice.b)
        at = at.play(turn.play)
    if at.phase is Phase.ROLL:
        at = at.roll(review.dice.a, review.dice.b)
    who = names(t, table)
    pips = t.gettext("pips")

    def view(play: Play, status: str) -> object:
        after = at.play(play)
        marks = tuple(MoveMark(m.src, m.dst, m.hit) for m in play.moves)
        dice = (review.dice.a, review.dice.b)
        return game_view(
            after, who, pips, status, viewer=review.side, to_move=review.side, dice=dice,
            last_mover=review.side, last_move=marks,
        )  # fmt: skip

    played = t.gettext("Played: {play}", play=str(review.play) or "—")
    better = t.gettext("Better: {play}", play=str(review.best))
    return ComparisonRequest(view(review.play, played), view(review.best, better), (played, better))


@button
async def on_hint(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """💡: the best plays for the player on turn and their chance to win, as an alert only they see."""
    d = deps(context)
    table = await load_game(d, cb.game)
    return hint_text(t, await hints.hint(d, table, query.from_user.id, cb.version), ALERT_LIMIT)
