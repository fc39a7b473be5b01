"""/forget (or /deletedata): a user's data deleted after a confirmation; what was deleted is reported."""

from __future__ import annotations

from telegram import CallbackQuery, Update
from telegram.ext import ContextTypes

from bot.i18n import Texts, texts
from bot.model import flow
from bot.storage.keys import user_settings_key
from bot.telegram import button_homes
from bot.telegram.callbacks import Callback
from bot.telegram.handlers.common import button, command, deps, menu_owner, person, user_texts
from bot.telegram.handlers.quickmatch import stop_search
from bot.telegram.keyboards import forget_markup


@command
async def forget_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/forget: ask before deleting the user's data."""
    t = user_texts(update)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    deps(context).say(
        chat.id,
        t.gettext(
            "{name}, this deletes your data from the bot: your games in progress are resigned and your "
            "name is removed from them, your finished games, invitations and open games are deleted, and "
            "so are your ratings, statistics and game history. Delete your data?",
            name=person(user).name,
        ),
        forget_markup(t, user.id),
        home=button_homes.forget(user.id),
    )


@button
async def on_forget(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Yes: resign and anonymise the games in progress, delete the rest; tell what was deleted."""
    menu_owner(cb, query)
    message = query.message
    d = deps(context)
    uid = query.from_user.id
    if cb.action == "fn":
        if message is not None:
            await d.storage.users.drop_home(f"{message.chat.id}:{message.message_id}", owner=uid)
            d.edit_text(message.chat.id, message.message_id, t.gettext("Nothing was deleted."))
        return None
    ids = set(await d.storage.games.games_of_user(uid))
    private = await d.storage.games.game_of_chat(uid)
    if private is not None:
        ids.add(private.id)
    done = {"deleted": 0, "resigned": 0}
    for game_id in sorted(ids):
        outcome = await d.storage.games.forget_game(
            game_id, uid, lambda table: d.stamped(flow.forget_player(table, uid))
        )
        if outcome is None:
            continue
        what, old, new = outcome
        done[what] += 1
        for target in old.targets:  # the user's own board: keyboard off, id forgotten
            if target.chat_id == uid and target.key in old.messages:
                d.edit_markup(target.chat_id, old.messages[target.key], None)
                await d.storage.games.drop_message(old.id, target.key)
        if new is not None:
            d.boards.show(new, previous=old)
    invites = 0
    invite = await d.storage.rooms.cancel_invite(uid)
    if invite is not None:
        invites = 1
        if invite.message_id is not None:
            d.edit_text(uid, invite.message_id, t.gettext("The invitation was withdrawn."))
    lobbies = 0
    for lobby in await d.storage.rooms.lobbies_of(uid):
        if await d.storage.rooms.close_lobby(lobby.chat_id, lobby.id):
            lobbies += 1
            if lobby.message_id is not None:
                d.edit_text(
                    lobby.chat_id,
                    lobby.message_id,
                    texts(lobby.starter.lang).gettext("The game was cancelled."),
                )
    await stop_search(d, uid)  # a quick-match search: out of the queue, its message says so
    deleted_keys = await d.storage.users.forget_user_keys(uid)
    results = await d.storage.results.forget_user(uid)  # ratings, statistics, history, leaderboards
    await d.storage.tournaments.forget_user(uid)  # their name in the tournaments, a sign-up withdrawn
    d.settings.forget(uid)  # this worker forgets them at once; another one within settings.CACHE_SECONDS
    report = t.gettext(
        "Your data was deleted.\nGames in progress resigned (your name removed): {resigned}\n"
        "Finished games deleted: {deleted}\nInvitations withdrawn: {invites}\n"
        "Open group games cancelled: {lobbies}",
        resigned=done["resigned"],
        deleted=done["deleted"],
        invites=invites,
        lobbies=lobbies,
    )
    settings = int(user_settings_key(uid) in deleted_keys)
    report += "\n" + t.gettext("Settings deleted (back to the defaults): {settings}", settings=settings)
    if results:
        report += "\n" + t.gettext(
            "Ratings, statistics and game history deleted; you left every leaderboard."
        )
    if message is not None:
        d.edit_text(message.chat.id, message.message_id, report)
    return None
