"""Building the Application: one function registers every handler in one readable block."""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable
from typing import Protocol

from telegram import BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats, Update
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    BaseRateLimiter,
    CallbackQueryHandler,
    ChosenInlineResultHandler,
    CommandHandler,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.config import (
    api_base_url,
    claim_after_from_env,
    reminders_from_env,
    seek_timeout_from_env,
)
from bot.i18n import LANGUAGES, texts
from bot.model.flow import ComputerPlayer, DiceSource, FairDice, engine_computer
from bot.service.rates import Limits
from bot.service.settings import SettingsCache
from bot.storage import Storage
from bot.telegram.boards import HEAL_EVERY, RETRY_FIRST, Boards
from bot.telegram.handlers import (
    analysis,
    board,
    claims,
    clocks,
    commands,
    fairness,
    forget,
    gate,
    inline,
    menus,
    quickmatch,
    records,
    settings,
    stats,
    tournaments,
)
from bot.telegram.handlers.common import Deps, on_error
from bot.telegram.http_request import AiohttpRequest
from bot.telegram.outbox import Outbox
from bot.telegram.rate_limit import ChatRateLimiter
from bot.telegram.reminders import Reminders
from bot.workers.computer import ComputerProcesses

log = logging.getLogger(__name__)

# Bot API connections of the aiohttp session (bot/telegram/http_request.py); a request waits for a free one.
CONNECTIONS = 32
REQUESTS = "nardy.requests"
STOP_GRACE = 1.0  # seconds the bot's own work gets to end when it stops (on_stop)
REMINDERS = "nardy.reminders"
SWEEPER = (
    "nardy.sweeper"  # ends quick-match searches that waited too long (bot/telegram/handlers/quickmatch.py)
)
CLOCKS = "nardy.clocks"  # live games' flags and warnings (bot/telegram/handlers/clocks.py)
# tournaments moved on, their cards (bot/telegram/handlers/tournaments.py)
TOURNEYS = tournaments.TOURNEYS_KEY
COMPANIONS = (
    "nardy.companions"  # what runs beside the bot in its loop (add_companion: the board page's server)
)
# The updates the bot handles: no edited messages (an edited "/resign" must not resign again), no
# channel posts, polls or member changes.
ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY, Update.INLINE_QUERY, Update.CHOSEN_INLINE_RESULT]


