"""The two fronts composed, above both: the Telegram front (bot/telegram/) and the board page's server
(bot/web/) share one process, one loop and one game service, and neither imports the other.

`with_board_page` adds the page's server to a built Telegram Application as its companion: started with the
bot (a port it cannot take stops the bot's start), its boards' 📲 buttons then link to the page and the bot's
menu button opens the Mini App's home, stopped first when the bot stops. `python -m bot` (bot/__main__.py) and the tests' bot (testkit/fake_telegram/runner.py)
both compose them here."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from telegram import MenuButtonWebApp, WebAppInfo
from telegram.error import TelegramError
from telegram.ext import Application

from bot.config import WebAppConfig
from bot.telegram.app import add_companion, services
from bot.telegram.keyboards import WebAppLinks
from bot.telegram.members import Members
from bot.web.server import WebServer

log = logging.getLogger(__name__)

WEB_STOP = 0.5  # seconds of the bot's stop grace the board page's server gets to close its sockets and stop
MENU_BUTTON = "🎲 Nardy"  # the menu button's text: one for every language (Telegram's default button)


@dataclass(frozen=True, slots=True)
class BoardPage:
    """The board page's server as the Telegram front's companion (bot/telegram/app.py's Companion)."""

    app: Application
    server: WebServer
    config: WebAppConfig

    async def start(self) -> None:
        await self.server.start()
        boards = services(self.app).boards  # the bot's name is known once it is initialized
        boards.links = WebAppLinks(self.config.url, self.app.bot.username, self.config.name)
        await set_menu_button(self.app, self.config.url)

    async def stop(self, timeout: float) -> None:
        await self.server.stop(min(WEB_STOP, timeout))


async def set_menu_button(app: Application, url: str) -> None:
    """The bot's menu button (every private chat's, by default) opens the Mini App's home at `url`; Telegram
    refusing it is logged, and the bot starts all the same (/app and the boards' buttons still open it)."""
    try:
        await app.bot.set_chat_menu_button(menu_button=MenuButtonWebApp(MENU_BUTTON, WebAppInfo(url)))
    except TelegramError as err:
        log.warning("the menu button to the Mini App at %s was refused: %s", url, err)


def with_board_page(app: Application, config: WebAppConfig) -> WebServer:
    """Serve the board page (NARDY_WEBAPP_*) beside the bot `app`: a page's press goes through the bot's own
    services (so it redraws the chat's boards), its sockets sign in with the bot's token and keep its inbound
    limits, a group's members may review its games (getChatMember). The server is returned (not yet started: it
    starts with the bot)."""
    d = services(app)
    server = WebServer.for_bot(d, config, app.bot.token, d.limits)
    server.reviews.member_of = Members(app.bot).member_of  # a group's game is its members' to review
    add_companion(app, BoardPage(app, server, config))
    return server
