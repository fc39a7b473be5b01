"""Simulated players: read the board message the bot sent and press its buttons until the game ends."""

from __future__ import annotations

import copy
import random
import re

from testkit.fake_telegram.server import CallbackAnswer, FakeTelegram, StoredMessage
from testkit.fake_telegram.users import SimUser

MOVER = re.compile(r"^(?P<name>.+) moves, dice \d-\d\.$", re.MULTILINE)
MOVES_MADE = re.compile(
    r"^(Moves so far|Уже сыграно): ", re.MULTILINE
)  # a turn in progress, in either language


def board(tg: FakeTelegram, chat_id: int) -> StoredMessage:
    """The newest board (photo) message in a chat."""
    photos = [m for m in tg.bot_messages(chat_id) if m.photo is not None]
    assert photos, f"no board message in chat {chat_id}"
    return photos[-1]


def wait_board(tg: FakeTelegram, chat_id: int, timeout: float = 30.0) -> StoredMessage:
    found: StoredMessage = tg.wait_for(
        lambda: next((m for m in reversed(tg.bot_messages(chat_id)) if m.photo is not None), None),
        timeout,
        f"a board in chat {chat_id}",
    )
    return found


def data_of(msg: StoredMessage, prefix: str) -> list[str]:
    return [
        str(b["callback_data"]) for b in msg.buttons if str(b.get("callback_data", "")).startswith(prefix)
    ]


def is_over(msg: StoredMessage) -> bool:
    return bool(data_of(msg, "r:"))


def has_turn(msg: StoredMessage) -> bool:
    return bool(data_of(msg, "m:") or data_of(msg, "p:") or data_of(msg, "d:"))


def press_and_wait(user: SimUser, msg: StoredMessage, data: str, timeout: float = 30.0) -> CallbackAnswer:
    """Press `data` under `msg` and wait for the answer; if the press was taken (no alert), also wait until
    the board is redrawn (boards are drawn after the answer, in the background)."""
    before = user.tg.message(msg.chat_id, msg.message_id).edits
    answer = user.press_data(msg, data)
    assert isinstance(answer, CallbackAnswer)
    if not answer.show_alert:
        user.tg.wait_for(
            lambda: user.tg.message_now(msg.chat_id, msg.message_id).edits > before,
            timeout,
            f"the board {msg.message_id} in chat {msg.chat_id} redrawn after {data}",
        )
    return answer


def play_turn(user: SimUser, msg: StoredMessage, rng: random.Random, max_presses: int = 12) -> int:
    """Press move buttons (bear-offs first, else a random one) and Done until the turn is over (a player
    who does not confirm turns with Done, as in groups by default, ends it with the last move: the board
    then shows the next turn, with no move made yet: the other player's, or theirs again if the other one
    could not move)."""
    for presses in range(max_presses):
        current = user.tg.message(msg.chat_id, msg.message_id)
        if presses and not MOVES_MADE.search(current.caption or ""):
            return presses
        moves = [b for b in current.buttons if str(b.get("callback_data", "")).startswith(("m:", "p:"))]
        done = data_of(current, "d:")
        if done and not moves:
            data = done[0]
        elif moves:
            home = [b for b in moves if "⌂" in b["text"]]
            data = str(rng.choice(home or moves)["callback_data"])
        else:
            return presses
        answer = press_and_wait(user, current, data)
        assert not answer.show_alert, f"{user.first_name} pressed {data} and got an alert: {answer.text}"
        if data.startswith("d:"):
            return presses + 1
    raise AssertionError(f"{user.first_name}'s turn did not end after {max_presses} presses")


def play_group_game(
    tg: FakeTelegram, chat_id: int, users: list[SimUser], rng: random.Random, max_turns: int = 1000
) -> StoredMessage:
    """Both players take turns on the group's board until the Rematch button appears."""
    by_name = {u.first_name: u for u in users}
    for _ in range(max_turns):
        msg = board(tg, chat_id)
        if is_over(msg):
            return msg
        match = MOVER.search(msg.caption or "")
        assert match, f"cannot tell whose turn it is from the caption:\n{msg.caption}"
        play_turn(by_name[match["name"]], msg, rng)
    raise AssertionError(f"the game in chat {chat_id} did not end in {max_turns} turns")


