"""Building the Application: one function registers every handler in one readable block."""

from __future__ import annotations

import logging

from telegram import BotCommand
from telegram.ext import AIORateLimiter, Application, ApplicationBuilder, CallbackQueryHandler, CommandHandler

from bot import handlers as h
from bot.config import api_base_url
from bot.flow import ComputerPlayer, DiceSource, SecretDice, engine_computer
from bot.i18n import texts
from bot.storage import Storage

log = logging.getLogger(__name__)

COMMANDS = ("start", "help", "rules", "newgame", "resign", "cancel")


def _descriptions(lang: str) -> list[BotCommand]:
    t = texts(lang)
    about = {
        "start": t.gettext("About the bot"),
        "help": t.gettext("How to play"),
        "rules": t.gettext("Rules of short and long nardy"),
        "newgame": t.gettext("Start a new game"),
        "resign": t.gettext("Resign the current game"),
        "cancel": t.gettext("Withdraw an open game or invitation"),
    }
    return [BotCommand(name, about[name]) for name in COMMANDS]


async def set_commands(app: Application) -> None:  # type: ignore[type-arg]
    """The command menu in English (default) and Russian."""
    await app.bot.set_my_commands(_descriptions("en"))
    await app.bot.set_my_commands(_descriptions("ru"), language_code="ru")


def build_application(
    token: str,
    storage: Storage,
    api_url: str | None = None,
    dice: DiceSource | None = None,
    computer: ComputerPlayer | None = None,
    rate_limiter: AIORateLimiter | None = None,
    poll_timeout: float = 10.0,
) -> Application:  # type: ignore[type-arg]
    """The bot: storage, dice (secrets unless a test scripts them), the computer opponent, every handler."""
    root = api_url or "https://api.telegram.org"
    builder = (
        ApplicationBuilder()
        .token(token)
        .base_url(api_base_url(root))
        .base_file_url(api_base_url(root).removesuffix("/bot") + "/file/bot")
        .rate_limiter(rate_limiter or AIORateLimiter(max_retries=3))
        .concurrent_updates(True)
        .get_updates_read_timeout(poll_timeout + 5)
        .post_init(set_commands)
        .post_shutdown(lambda _app: storage.close())
    )
    app = builder.build()
    app.bot_data["nardy"] = h.Deps(
        storage=storage, dice=dice or SecretDice(), computer=computer or engine_computer()
    )

    app.add_handler(CommandHandler("start", h.start))
    app.add_handler(CommandHandler("help", h.help_command))
    app.add_handler(CommandHandler("rules", h.rules_command))
    app.add_handler(CommandHandler("newgame", h.newgame))
    app.add_handler(CommandHandler("resign", h.resign_command))
    app.add_handler(CommandHandler("cancel", h.cancel_command))
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
    app.add_handler(CallbackQueryHandler(h.on_unknown))
    app.add_error_handler(h.on_error)
    return app
