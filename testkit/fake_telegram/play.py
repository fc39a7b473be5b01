"""Simulated players: read the board message the bot sent and press its buttons until the game ends."""

from __future__ import annotations

import random
import re

from testkit.fake_telegram.server import CallbackAnswer, FakeTelegram, StoredMessage
from testkit.fake_telegram.users import SimUser

MOVER = re.compile(r"^(?P<name>.+) moves, dice \d-\d\.$", re.MULTILINE)


def board(tg: FakeTelegram, chat_id: int) -> StoredMessage:
    """The newest board (photo) message in a chat."""
    photos = [m for m in tg.bot_messages(chat_id) if m.photo is not None]
    assert photos, f"no board message in chat {chat_id}"
    return photos[-1]


def wait_board(tg: FakeTelegram, chat_id: int, timeout: float = 10.0) -> StoredMessage:
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
    return bool(data_of(msg, "m:") or data_of(msg, "d:"))


def play_turn(user: SimUser, msg: StoredMessage, rng: random.Random, max_presses: int = 12) -> int:
    """Press move buttons (bear-offs first, else a random one) and Done until the turn is over."""
    for presses in range(max_presses):
        current = user.tg.message(msg.chat_id, msg.message_id)
        moves = [b for b in current.buttons if str(b.get("callback_data", "")).startswith("m:")]
        done = data_of(current, "d:")
        if done and not moves:
            data = done[0]
        elif moves:
            home = [b for b in moves if "⌂" in b["text"]]
            data = str(rng.choice(home or moves)["callback_data"])
        else:
            return presses
        answer = user.press_data(current, data)
        assert isinstance(answer, CallbackAnswer)
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
    tg: FakeTelegram, users: list[SimUser], rng: random.Random, max_turns: int = 1000
) -> dict[int, StoredMessage]:
    """Each player moves on the board in their own private chat until the game is over."""
    for _ in range(max_turns):
        boards = {u.id: board(tg, u.id) for u in users}
        if all(is_over(m) for m in boards.values()):
            return boards
        movers = [u for u in users if has_turn(boards[u.id])]
        assert len(movers) == 1, (
            f"expected exactly one player with move buttons, got {[u.first_name for u in movers]}"
        )
        play_turn(movers[0], boards[movers[0].id], rng)
    raise AssertionError(f"the game did not end in {max_turns} turns")


def reply_to(user: SimUser, text: str, chat_id: int | None = None) -> StoredMessage:
    """Send `text` and wait for the bot's next message in that chat."""
    sent = user.say(text, chat_id)
    return user.wait_message(lambda m: m.message_id > sent.message_id, chat_id)


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
    # the bot's last word, after both boards are shown
    friend.wait_message(
        lambda m: (
            m.message_id > sent.message_id
            and m.text is not None
            and m.text.startswith(("You are playing", "Вы играете"))
        )
    )
    return board(tg, starter.id), board(tg, friend.id)


def start_computer_game(
    tg: FakeTelegram, user: SimUser, variant: str = "short", level: str = "Expert"
) -> StoredMessage:
    menu = new_game_menu(user)
    user.press(menu, lambda text: ("Long" in text or "Длинные" in text) == (variant == "long"))
    user.press(menu, lambda text: "🤖" in text)
    user.press(menu, level)
    return wait_board(tg, user.id)