def play_private_game(
    tg: FakeTelegram, users: list[SimUser], rng: random.Random, max_turns: int = 1000, timeout: float = 30.0
) -> dict[int, StoredMessage]:
    """Each player moves on the board in their own private chat until the game is over (boards are drawn
    in the background: each turn waits until exactly one board offers moves, or both show the end)."""

    def settled() -> dict[int, StoredMessage] | None:
        boards = {u.id: _newest_board(tg, u.id) for u in users}
        if any(b is None for b in boards.values()):
            return None
        ready = {k: b for k, b in boards.items() if b is not None}
        if all(is_over(m) for m in ready.values()) or sum(has_turn(m) for m in ready.values()) == 1:
            return ready
        return None

    for _ in range(max_turns):
        boards: dict[int, StoredMessage] = tg.wait_for(settled, timeout, "one player with move buttons")
        boards = {k: copy.copy(m) for k, m in boards.items()}
        if all(is_over(m) for m in boards.values()):
            return boards
        mover = next(u for u in users if has_turn(boards[u.id]))
        play_turn(mover, boards[mover.id], rng)
    raise AssertionError(f"the game did not end in {max_turns} turns")


def _newest_board(tg: FakeTelegram, chat_id: int) -> StoredMessage | None:
    """The newest board message in a chat, read under the fake's lock (inside `wait_for`)."""
    found = None
    for (chat, _), message in tg._state.messages.items():
        mine = chat == chat_id and message.from_bot and message.photo is not None and not message.deleted
        if mine and (found is None or message.message_id > found.message_id):
            found = message
    return found


def reply_to(user: SimUser, text: str, chat_id: int | None = None) -> StoredMessage:
    """Send `text` and wait for the bot's next message in that chat."""
    sent = user.say(text, chat_id)
    return user.wait_message(lambda m: m.message_id > sent.message_id, chat_id)


def resign(user: SimUser, chat_id: int | None = None) -> None:
    """/resign in the chat (the user's private chat by default) and confirm with Yes."""
    question = reply_to(user, "/resign", chat_id)
    answer = user.press(question, "Yes")
    assert not answer.show_alert, answer.text


def new_game_menu(user: SimUser, chat_id: int | None = None) -> StoredMessage:
    menu = reply_to(user, "/newgame", chat_id)
    assert menu.text in ("Which game?", "Во что играем?"), f"expected the variant menu, got {menu.body!r}"
    return menu


def start_group_game(
    tg: FakeTelegram, group: int, starter: SimUser, joiner: SimUser, variant: str = "short"
) -> StoredMessage:
    """/newgame in a group, pick the variant, the other one joins; returns the board message."""
    tg.add_chat(group, "group", "Nardy club")
    menu = new_game_menu(starter, group)
    answer = starter.press(menu, lambda text: ("Long" in text or "Длинные" in text) == (variant == "long"))
    assert not answer.show_alert, answer.text
    lobby = tg.message(group, menu.message_id)
    answer = joiner.press(lobby, lambda text: "Join" in text or "Играть" in text)
    assert not answer.show_alert, answer.text
    return wait_board(tg, group)


def invite_link(tg: FakeTelegram, starter: SimUser, variant: str = "short") -> tuple[StoredMessage, str]:
    """/newgame in the starter's private chat, pick the variant and "A friend": the invitation, its token."""
    menu = new_game_menu(starter)
    starter.press(menu, lambda text: ("Long" in text or "Длинные" in text) == (variant == "long"))
    starter.press(menu, lambda text: "👥" in text)
    invite = tg.message(starter.id, menu.message_id)
    match = re.search(r"https://t\.me/(\w+)\?start=([A-Za-z0-9_-]+)", invite.body)
    assert match, f"no invitation link in {invite.body!r}"
    return invite, match[2]


def start_friend_game(
    tg: FakeTelegram, starter: SimUser, friend: SimUser, variant: str = "short"
) -> tuple[StoredMessage, StoredMessage]:
    """The invitation flow; returns the two private boards (starter's, friend's)."""
    _, token = invite_link(tg, starter, variant)
    sent = friend.say(f"/start {token}")
    friend.wait_message(
        lambda m: (
            m.message_id > sent.message_id
            and m.text is not None
            and m.text.startswith(("You are playing", "Вы играете"))
        )
    )
    return wait_board(tg, starter.id), wait_board(tg, friend.id)


def start_computer_game(
    tg: FakeTelegram, user: SimUser, variant: str = "short", level: str = "Expert"
) -> StoredMessage:
    menu = new_game_menu(user)
    user.press(menu, lambda text: ("Long" in text or "Длинные" in text) == (variant == "long"))
    user.press(menu, lambda text: "🤖" in text)
    user.press(menu, level)
    return wait_board(tg, user.id)


def choose_settings(user: SimUser, *labels: str) -> StoredMessage:
    """/settings in the user's private chat, then press the button whose text contains each label in turn
    (say "Done: on", "Dark", "Русский"; each must change a setting); returns the menu as it is then."""
    menu = reply_to(user, "/settings")
    for label in labels:
        answer = user.press(menu, label)
        assert not answer.show_alert, answer.text
    return user.tg.message(menu.chat_id, menu.message_id)
