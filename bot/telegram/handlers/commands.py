"""Commands: /start, /help, /rules, /newgame, /resign, /cancel, and the answer to unknown commands."""

from __future__ import annotations

import logging

from telegram import InlineKeyboardMarkup, ReplyParameters, Update
from telegram.constants import ChatType
from telegram.error import BadRequest, TelegramError
from telegram.ext import ContextTypes

from bot.i18n import Texts, texts
from bot.model.flow import Refused
from bot.model.table import Table
from bot.telegram import button_homes
from bot.telegram.handlers import tournaments
from bot.telegram.handlers.common import GAME_ON, N_, Deps, active_game, command, deps, person, user_texts
from bot.telegram.handlers.inline import START_PARAMETER
from bot.telegram.handlers.menus import accept_invite
from bot.telegram.handlers.quickmatch import STOPPED, stop_search
from bot.telegram.keyboards import resign_markup, variant_menu
from bot.views.captions import clock_words

log = logging.getLogger(__name__)

REPOINT_EVERY = 30.0  # seconds: /newgame during a game points to its board at most this often per chat

RULES_TEXT = N_(
    "Short nardy (backgammon): 15 checkers each, moving in opposite directions. A single checker can be "
    "hit and goes to the bar; it must enter before anything else moves. A point with two or more of the "
    "opponent's checkers is closed. Bring all checkers home, then bear them off.\n\n"
    "Long nardy: all 15 checkers start on the head and both players move the same way round. There is no "
    "hitting: one checker of the opponent closes a point. Only one checker leaves the head per turn "
    "(except 6-6, 4-4 or 3-3 on the first turn). You may not build six points in a row unless an opponent's "
    "checker is already ahead of them.\n\n"
    "Both games: use both dice if you can (doubles count four times); if only one can be played, play the "
    "larger if possible. Scores: oin 1 point; mars 2 (the loser bore off nothing); in short nardy koks 3 "
    "(the loser also has a checker on the bar or in the winner's home)."
)
MATCH_RULES = N_(
    "Matches: /newgame offers one game or a match to 3, 5 or 7 points; each game's points go to its "
    "winner, the next game starts by itself, and the first to reach the length wins the match.\n\n"
    "The doubling cube (short nardy only, if chosen): before rolling you may double the stakes if the "
    "cube is in the middle or yours; your opponent takes (the cube is then theirs) or passes and loses "
    "the cube's value. A game's points are multiplied by the cube. In a match there is no doubling in "
    "the Crawford game (the one after a player first needs just one point) and no double past what the "
    "match needs. Long nardy is played without the cube."
)
CLOCK_RULES = N_(
    "Clocks for live play (/newgame's ⏱ button: {live}; {blitz}): each player has a reserve of time for the "
    "whole game or match, and a delay for each move that is used first: a move made within the delay costs "
    "nothing. Your clock runs from the moment your dice are shown (or a double is offered to you) to your "
    "last press of the move. When the delay and the reserve are used up you lose: the whole match, or the "
    "single game as if you had resigned it. You get one private warning 20 seconds before. Games against "
    "the computer have no clock; without a clock, an idle player's opponent may claim the game after a day."
)


def help_text(t: Texts) -> str:
    listed, _, how = _help(t).partition("\n\n")  # the commands, then how to play
    settings = t.gettext(
        "/settings: your language, board colours, and whether a turn waits for ✅ Done (by default "
        "not in groups: there the last move ends it)"
    )
    fair = t.gettext(
        "/verify: check a game's dice: they follow from a secret seed, committed to when the game starts "
        "and revealed when it ends, and from the players' seeds (/seed: your own)"
    )
    after = t.gettext(
        "/export: a finished game's record as a file (GNU Backgammon's .mat for short nardy; txt or json). "
        "Under a finished board: 📄 Record, 🎞 Replay and 📊 Analysis; during a turn 💡 shows the best play"
    )
    onward = t.gettext(
        "A button like 13→7→6 moves one checker with both dice in one press; when a turn has only a few "
        "possible plays, each is one button (13→8 13→10)."
    )
    competition = t.gettext(
        "/stats: your rating, results and a picture of your rating (in a group, in reply to someone: "
        "theirs); /top: the best players here (in private: everywhere); /history: your last games"
    )
    return f"{listed}\n{settings}\n{fair}\n{after}\n{competition}\n\n{how} {onward}"


