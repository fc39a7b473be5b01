"""Translated texts about a table: names, the caption under the board, the status line on the image."""

from __future__ import annotations

from typing import Any

from bot.i18n import Texts
from bot.model.clock import clock_text, time_control
from bot.model.game_format import GameFormat
from bot.model.table import Person, Table
from engine import Phase, Side, WinKind
from engine.fair_dice import FairSeeds

CAPTION_LIMIT = 1024


def level_name(t: Texts, level: str) -> str:
    names = {
        "beginner": t.gettext("beginner"),
        "intermediate": t.gettext("intermediate"),
        "expert": t.gettext("expert"),
    }
    return names.get(level, level)


def variant_name(t: Texts, variant: str) -> str:
    """A variant ("short", "long") or a game format ("short.5c": bot/model/game_format.py) in words."""
    fmt = GameFormat.parse(variant)
    name = t.gettext("Long nardy") if fmt.variant == "long" else t.gettext("Short nardy (backgammon)")
    if fmt.length > 1:
        name += t.gettext(", match to {n}", n=fmt.length)
    if fmt.cube:
        name += t.gettext(", with the doubling cube")
    if fmt.jacoby:
        name += t.gettext(" (Jacoby rule)")
    if fmt.clock is not None:
        name += ", " + clock_words(t, fmt.clock)
    return name


def clock_words(t: Texts, clock: str) -> str:
    """A time control in words: "live clock (2 min a point + 12 s a move)"."""
    control = time_control(clock)
    minutes = control.per_point / 60
    reserve = (
        t.gettext("{n} min", n=f"{minutes:g}")
        if minutes >= 1
        else t.gettext("{n} s", n=f"{control.per_point:g}")
    )
    words = {"live": t.gettext("live clock"), "blitz": t.gettext("blitz clock")}
    return words[clock] + t.gettext(
        " ({reserve} a point + {delay} s a move)", reserve=reserve, delay=f"{control.delay:g}"
    )


def rating_line(t: Texts, table: Table, who: tuple[str, str]) -> str | None:
    """The players' ratings and their changes, at the end of a rated game (or match)."""
    if table.rated is None:
        return None
    parts = [
        t.gettext(
            "{name} {rating} ({change})",
            name=who[side],
            rating=f"{after:.1f}",
            change=f"{after - before:+.1f}",
        )
        for side, pair in enumerate(table.rated)
        if pair is not None
        for before, after in (pair,)
    ]
    return t.gettext("Rating: {ratings}", ratings=", ".join(parts)) if parts else None


def cube_line(t: Texts, table: Table, who: tuple[str, str]) -> str | None:
    """The cube's value and owner (None for a game without the cube)."""
    cube = table.game.cube
    if cube is None:
        return None
    if cube.crawford:
        return t.gettext("Cube: the Crawford game, no doubling.")
    if cube.owner is None:
        return t.gettext("Cube: {value}, in the middle.", value=cube.value)
    return t.gettext("Cube: {value}, {name}'s.", value=cube.value, name=who[cube.owner])


def match_line(t: Texts, table: Table, who: tuple[str, str]) -> str | None:
    """The match's or the series' score (None for a first single game with no score yet)."""
    match = table.match
    if match.is_match:
        line = t.gettext(
            "Match to {n}: {white} {w} : {b} {black}",
            n=match.length,
            white=who[0],
            black=who[1],
            w=match.score[0],
            b=match.score[1],
        )
        if match.crawford and not table.over:
            line += " " + t.gettext("(Crawford game)")
        return line
    if table.number > 1 or any(match.score):
        return t.gettext(
            "Series: {white} {w} : {b} {black}",
            white=who[0],
            black=who[1],
            w=match.score[0],
            b=match.score[1],
        )
    return None


def clock_line(t: Texts, table: Table, who: tuple[str, str]) -> str | None:
    """A live game's clocks as of this board (the change it shows was saved at `moved_at`): each player's
    reserve, the one whose time runs marked ▶ with the delay of their decision."""
    clock = table.clock
    if clock is None:
        return None
    now = table.moved_at if table.moved_at is not None else clock.since or 0.0
    left = clock.left(now)
    shown = [clock_text(seconds) for seconds in left]
    if clock.running is not None and not table.over:
        shown[clock.running] = t.gettext(
            "▶ {time} (+{delay} s)", time=shown[clock.running], delay=round(clock.delay_left(now))
        )
    return t.gettext("⏱ {white} {w} · {black} {b}", white=who[0], w=shown[0], black=who[1], b=shown[1])


def person_name(t: Texts, person: Person) -> str:
    if person.forgotten:
        return t.gettext("a former player")
    if person.is_computer:
        assert person.level is not None
        return t.gettext("Computer ({level})", level=level_name(t, person.level))
    return person.name


def names(t: Texts, table: Table) -> tuple[str, str]:
    return person_name(t, table.players[0]), person_name(t, table.players[1])


