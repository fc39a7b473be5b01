"""The tournament pictures README and docs/ show, drawn by the project's own code:
`python -m scripts.tournament_pictures OUT_DIR [--all]`.

Plays a 13-player knockout (3 byes, a walkover, a longer final) and a 24-player arena with the pure model
(bot/model/knockout.py, bot/model/arena.py; seeded results: the same files on every run) and draws them
(render/bracket.py, render/podium.py): OUT_DIR/tournament-bracket.png (light) and
OUT_DIR/tournament-podium.png (dark). With --all, also a 64-player bracket, both themes of each, and a
bracket of names in each of the bot's languages and full of control characters, to look at.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from bot.model.arena import Arena
from bot.model.knockout import Knockout, KnockoutSettings, Seeded
from bot.views.tournament import bracket_picture, podium_picture
from render.bracket import BracketTexts, render_bracket, round_names
from render.podium import PodiumTexts, render_podium

SEED = 33
NAMES = (
    "Alice", "Bob", "Карина", "Арам Петросян", "ნინო", "Dmytro", "Leyla Əliyeva", "Mehmet", "سارا", "Гоша",
    "Anahit Սարգսյան", "Giorgi გიორგაძე", "Oksana", "Elvin", "Zeynep Yılmaz", "علی رضایی", "Charlie",
    "Дмитрий Константинопольский", "Tamar", "Ruben", "Fatma", "Ivan", "Mariam", "Emre",
)  # fmt: skip


def names_for(count: int) -> dict[int, str]:
    return {
        user_id: NAMES[(user_id - 1) % len(NAMES)] + ("" if user_id <= len(NAMES) else f" {user_id}")
        for user_id in range(1, count + 1)
    }


def played_knockout(count: int, seed: int = SEED, walkover: bool = True) -> Knockout:
    """`count` players played to the champion with seeded results (the better seed wins two times in three)."""
    rng = random.Random(seed)
    ratings = {user_id: 1500.0 + rng.randint(-250, 350) for user_id in range(1, count + 1)}
    knockout = Knockout.seed(
        [Seeded(u, r) for u, r in ratings.items()], KnockoutSettings(length=3, final_length=5)
    )
    first_walkover = walkover
    while not knockout.finished:
        for match in knockout.ready():
            assert match.top is not None and match.bottom is not None
            assert match.top_seed is not None and match.bottom_seed is not None
            better, worse = (
                (match.top, match.bottom) if match.top_seed < match.bottom_seed else (match.bottom, match.top)
            )
            if first_walkover and match.round == 0:
                knockout = knockout.record(match.match_id, better, (0, 0), walkover=True)
                first_walkover = False
                continue
            winner = better if rng.random() < 2 / 3 else worse
            loser_points = rng.randint(0, match.length - 1)
            knockout = knockout.record(
                match.match_id, winner, (match.length + rng.randint(0, 1), loser_points)
            )
    return knockout


def played_arena(count: int, games: int, seed: int = SEED) -> Arena:
    """`count` players, `games` games paired as the arena pairs them, won by the better rating two in three."""
    rng = random.Random(seed)
    arena = Arena()
    ratings = {}
    for user_id in range(1, count + 1):
        ratings[user_id] = 1500.0 + rng.randint(-300, 300)
        arena = arena.join(user_id, ratings[user_id], at=0.0)
    now, number = 0.0, 0
    while number < games:
        for a, b in arena.pairings():
            arena = arena.start(f"g{number}", a, b)
            number += 1
        now += 60.0
        for game in arena.playing[: max(1, len(arena.playing) // 2)]:
            a, b = game.players
            better, worse = (a, b) if ratings[a] >= ratings[b] else (b, a)
            winner = better if rng.random() < 2 / 3 else worse
            arena = arena.record(game.game_id, winner, at=now, walkover=rng.random() < 0.03)
    for game in arena.playing:
        arena = arena.record(game.game_id, game.players[0], at=now + 1.0)
    return arena


def knockout_texts(knockout: Knockout, names: dict[int, str], title: str) -> BracketTexts:
    champion = knockout.champion
    return BracketTexts(
        title=title,
        rounds=round_names(knockout.rounds, "Final", "Semi-finals", "Quarter-finals", "Round of {players}"),
        champion="" if champion is None else f"Champion: {names[champion]}",
    )


def write(out: Path, everything: bool) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    knockout = played_knockout(13)
    names = names_for(13)
    bracket = bracket_picture(knockout, names, knockout_texts(knockout, names, "Friday club knockout"))
    arena = played_arena(24, 70)
    stats = f"30 minutes · 24 players · {len(arena.scored)} games"
    podium = podium_picture(arena, names_for(24), PodiumTexts("Friday evening arena", stats))
    brackets = [("tournament-bracket", bracket, "light")]
    podiums = [("tournament-podium", podium, "dark")]
    if everything:
        big = played_knockout(64, walkover=False)
        big_names = names_for(64)
        big_names[17] = "\u202e\x00Ev\u200bil\x1b[31m" + "\u0301" * 30 + "Z" * 200  # controls, marks, length
        open_five = Knockout.seed([Seeded(u, 1500.0 - u) for u in range(1, 6)])
        brackets += [
            (
                "bracket-64-dark",
                bracket_picture(big, big_names, knockout_texts(big, big_names, "Championship")),
                "dark",
            ),
            ("bracket-13-dark", bracket, "dark"),
            (
                "bracket-5-open",
                bracket_picture(open_five, names, knockout_texts(open_five, names, "Five")),
                "light",
            ),
        ]
        podiums += [("podium-light", podium, "light")]
    for name, picture, theme in brackets:
        written.append(out / f"{name}.png")
        written[-1].write_bytes(render_bracket(picture, theme))
    for name, standings, theme in podiums:
        written.append(out / f"{name}.png")
        written[-1].write_bytes(render_podium(standings, theme))
    return written


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    for path in write(Path(argv[0]), "--all" in argv[1:]):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