def _help(t: Texts) -> str:
    return t.gettext(
        "/newgame: start a game (in a group: anyone can join; here: the computer or a friend)\n"
        "/resign: give up the current game\n"
        "/cancel: withdraw an open game or invitation\n"
        "/claim: claim the win when your opponent has not moved for a long time\n"
        "/forget: delete your data from the bot\n"
        "/rules: the rules of both games\n\n"
        "On your turn, press the buttons under the board: each one moves a checker (13→7; ⌂ bears off). "
        "↩ Undo takes a move back, ✅ Done ends the turn. Moves that are forced are played by themselves."
    )


@command
async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/start, and /start <token> from an invitation link (`inline`, from inline mode's button: a plain /start)."""
    t = user_texts(update)
    assert update.effective_chat is not None and update.effective_user is not None
    if (
        context.args
        and tournaments.is_tourney_link(context.args[0])
        and update.effective_chat.type == ChatType.PRIVATE
    ):
        await tournaments.join_from_link(
            update, context, context.args[0].removeprefix(tournaments.START_PREFIX)
        )
        return
    if context.args and context.args[0] != START_PARAMETER and update.effective_chat.type == ChatType.PRIVATE:
        await accept_invite(update, context, context.args[0])
        return
    deps(context).say(
        update.effective_chat.id,
        t.gettext(
            "Hello! I am a nardy bot: short nardy (backgammon) and long nardy, with a friend "
            "or against the computer."
        )
        + "\n\n"
        + help_text(t),
    )


@command
async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/help: how to play, in a few lines."""
    assert update.effective_chat is not None
    deps(context).say(update.effective_chat.id, help_text(user_texts(update)))


@command
async def unknown_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A command the bot does not know (private chats only: groups are left in peace)."""
    assert update.effective_chat is not None
    deps(context).say(
        update.effective_chat.id,
        user_texts(update).gettext("I don't know that command. /help lists what I can do."),
    )


APP_TEXT = N_("Your games, a new game against the computer and your statistics, in the Mini App:")
APP_OFF = N_("This bot has no Mini App.")


@command
async def app_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/app: a button that opens the Mini App's home (a web_app button in private, a Direct Link in groups)."""
    chat = update.effective_chat
    assert chat is not None
    t = user_texts(update)
    d = deps(context)
    links = d.boards.links
    button = links.home_button(t, chat.type == ChatType.PRIVATE) if links is not None else None
    if button is None:
        d.say(chat.id, t.gettext(APP_OFF))
        return
    d.say(chat.id, t.gettext(APP_TEXT), InlineKeyboardMarkup([[button]]))


@command
async def rules_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/rules: both games in brief."""
    assert update.effective_chat is not None
    t = user_texts(update)
    clocks = t.gettext(CLOCK_RULES, live=clock_words(t, "live"), blitz=clock_words(t, "blitz"))
    deps(context).say(
        update.effective_chat.id,
        t.gettext(RULES_TEXT) + "\n\n" + t.gettext(MATCH_RULES) + "\n\n" + clocks,
    )


@command
async def newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/newgame: the variant menu; during a game, a pointer to its board; with another person's open
    lobby in the group, a pointer to that lobby (at most once per REPOINT_EVERY seconds per chat)."""
    t = user_texts(update)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    d = deps(context)
    table = await active_game(d.storage, chat.id)
    if table is not None:
        await point_to_board(d, t, table, chat.id)
        return
    if chat.type != ChatType.PRIVATE:
        lobby = await d.storage.rooms.lobby(chat.id)
        if lobby is not None and lobby.starter.user_id != user.id:
            if await d.storage.limits.once(f"repoint:{chat.id}", REPOINT_EVERY):
                d.say(
                    chat.id,
                    t.gettext(
                        "{name} is waiting for an opponent: press Join to play.", name=lobby.starter.name
                    ),
                    reply_to=lobby.message_id,
                )
            return
    d.say(chat.id, t.gettext("Which game?"), variant_menu(t, user.id), home=button_homes.menu(user.id))


async def point_to_board(d: Deps, t: Texts, table: Table, chat_id: int) -> None:
    """Say that a game is on, as a reply to its board in this chat (at most once per REPOINT_EVERY seconds);
    a board that was deleted is drawn again as a new message."""
    target = next((x for x in table.targets if x.chat_id == chat_id), None)
    if target is not None and table.behind(target):  # e.g. its player had blocked the bot: draw it now
        d.boards.show(table)
    if not await d.storage.limits.once(f"repoint:{chat_id}", REPOINT_EVERY):
        return
    message_id = None if target is None else table.messages.get(target.key)
    text = t.gettext(GAME_ON)
    bot = d.boards.bot

    async def send() -> None:
        if target is None or message_id is None:
            d.boards.redraw(table.id)
            await bot.send_message(chat_id=chat_id, text=text)
            return
        try:
            await bot.send_message(chat_id=chat_id, text=text, reply_parameters=ReplyParameters(message_id))
        except BadRequest as err:
            if "not found" not in err.message.lower():
                raise
            log.info("game %s: board %s in chat %s is gone; drawing it again", table.id, message_id, chat_id)
            await d.storage.games.drop_message(table.id, target.key)
            d.boards.redraw(table.id)
            await bot.send_message(chat_id=chat_id, text=text)
        except TelegramError as err:
            log.warning("chat %s: could not point to the board: %s", chat_id, err)

    d.outbox.post(chat_id, send, "a pointer to the board")


@command
async def resign_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/resign: ask for confirmation."""
    t = user_texts(update)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    d = deps(context)
    table = await active_game(d.storage, chat.id)
    if table is None:
        raise Refused("There is no game going on here.")
    if table.side_of(user.id) is None:
        raise Refused("You are not playing in this game.")
    d.say(
        chat.id,
        t.gettext("{name}, do you really want to resign this game?", name=person(user).name),
        resign_markup(t, table.id, table.number, user.id, match=table.match.is_match),
        home=button_homes.resign(table.id, user.id),
    )


@command
async def cancel_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/cancel: withdraw your open lobby (group); in a private chat stop your quick-match search, else
    withdraw your invitation."""
    t = user_texts(update)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    d = deps(context)
    if chat.type == ChatType.PRIVATE:
        if await stop_search(d, user.id):  # its waiting message says so too
            d.say(chat.id, t.gettext(STOPPED))
            return
        invite = await d.storage.rooms.cancel_invite(user.id)
        if invite is None:
            raise Refused("You have no open invitation.")
        if invite.message_id is not None:
            d.edit_text(chat.id, invite.message_id, t.gettext("The invitation was withdrawn."))
        d.say(chat.id, t.gettext("The invitation was withdrawn."))
        return
    lobby = await d.storage.rooms.lobby(chat.id)
    if lobby is None:
        raise Refused("There is no open game to cancel.")
    if lobby.starter.user_id != user.id:
        raise Refused("Only {name} can cancel this game.", name=lobby.starter.name)
    if not await d.storage.rooms.close_lobby(chat.id, lobby.id):
        raise Refused("This game is no longer open.")  # joined (or cancelled) a moment ago
    if lobby.message_id is not None:
        d.edit_text(chat.id, lobby.message_id, texts(lobby.starter.lang).gettext("The game was cancelled."))
    else:
        d.say(chat.id, t.gettext("The game was cancelled."))
