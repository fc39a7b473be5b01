"""/settings: a user's language, whether a turn waits for ✅ Done, the colours of their boards, and whether
they appear on the global leaderboards (/top in private; bot/storage/results.py).

The choices are kept per user in Redis (bot/service/settings.py) and take effect at once: the menu itself is
redrawn in the chosen language, and a board of the user's game in progress that now looks different
(language, colours) is drawn again."""

from __future__ import annotations

from telegram import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ChatType
from telegram.ext import ContextTypes

from bot.i18n import LANGUAGE_NAMES, Texts, language_of, texts
from bot.model.flow import Refused
from bot.service.settings import AUTO, Settings
from bot.telegram import button_homes, callbacks
from bot.telegram.callbacks import Callback
from bot.telegram.handlers.common import (
    N_,
    Deps,
    active_game,
    button,
    command,
    deps,
    message_of,
    user_texts,
)
from bot.telegram.keyboards import settings_markup

NOT_YOURS = N_("These are someone else's settings. Send /settings to see yours.")
IN_PRIVATE = N_("Settings are kept per person: send /settings to me in a private chat, @{bot}.")


def settings_text(t: Texts, chosen: Settings, telegram_language: str | None) -> str:
    """What the /settings message says: each setting's current choice, and what confirming with Done means."""
    if chosen.lang == AUTO:
        language = t.gettext(
            "auto (Telegram's: {language})", language=LANGUAGE_NAMES[language_of(telegram_language)]
        )
    else:
        language = LANGUAGE_NAMES[chosen.lang]
    confirm = {
        AUTO: t.gettext("auto (on in private games, off in group games)"),
        "on": t.gettext("on"),
        "off": t.gettext("off"),
    }[chosen.confirm]
    theme = {"light": t.gettext("light"), "dark": t.gettext("dark")}.get(chosen.theme, chosen.theme)
    top = t.gettext("hidden") if chosen.top == "hidden" else t.gettext("shown")
    return "\n".join(
        [
            t.gettext("⚙️ Settings"),
            "",
            t.gettext("Language: {choice}", choice=language),
            t.gettext("Confirm each turn with ✅ Done: {choice}", choice=confirm),
            t.gettext("Board colours: {choice}", choice=theme),
            t.gettext("Global leaderboards (/top): {choice}", choice=top),
            "",
            t.gettext(
                "With Done on, your turn waits for ✅ Done: until then ↩ Undo takes moves back. With Done "
                "off, your turn ends as soon as its last die is played, and there is no Undo after that: "
                "the opponent's dice are rolled at once. Auto keeps group games quick: Telegram lets a bot "
                "post only about 20 messages a minute in a group. The colours are those of the boards in "
                "your private chat; a group's board stays light. Hidden, you are left out of the global "
                "leaderboards; your groups' leaderboards still show you."
            ),
        ]
    )


@command
async def settings_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/settings: the menu (private chats); in a group, one line pointing to the private chat."""
    t = user_texts(update)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    d = deps(context)
    if chat.type != ChatType.PRIVATE:
        d.say(chat.id, t.gettext(IN_PRIVATE, bot=context.bot.username))
        return
    chosen = await d.settings.get(user.id)
    d.say(
        chat.id,
        settings_text(t, chosen, user.language_code),
        menu_markup(t, user.id, chosen),
        home=button_homes.settings(user.id),
    )


def menu_markup(t: Texts, user_id: int, chosen: Settings) -> InlineKeyboardMarkup:
    """The settings' buttons (bot/telegram/keyboards.py) and a row for the global leaderboards."""

    def choice(label: str, value: str) -> InlineKeyboardButton:
        mark = "✓ " if chosen.top == value else ""
        return InlineKeyboardButton(mark + label, callback_data=callbacks.setting(user_id, "top", value))

    row = [choice(t.gettext("🏆 In global /top"), "shown"), choice(t.gettext("🙈 Hidden"), "hidden")]
    return InlineKeyboardMarkup([*settings_markup(t, user_id, chosen).inline_keyboard, row])


@button
async def on_setting(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """One choice made: saved, the menu redrawn in the (maybe new) language, the user's boards restyled."""
    user = query.from_user
    if cb.user != user.id:
        raise Refused(NOT_YOURS)
    message = message_of(query)
    d = deps(context)
    before = await d.settings.get(user.id)
    chosen = await d.settings.choose(user.id, cb.setting, cb.choice)
    if cb.setting == "top":  # the global boards follow at once (and a lost race is mended by a repeat)
        await d.storage.results.set_hidden(user.id, chosen.top == "hidden")
    if chosen == before:
        return None  # the menu shows it already
    nt = texts(chosen.language(user.language_code))
    d.edit_text(
        message.chat.id,
        message.message_id,
        settings_text(nt, chosen, user.language_code),
        menu_markup(nt, user.id, chosen),
    )
    looks = (before.language(user.language_code), before.theme)
    if looks != (chosen.language(user.language_code), chosen.theme):
        await restyle(d, user.id)
    return None


async def restyle(d: Deps, user_id: int) -> None:
    """The user's board in their game in progress is drawn again in their language and colours."""
    table = await active_game(d.storage, user_id)
    if table is None:
        return
    for target in table.targets:
        if target.chat_id == user_id and target.viewer is not None and target.key in table.messages:
            await d.storage.games.unmark_shown(table.id, target.key)
            d.boards.restyle(table.id, target.key)