def win_kind(t: Texts, kind: WinKind) -> str:
    return {
        WinKind.OIN: t.gettext("oin"),
        WinKind.MARS: t.gettext("mars"),
        WinKind.KOKS: t.gettext("koks"),
        WinKind.HOME_MARS: t.gettext("home mars"),
    }.get(kind, kind.name.lower())


def points(t: Texts, n: int) -> str:
    return t.ngettext("{n} point", "{n} points", n)


def _event_line(t: Texts, table: Table, who: tuple[str, str], event: dict[str, Any]) -> str | None:
    kind = event.get("k")
    if kind == "opening":
        if event.get("first") is None:
            return t.gettext(
                "Opening roll: {white} {w}, {black} {b}: a tie, rolling again.",
                white=who[0],
                black=who[1],
                w=event["w"],
                b=event["b"],
            )
        return t.gettext(
            "Opening roll: {white} {w}, {black} {b}. {first} moves first.",
            white=who[0],
            black=who[1],
            w=event["w"],
            b=event["b"],
            first=who[int(event["first"])],
        )
    if kind == "play":
        name = who[int(event["s"])]
        how = event.get("how")
        if how == "pass":
            return t.gettext("{name} rolled {dice} and cannot move.", name=name, dice=event["d"])
        if how == "forced":
            return t.gettext(
                "{name} rolled {dice}; the only move was played: {play}.",
                name=name,
                dice=event["d"],
                play=event["p"],
            )
        return t.gettext(
            "{name} rolled {dice} and played {play}.", name=name, dice=event["d"], play=event["p"]
        )
    if kind == "resign":
        return t.gettext("{name} resigned.", name=who[int(event["s"])])
    if kind == "resign_match":
        return t.gettext("{name} resigned the match.", name=who[int(event["s"])])
    if kind == "double":
        return t.gettext("{name} doubles to {value}.", name=who[int(event["s"])], value=event["v"])
    if kind == "take":
        return t.gettext("{name} takes.", name=who[int(event["s"])])
    if kind == "pass":
        return t.gettext("{name} passes.", name=who[int(event["s"])])
    if kind == "won":
        return t.gettext(
            "{name} won game {number}: {kind}, {points}.",
            name=who[int(event["s"])],
            number=event["n"],
            kind=win_kind(t, WinKind(event["w"])),
            points=points(t, int(event["p"])),
        )
    if kind == "next":
        line = t.gettext("Game {number} begins.", number=event["n"])
        if event.get("cr"):
            line += " " + t.gettext("The Crawford game: no doubling.")
        return line
    if kind == "claim":
        return t.gettext(
            "{name} did not move for too long; the game was claimed by {other}.",
            name=who[int(event["s"])],
            other=who[1 - int(event["s"])],
        )
    if kind == "time":
        return t.gettext(
            "⏱ {name} ran out of time; {other} wins.",
            name=who[int(event["s"])],
            other=who[1 - int(event["s"])],
        )
    if kind == "gone":
        return t.gettext(
            "{name} could not be reached (blocked the bot or deleted the chat); the game was claimed by {other}.",
            name=who[int(event["s"])],
            other=who[1 - int(event["s"])],
        )
    return None


def event_lines(t: Texts, table: Table) -> list[str]:
    """What happened since a person last decided (the opening roll, the computer's play, a double taken,
    a turn with no move), one line each, as the caption says it."""
    who = names(t, table)
    return [line for event in table.events if (line := _event_line(t, table, who, event))]


def status_line(t: Texts, table: Table, viewer: Side | None) -> str:
    """The one line drawn on the image; in a match, after the match's score."""
    line = _status(t, table, viewer)
    match = table.match
    if match.is_match:
        return t.gettext("{w}:{b} of {n}", w=match.score[0], b=match.score[1], n=match.length) + " · " + line
    return line


def _status(t: Texts, table: Table, viewer: Side | None) -> str:
    game = table.game
    who = names(t, table)
    if game.phase is Phase.OVER and game.result is not None:
        if game.result.dropped:
            return t.gettext("{name} wins: the double was passed", name=who[game.result.winner])
        return t.gettext(
            "{name} wins: {kind}", name=who[game.result.winner], kind=win_kind(t, game.result.kind)
        )
    if game.phase is Phase.CUBE and game.cube is not None:
        return t.gettext("{name} doubles to {value}", name=who[game.turn], value=game.cube.value * 2)
    if game.phase is Phase.MOVE and game.dice is not None:
        if viewer is game.turn:
            return t.gettext("Your move: {dice}", dice=str(game.dice))
        return t.gettext("{name} to move: {dice}", name=who[game.turn], dice=str(game.dice))
    return t.gettext("{name} to roll", name=who[game.turn])