def new_event_loop() -> asyncio.AbstractEventLoop:
    """The loop the bot runs on: uvloop's where it is installed (Linux, macOS), asyncio's elsewhere.

    uvloop's libuv transports and scheduler cost the bot's process about a quarter less CPU per move
    (`python bench/load.py`: 5.4 -> 3.6-4.5 ms per move, 167 -> 194-238 moves/s on two cores)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def settle_heap() -> None:
    """Once started: what the bot holds for good (modules, catalogs, tables) leaves the cyclic garbage
    collector's view, which full collections then skip. Under load (`python bench/load.py --rate 200`)
    a full collection held the event loop 50-80 ms every few seconds; after this, 15-45 ms. (Frozen
    objects are still freed by reference counting; only a cycle among them would stay in memory.)"""
    gc.collect()
    gc.freeze()


PRIVATE_COMMANDS = (
    "newgame",
    "resign",
    "cancel",
    "claim",
    "stats",
    "top",
    "history",
    "settings",
    "verify",
    "export",
    "seed",
    "rules",
    "help",
    "forget",
    "start",
)
GROUP_COMMANDS = (
    "newgame",
    "tournament",
    "resign",
    "cancel",
    "claim",
    "stats",
    "top",
    "history",
    "verify",
    "export",
    "rules",
    "help",
)


class Companion(Protocol):
    """A part that runs beside the Telegram front, in its process and loop, composed with it from above
    (bot/app.py: the board page's server): started first when the bot starts (a failed start stops the
    bot's start), stopped first when it stops, with `timeout` seconds of STOP_GRACE's share left."""

    async def start(self) -> None: ...

    async def stop(self, timeout: float) -> None: ...


def add_companion(app: Application, companion: Companion) -> None:
    """Start and stop `companion` with the bot (in the order added)."""
    app.bot_data.setdefault(COMPANIONS, []).append(companion)


def companions(app: Application) -> list[Companion]:
    found: list[Companion] = app.bot_data.get(COMPANIONS, [])
    return found


def command_menu(lang: str, names: tuple[str, ...]) -> list[BotCommand]:
    """The command menu of a scope in one language."""
    t = texts(lang)
    about = {
        "start": t.gettext("About the bot"),
        "help": t.gettext("How to play"),
        "rules": t.gettext("Rules of short and long nardy"),
        "newgame": t.gettext("Start a new game"),
        "tournament": t.gettext("A tournament for the group"),
        "resign": t.gettext("Resign the current game"),
        "cancel": t.gettext("Withdraw an open game or invitation"),
        "claim": t.gettext("Claim the win from an opponent who stopped moving"),
        "forget": t.gettext("Delete my data"),
        "settings": t.gettext("Language, confirming turns, board colours"),
        "verify": t.gettext("Check a game's dice"),
        "export": t.gettext("A finished game's record as a file"),
        "seed": t.gettext("My own seed for the dice"),
        "stats": t.gettext("My statistics and rating (in a group: reply to someone for theirs)"),
        "top": t.gettext("Leaderboard: this group's, or the global one in private"),
        "history": t.gettext("My last games"),
    }
    return [BotCommand(name, about[name]) for name in names]


def descriptions(lang: str) -> tuple[str, str]:
    """The bot's description (shown in an empty chat) and short description (its profile), in `lang`."""
    t = texts(lang)
    return (
        t.gettext(
            "Short nardy (backgammon) and long nardy in Telegram: against the computer (three levels), "
            "with a friend by an invitation link, or in a group where anyone can join. Boards are pictures "
            "updated in place; moves are buttons that offer only legal moves. Press Start, then /newgame."
        ),
        t.gettext("Short and long nardy (backgammon): play the computer, a friend, or your group."),
    )


async def publish_profile(app: Application) -> None:
    """The command menus (private chats, groups) and the descriptions, in English (the default) and in each
    other language of i18n.LANGUAGES (Telegram shows a user the one of their language_code)."""
    bot = app.bot
    for lang in LANGUAGES:
        code = None if lang == "en" else lang
        await bot.set_my_commands(command_menu(lang, PRIVATE_COMMANDS), language_code=code)
        await bot.set_my_commands(
            command_menu(lang, PRIVATE_COMMANDS), scope=BotCommandScopeAllPrivateChats(), language_code=code
        )
        await bot.set_my_commands(
            command_menu(lang, GROUP_COMMANDS), scope=BotCommandScopeAllGroupChats(), language_code=code
        )
        description, short = descriptions(lang)
        await bot.set_my_description(description, language_code=code)
        await bot.set_my_short_description(short, language_code=code)


async def on_start(app: Application) -> None:
    """Once the bot runs: its companions (the board page's server, if configured: a port it cannot take stops
    the start), its profile, then the board healer (which first redraws every marked board)."""
    for companion in companions(app):
        await companion.start()
    try:
        await publish_profile(app)
    except TelegramError as err:  # the menus are a nicety: the bot works without them
        log.warning("could not set the command menus and descriptions: %s", err)
    services(app).boards.start()
    app.bot_data[REMINDERS].start()
    app.bot_data[SWEEPER].start()
    app.bot_data[CLOCKS].start()
    app.bot_data[TOURNEYS].start()


async def on_stop(app: Application) -> None:
    """Before the bot stops: boards being drawn and queued messages get STOP_GRACE seconds in all to go out
    (a board not drawn stays marked in Redis and is drawn at the next start), so that the bot stops in time
    (bot/telegram/serve.py) whatever Telegram and Redis do."""
    d = services(app)
    loop = asyncio.get_running_loop()
    until = loop.time() + STOP_GRACE

    def left() -> float:
        return max(0.05, until - loop.time())

    for companion in companions(
        app
    ):  # first: no page presses while the rest stops (each page connects again)
        await companion.stop(left())
    await app.bot_data[REMINDERS].stop(left())  # first: a reminder it takes still goes out through the outbox
    await app.bot_data[SWEEPER].stop(left())  # likewise a search it ends
    await app.bot_data[CLOCKS].stop(left())  # likewise a flag or a warning
    await app.bot_data[TOURNEYS].stop(left())  # likewise a tournament's step
    await d.boards.stop(left() / 3)  # its three waits (the healer, the jobs, the jobs cancelled)
    await d.outbox.close(left() / 2)  # its two waits (the sends, the sends cancelled)


def services(app: Application) -> Deps:
    found = app.bot_data["nardy"]
    assert isinstance(found, Deps)
    return found


async def close_requests(app: Application) -> None:
    """Close the Bot API sessions when the bot never got as far as starting (PTB only closes started bots)."""
    for request in app.bot_data.get(REQUESTS, ()):
        await request.shutdown()


def build_application(
    token: str,
    storage: Storage,
    api_url: str | None = None,
    dice: DiceSource | None = None,
    computer: ComputerPlayer | None = None,
    rate_limiter: BaseRateLimiter | None = None,
    poll_timeout: float = 10.0,
    claim_after: float | None = None,
    clock: Callable[[], float] | None = None,
    clocks_every: float | None = None,
    drop_repeats: bool = False,
    limits: Limits | None = Limits(),  # noqa: B008 - a frozen value
    heal_every: float | None = None,
    request_timeout: float = 5.0,
    board_retry: float | None = None,
    remind_after: float | None = None,
    reminders_per_game: int | None = None,
    media_chat: int | None = None,
    seek_timeout: float | None = None,
    analysts: ComputerProcesses | None = None,
) -> Application:
    """The bot: storage, dice (secrets unless a test scripts them), the computer opponent, every handler.

    `claim_after` (default: NARDY_CLAIM_AFTER, else 24 h) and `clock` (default time.time) drive the
    claims of abandoned games. `drop_repeats` (webhook workers): an update delivered twice is handled once.
    `limits`: inbound limits per user and chat (None: off). `heal_every`: seconds between two looks for
    boards left behind; `board_retry`: seconds before a failed board is first tried again (doubling).
    `request_timeout`: seconds to wait for a Bot API answer (uploads: four times it). `remind_after` and
    `reminders_per_game` (default: NARDY_REMIND_AFTER, NARDY_REMINDERS_PER_GAME): turn reminders. `media_chat`
    (NARDY_MEDIA_CHAT_ID): where inline games' pictures are uploaded; None: no inline games. `seek_timeout`
    (default: NARDY_SEEK_TIMEOUT, else 300 s): how long a quick-match search waits for an opponent.
    `analysts`: the computer worker processes that also work out analyses and hints (None: a thread).
    The board page's server is no part of it: bot/app.py adds it as a companion (add_companion)."""
    root = api_url or "https://api.telegram.org"
    requests = (
        AiohttpRequest(
            connection_pool_size=CONNECTIONS,
            read_timeout=request_timeout,
            media_write_timeout=4 * request_timeout,
        ),
        AiohttpRequest(connection_pool_size=1, read_timeout=poll_timeout + 5),
    )
    builder = (
        ApplicationBuilder()
        .token(token)
        .base_url(api_base_url(root))
        .base_file_url(api_base_url(root).removesuffix("/bot") + "/file/bot")
        .rate_limiter(rate_limiter or ChatRateLimiter(unlimited=() if media_chat is None else (media_chat,)))
        .concurrent_updates(True)
        .request(requests[0])
        .get_updates_request(requests[1])
        .post_init(on_start)
        .post_stop(on_stop)
        .post_shutdown(lambda _app: storage.close())
    )
    app = builder.build()
    app.bot_data[REQUESTS] = requests
    outbox = Outbox()
    boards = Boards(
        app.bot,
        storage,
        heal_every=HEAL_EVERY if heal_every is None else heal_every,
        retry_first=RETRY_FIRST if board_retry is None else board_retry,
        media_chat=media_chat,
    )
    env_after, env_count = (
        reminders_from_env() if remind_after is None or reminders_per_game is None else (0.0, 0)
    )
    reminders = Reminders(
        app.bot,
        storage,
        outbox,
        env_after if remind_after is None else remind_after,
        env_count if reminders_per_game is None else reminders_per_game,
    )
    storage.games.remind_after = (
        reminders.remind_after if reminders.on else 0.0
    )  # each save schedules its reminder
    app.bot_data[REMINDERS] = reminders
    app.bot_data["nardy"] = Deps(
        storage=storage,
        dice=dice or FairDice(),
        computer=computer or engine_computer(),
        boards=boards,
        outbox=outbox,
        settings=SettingsCache(storage),
        limits=limits,
        media_chat=media_chat,
        claim_after=claim_after_from_env() if claim_after is None else claim_after,
        seek_timeout=seek_timeout_from_env() if seek_timeout is None else seek_timeout,
        clock=clock or time.time,
        analysts=analysts,
    )
    d = app.bot_data["nardy"]
    boards.unreachable = lambda table, target: claims.player_unreachable(d, table, target)
    boards.settings = d.settings  # private boards are drawn in their player's language and colours
    d.tell_search = lambda news: quickmatch.told(d, news)  # how a quick-match search went (bot/service/)
    app.bot_data[SWEEPER] = quickmatch.Sweeper(d)
    app.bot_data[CLOCKS] = clocks.Clocks(d) if clocks_every is None else clocks.Clocks(d, clocks_every)
    app.bot_data[TOURNEYS] = tournaments.Tourneys(d)

    if drop_repeats:
        app.add_handler(TypeHandler(Update, gate.drop_repeated_update), group=-2)
    app.add_handler(TypeHandler(Update, gate.limit_inbound), group=-1)
    only_new = filters.UpdateType.MESSAGE  # an edited command message does nothing
    app.add_handler(CommandHandler("start", commands.start, filters=only_new))
    app.add_handler(CommandHandler("help", commands.help_command, filters=only_new))
    app.add_handler(CommandHandler("rules", commands.rules_command, filters=only_new))
    app.add_handler(CommandHandler("app", commands.app_command, filters=only_new))
    app.add_handler(CommandHandler("newgame", commands.newgame, filters=only_new))
    app.add_handler(CommandHandler("tournament", tournaments.tournament_command, filters=only_new))
    app.add_handler(CommandHandler("resign", commands.resign_command, filters=only_new))
    app.add_handler(CommandHandler("cancel", commands.cancel_command, filters=only_new))
    app.add_handler(CommandHandler("claim", claims.claim_command, filters=only_new))
    app.add_handler(CommandHandler("settings", settings.settings_command, filters=only_new))
    app.add_handler(CommandHandler("seed", fairness.seed_command, filters=only_new))
    app.add_handler(CommandHandler("verify", fairness.verify_command, filters=only_new))
    app.add_handler(CommandHandler("export", records.export_command, filters=only_new))
    app.add_handler(CommandHandler(("forget", "deletedata"), forget.forget_command, filters=only_new))
    app.add_handler(CommandHandler("stats", stats.stats_command, filters=only_new))
    app.add_handler(CommandHandler("top", stats.top_command, filters=only_new))
    app.add_handler(CommandHandler("history", stats.history_command, filters=only_new))
    app.add_handler(CallbackQueryHandler(menus.on_variant, pattern=r"^v:"))
    app.add_handler(CallbackQueryHandler(menus.on_variant_cube, pattern=r"^vc:"))
    app.add_handler(CallbackQueryHandler(menus.on_opponent, pattern=r"^o:"))
    app.add_handler(CallbackQueryHandler(menus.on_level, pattern=r"^l:"))
    app.add_handler(CallbackQueryHandler(menus.on_join, pattern=r"^j:"))
    app.add_handler(CallbackQueryHandler(menus.on_cancel_lobby, pattern=r"^x:"))
    app.add_handler(CallbackQueryHandler(menus.on_cancel_invite, pattern=r"^xi:"))
    app.add_handler(CallbackQueryHandler(quickmatch.on_find, pattern=r"^qm:"))
    app.add_handler(CallbackQueryHandler(tournaments.on_menu, pattern=r"^tn:"))
    app.add_handler(CallbackQueryHandler(tournaments.on_join, pattern=r"^tj:"))
    app.add_handler(CallbackQueryHandler(tournaments.on_leave, pattern=r"^tl:"))
    app.add_handler(CallbackQueryHandler(tournaments.on_start, pattern=r"^ts:"))
    app.add_handler(CallbackQueryHandler(tournaments.on_cancel, pattern=r"^tx:"))
    app.add_handler(CallbackQueryHandler(quickmatch.on_stop, pattern=r"^qs:"))
    app.add_handler(CallbackQueryHandler(board.on_move, pattern=r"^mm?:"))
    app.add_handler(CallbackQueryHandler(board.on_play, pattern=r"^p:"))
    app.add_handler(CallbackQueryHandler(board.on_undo, pattern=r"^u:"))
    app.add_handler(CallbackQueryHandler(board.on_done, pattern=r"^d:"))
    app.add_handler(CallbackQueryHandler(board.on_resign_answer, pattern=r"^r[ynm]:"))
    app.add_handler(CallbackQueryHandler(board.on_cube, pattern=r"^c[rdtp]:"))
    app.add_handler(CallbackQueryHandler(board.on_rematch, pattern=r"^r:"))
    app.add_handler(CallbackQueryHandler(claims.on_claim, pattern=r"^c:"))
    app.add_handler(CallbackQueryHandler(forget.on_forget, pattern=r"^f[yn]:"))
    app.add_handler(CallbackQueryHandler(settings.on_setting, pattern=r"^s:"))
    app.add_handler(CallbackQueryHandler(records.on_export, pattern=r"^gx:"))
    app.add_handler(CallbackQueryHandler(records.on_replay, pattern=r"^gr:"))
    app.add_handler(CallbackQueryHandler(analysis.on_analyse, pattern=r"^ga:"))
    app.add_handler(CallbackQueryHandler(analysis.on_hint, pattern=r"^h:"))
    app.add_handler(InlineQueryHandler(inline.on_inline_query))
    app.add_handler(ChosenInlineResultHandler(inline.on_chosen_result))
    app.add_handler(CallbackQueryHandler(inline.on_accept, pattern=r"^ia:"))
    app.add_handler(CallbackQueryHandler(inline.on_cancel_challenge, pattern=r"^ix:"))
    app.add_handler(CallbackQueryHandler(inline.on_inline_menu, pattern=r"^im:"))
    app.add_handler(CallbackQueryHandler(inline.on_inline_back, pattern=r"^ib:"))
    app.add_handler(CallbackQueryHandler(board.on_unknown))
    app.add_handler(
        MessageHandler(
            filters.UpdateType.MESSAGE & filters.COMMAND & filters.ChatType.PRIVATE, commands.unknown_command
        )
    )
    app.add_error_handler(on_error)
    return app
