"""Provably fair dice: /seed (a player's own seed for their next games) and /verify (a game's dice checked).

Each game's dice derive from a secret server seed, committed to (SHA-256) when the game starts and revealed
when it ends, and from both players' seeds (engine/fair_dice.py; docs/fairness.md)."""

from __future__ import annotations

import re
import secrets

from telegram import Message, Update
from telegram.ext import ContextTypes

from bot.i18n import Texts
from bot.model.flow import Refused, kept_proof, not_yet
from bot.model.table import Table
from bot.service.records import named_game
from bot.telegram.handlers.common import N_, Deps, command, deps, user_texts
from bot.views.captions import names
from engine.fair_dice import SEED_BYTES, FairDiceError, FairSeeds, commitment, verify

NO_GAME = N_(
    "No game to check here. Reply /verify to a game's board, or send /verify with the game's id "
    "(the board's last line shows it)."
)
OLD_GAME = N_("That game was played before the dice were provably fair: there is nothing to check.")
SEED_NOW = N_(
    "Your dice seed: {seed}. It goes into every roll of your next games, beside the bot's secret seed. "
    "/seed TEXT sets another (1-32 letters, digits, _ or -), /seed random takes a new random one each game."
)
SEED_RANDOM = N_(
    "Your dice seed: a new random one each game. /seed TEXT sets your own (1-32 letters, digits, _ or -)."
)
NEXT_SECRET = N_(
    "The bot's part of the secret for your next game is drawn already. Its SHA-256: {hash}. Choose your own "
    "seed after seeing it if you like: when that game ends, /verify shows the part, to check against this line."
)
NEXT_COMPUTER_SECRET = N_(
    "The computer's part of the secret for your next game against it is drawn already too. Its SHA-256: {hash}."
)
NO_LONGER_KEPT = N_(
    "Game {game} is no longer kept: a series keeps its last two games, and every game of its current match."
)
SEED_BAD = N_("A seed is 1-32 characters: Latin letters, digits, _ and -. For example: /seed lucky-7")
SCRIPT = "scripts/verify_dice.py"
NAMED = re.compile(r"/verify (\S+)\)")  # a board's dice line names its game: "(/verify GAME/N)"
MESSAGE_LIMIT = 4096


@command
async def seed_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/seed [TEXT|random]: show or set the user's own seed for the dice of their next games."""
    t = user_texts(update)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    assert chat is not None and user is not None and message is not None
    d = deps(context)
    args = context.args or []
    if len(args) > 1:
        raise Refused(SEED_BAD)
    if args:
        wanted = "" if args[0].lower() in ("random", "-") else args[0]
        try:
            chosen = await d.settings.choose_seed(user.id, wanted)
        except FairDiceError:
            raise Refused(SEED_BAD) from None
    else:
        chosen = await d.settings.get(user.id)
    pending = await d.storage.users.pending_dice_secret(user.id, secrets.token_hex(SEED_BYTES))
    computers = await d.storage.users.pending_dice_secret(
        user.id, secrets.token_hex(SEED_BYTES), computer=True
    )
    lines = [
        t.gettext(SEED_NOW, seed=chosen.seed) if chosen.seed else t.gettext(SEED_RANDOM),
        t.gettext(NEXT_SECRET, hash=commitment(pending)),
        t.gettext(NEXT_COMPUTER_SECRET, hash=commitment(computers)),
    ]
    d.say(chat.id, "\n\n".join(lines))


