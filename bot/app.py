"""Building the Application: one function registers every handler in one readable block."""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

from telegram import BotCommand, Update
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot import handlers as h
from bot.config import api_base_url, claim_after_from_env
from bot.flow import ComputerPlayer, DiceSource, SecretDice, engine_computer
from bot.http_request import AiohttpRequest
from bot.i18n import texts
from bot.storage import Storage, StorageError

log = logging.getLogger(__name__)

# Bot API connections of the aiohttp session (bot/http_request.py); a request waits for a free one.
CONNECTIONS = 32
REQUESTS = "nardy.requests"


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


COMMANDS = ("start", "help", "rules", "newgame", "resign", "cancel", "claim", "forget")


def _descriptions(lang: str) -> list[BotCommand]:
    t = texts(lang)
    about = {
        "start": t.gettext("About the bot"),
        "help": t.gettext("How to play"),
        "rules": t.gettext("Rules of short and long nardy"),
        "newgame": t.gettext("Start a new game"),
        "resign": t.gettext("Resign the current game"),
        "cancel": t.gettext("Withdraw an open game or invitation"),
        "claim": t.gettext("Claim the win from an opponent who stopped moving"),
        "forget": t.gettext("Delete my data"),
    }
    return [BotCommand(name, about[name]) for name in COMMANDS]


async def set_commands(app: Application) -> None:  # type: ignore[type-arg]
    """The command menu in English (default) and Russian."""
    await app.bot.set_my_commands(_descriptions("en"))
    await app.bot.set_my_commands(_descriptions("ru"), language_code="ru")


async def drop_repeated_update(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Telegram may deliver an update twice (to any worker): only the first delivery is handled."""
    try:
        first = await h.deps(context).storage.first_delivery(update.update_id)
    except StorageError:  # handle it: a move is still guarded by its version
        log.warning("could not check update %s for a repeated delivery", update.update_id, exc_info=True)
        return
    if not first:
        log.info("update %s was delivered again; dropped", update.update_id)
        raise ApplicationHandlerStop


async def close_requests(app: Application) -> None:  # type: ignore[type-arg]
    """Close the Bot API sessions when the bot never got as far as starting (PTB only closes started bots)."""
    for request in app.bot_data.get(REQUESTS, ()):
        await request.shutdown()


def build_application(
    token: str,
    storage: Storage,
    api_url: str | None = None,
    dice: DiceSource | None = None,
    computer: ComputerPlayer | None = None,
    rate_limiter: AIORateLimiter | None = None,
    poll_timeout: float = 10.0,
    claim_after: float | None = None,
    clock: Callable[[], float] | None = None,
    drop_repeats: bool = False,
) -> Application:  # type: ignore[type-arg]
    """The bot: storage, dice (secrets unless a test scripts them), the computer opponent, every handler.

    `claim_after` (default: NARDY_CLAIM_AFTER, else 24 h) and `clock` (default time.time) drive the
    claims of abandoned games. `drop_repeats` (webhook workers): an update delivered twice is handled once."""
    root = api_url or "https://api.telegram.org"
    requests = (
        AiohttpRequest(connection_pool_size=CONNECTIONS),
        AiohttpRequest(connection_pool_size=1, read_timeout=poll_timeout + 5),
    )
    builder = (
        ApplicationBuilder()
        .token(token)
        .base_url(api_base_url(root))
        .base_file_url(api_base_url(root).removesuffix("/bot") + "/file/bot")
        .rate_limiter(rate_limiter or AIORateLimiter(max_retries=3))
        .concurrent_updates(True)
        .request(requests[0])
        .get_updates_request(requests[1])
        .post_init(set_commands)
        .post_shutdown(lambda _app: storage.close())
    )
    app = builder.build()
    app.bot_data[REQUESTS] = requests
    app.bot_data["nardy"] = h.Deps(
        storage=storage,
        dice=dice or SecretDice(),
        computer=computer or engine_computer(),
        claim_after=claim_after_from_env() if claim_after is None else claim_after,
        clock=clock or time.time,
    )

    if drop_repeats:
        app.add_handler(TypeHandler(Update, drop_repeated_update), group=-1)
    app.add_handler(CommandHandler("start", h.start))
    app.add_handler(CommandHandler("help", h.help_command))
    app.add_handler(CommandHandler("rules", h.rules_command))
    app.add_handler(CommandHandler("newgame", h.newgame))
    app.add_handler(CommandHandler("resign", h.resign_command))
    app.add_handler(CommandHandler("cancel", h.cancel_command))
    app.add_handler(CommandHandler("claim", h.claim_command))
    app.add_handler(CommandHandler(("forget", "deletedata"), h.forget_command))
    app.add_handler(CallbackQueryHandler(h.on_variant, pattern=r"^v:"))
    app.add_handler(CallbackQueryHandler(h.on_opponent, pattern=r"^o:"))
    app.add_handler(CallbackQueryHandler(h.on_level, pattern=r"^l:"))
    app.add_handler(CallbackQueryHandler(h.on_join, pattern=r"^j:"))
    app.add_handler(CallbackQueryHandler(h.on_cancel_lobby, pattern=r"^x:"))
    app.add_handler(CallbackQueryHandler(h.on_cancel_invite, pattern=r"^xi:"))
    app.add_handler(CallbackQueryHandler(h.on_move, pattern=r"^m:"))
    app.add_handler(CallbackQueryHandler(h.on_undo, pattern=r"^u:"))
    app.add_handler(CallbackQueryHandler(h.on_done, pattern=r"^d:"))
    app.add_handler(CallbackQueryHandler(h.on_resign_answer, pattern=r"^r[yn]:"))
    app.add_handler(CallbackQueryHandler(h.on_rematch, pattern=r"^r:"))
    app.add_handler(CallbackQueryHandler(h.on_claim, pattern=r"^c:"))
    app.add_handler(CallbackQueryHandler(h.on_forget, pattern=r"^f[yn]:"))
    app.add_handler(CallbackQueryHandler(h.on_unknown))
    app.add_handler(MessageHandler(filters.COMMAND & filters.ChatType.PRIVATE, h.unknown_command))
    app.add_error_handler(h.on_error)
    return app