def tourney_line(t: Texts, table: Table) -> str | None:
    """A tournament game's line: which tournament (its group) and round."""
    tag = table.tournament
    if tag is None:
        return None
    group = tag.name or "?"
    if tag.round:
        return "🏆 " + t.gettext("Tournament in {group}, round {n}", group=group, n=tag.round)
    return "🏆 " + t.gettext("Tournament in {group}", group=group)


def caption(t: Texts, table: Table, viewer: Side | None) -> str:
    """The caption under the board: players, what happened, whose turn with which dice, pips, result."""
    game = table.game
    who = names(t, table)
    match = table.match
    fmt = str(
        GameFormat.of_match(game.game, match, None if table.clock is None else table.clock.control.name)
    )
    number = len(match.games) + (0 if table.over else 1) if match.is_match else table.number
    lines = [
        t.gettext("{variant}, game {number}", variant=variant_name(t, fmt), number=number),
        t.gettext("⚪ {white} vs ⚫ {black}", white=who[0], black=who[1]),
    ]
    for extra in (
        tourney_line(t, table),
        match_line(t, table, who),
        cube_line(t, table, who),
        clock_line(t, table, who),
    ):
        if extra:
            lines.append(extra)
    lines.append("")
    lines += event_lines(t, table)
    if game.phase is Phase.OVER and game.result is not None:
        result = game.result
        if result.dropped:
            lines.append(
                t.gettext(
                    "{name} wins: the double was passed, {points}.",
                    name=who[result.winner],
                    points=points(t, result.points),
                )
            )
        else:
            lines.append(
                t.gettext(
                    "{name} wins: {kind}, {points}.",
                    name=who[result.winner],
                    kind=win_kind(t, result.kind),
                    points=points(t, result.points),
                )
            )
        rating = rating_line(t, table, who)
        if rating:
            lines.append(rating)
        if match.is_match and match.winner is not None:
            lines.append(
                t.gettext(
                    "🏆 {name} wins the match {w} : {b}!",
                    name=who[match.winner],
                    w=match.score[match.winner],
                    b=match.score[match.winner.other],
                )
            )
            lines.append(t.gettext("Press New match to play again."))
        else:
            lines.append(t.gettext("Press Rematch to play again."))
    elif game.phase is Phase.CUBE and game.cube is not None:
        lines.append(
            t.gettext(
                "{name} offers a double to {value}. {other}: take or pass?",
                name=who[game.turn],
                value=game.cube.value * 2,
                other=who[game.deciding],
            )
        )
    elif game.phase is Phase.ROLL and game.may_double() and game.cube is not None:
        lines.append(
            t.gettext("{name}: roll, or double to {value}?", name=who[game.turn], value=2 * game.cube.value)
        )
    elif game.phase is Phase.MOVE and game.dice is not None:
        if viewer is game.turn:
            lines.append(t.gettext("Your move, dice {dice}.", dice=str(game.dice)))
        else:
            lines.append(t.gettext("{name} moves, dice {dice}.", name=who[game.turn], dice=str(game.dice)))
        made = table.made_moves()
        if made:
            lines.append(t.gettext("Moves so far: {moves}", moves=" ".join(str(m) for m in made)))
        mover, other = game.rules.pip_counts(table.step().position)  # after the moves made so far
        white_pips, black_pips = (mover, other) if game.turn is Side.WHITE else (other, mover)
        lines.append(
            t.gettext(
                "Pips: {white} {w}, {black} {b}", white=who[0], black=who[1], w=white_pips, b=black_pips
            )
        )
    text = "\n".join(lines)
    fair = fair_line(t, table)  # kept whole: the rest gives way
    room = CAPTION_LIMIT - (len(fair) + 1 if fair else 0)
    if len(text) > room:
        text = text[: room - 1] + "…"
    return f"{text}\n{fair}" if fair else text


def fair_line(t: Texts, table: Table) -> str | None:
    """The dice's line: the commitment to the secret seed (its SHA-256) while the game runs, the seed itself
    once the game is over; and how to check them. The caption that begins a match's next game reveals the
    seed of the game that just ended first (its board goes on with the next game)."""
    fair = table.fair
    if fair is None:
        return None
    game = fair.game
    if table.over:
        return t.gettext("🔓 Dice seed: {seed} (/verify {game})", seed=fair.server_seed, game=game)
    line = t.gettext("🔒 Dice commitment: {hash} (/verify {game})", hash=fair.commitment, game=game)
    before = table.proof
    begun = any(e.get("k") == "next" and e.get("n") == table.number for e in table.events)
    if begun and before is not None and "fair" in before:  # a match's next game began: the last one's seed
        seeds = FairSeeds.from_json(before["fair"])
        revealed = t.gettext(
            "🔓 Dice seed of game {game}: {seed} (/verify {game})", game=seeds.game, seed=seeds.server_seed
        )
        return f"{revealed}\n{line}"
    return line