@command
async def verify_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/verify [GAME]: the commitment, seeds and rolls of a game, checked (the seed once the game is over)."""
    t = user_texts(update)
    chat, message = update.effective_chat, update.effective_message
    assert chat is not None and message is not None
    d = deps(context)
    args = context.args or []
    table, number = await _wanted_game(d, chat.id, message, args[0] if args else None)
    d.say(chat.id, verify_text(t, table, number))


async def _wanted_game(d: Deps, chat_id: int, message: Message, arg: str | None) -> tuple[Table, int]:
    """The table and the game number /verify asks about: `GAME` or `GAME/N` given, else the game of the
    board replied to (the current board of the chat's game, or any board: its last line names its game),
    else the chat's current (or last) game."""
    if arg is not None:
        return await named_game(d.storage, arg)
    table = await d.storage.games.game_of_chat(chat_id)
    reply = message.reply_to_message
    if reply is not None and (table is None or table.board_of(chat_id, reply.message_id) is None):
        named = NAMED.findall(reply.caption or reply.text or "")
        if not named:
            raise Refused(NO_GAME)
        return await named_game(d.storage, named[-1])  # the board's own game (an earlier one is named before)
    if table is None:
        raise Refused(NO_GAME)
    return table, table.number


def verify_text(t: Texts, table: Table, number: int) -> str:
    """What /verify says of game `number` of `table`'s series (the current one, the one before, or any
    earlier game of the current match); Refused, saying which, for a game not played yet or no longer kept."""
    not_yet(table, number)
    proof = kept_proof(table, number)
    if proof is None and number != table.number:
        raise Refused(NO_LONGER_KEPT, game=f"{table.id}/{number}")
    if proof is None or "fair" not in proof:
        raise Refused(OLD_GAME)
    seeds = FairSeeds.from_json(proof["fair"])
    rolls = [(int(a), int(b)) for a, b in proof["rolls"]]
    who = names(t, table)
    lines = [
        t.gettext("🎲 Dice of game {game}", game=seeds.game),
        t.gettext("Commitment (SHA-256 of the secret seed): {hash}", hash=seeds.commitment),
        t.gettext(
            "Player seeds: ⚪ {white} {ws}, ⚫ {black} {bs}",
            white=who[0],
            black=who[1],
            ws=seeds.clients[0],
            bs=seeds.clients[1],
        ),
    ]
    if seeds.parts is not None:
        lines.append(
            t.gettext(
                "The secret is SHA-256 of two parts, one per player, each drawn before the game (the "
                "player's /seed showed its SHA-256): ⚪ {white} {wh}, ⚫ {black} {bh}",
                white=who[0],
                black=who[1],
                wh=commitment(seeds.parts[0]),
                bh=commitment(seeds.parts[1]),
            )
        )
    rolls_line = t.gettext(
        "Rolls ({n}): {rolls}", n=len(rolls), rolls=" ".join(f"{a}-{b}" for a, b in rolls) or "—"
    )
    lines.append(rolls_line)
    if not proof["over"]:
        lines.append(
            t.gettext("The secret seed is revealed when the game ends; then /verify checks every roll.")
        )
        return "\n".join(lines)
    verdict = verify(seeds.server_seed, seeds.commitment, seeds, rolls)
    lines.append(t.gettext("Secret seed: {seed}", seed=seeds.server_seed))
    if seeds.parts is not None:
        lines.append(
            t.gettext("Its parts: ⚪ {white}, ⚫ {black}", white=seeds.parts[0], black=seeds.parts[1])
        )
    if verdict.ok:
        lines.append(
            t.gettext(
                "✅ The seed matches the commitment and every roll follows from the seeds.",
            )
        )
    else:
        lines.append(t.gettext("❌ These rolls do not follow from the seeds."))
    listed = " ".join(f"{a}-{b}" for a, b in rolls)
    lines.append(
        t.gettext("Check it yourself with Python 3 ({script} in the bot's source):", script=SCRIPT)
        + f"\npython3 verify_dice.py --seed={seeds.server_seed} --commitment={seeds.commitment} "
        f"--game={seeds.game} --white={seeds.clients[0]} --black={seeds.clients[1]}"
        + (f" --white-part={seeds.parts[0]} --black-part={seeds.parts[1]}" if seeds.parts else "")
        + f' --rolls="{listed}"'
    )
    text = "\n".join(lines)
    if len(text) > MESSAGE_LIMIT:  # a very long game: the rolls once, in the command
        text = "\n".join(line for line in lines if line is not rolls_line)
    return text[:MESSAGE_LIMIT]
