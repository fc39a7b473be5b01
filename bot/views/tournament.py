"""A tournament as the pictures draw it: a knockout's `render.bracket.BracketPicture` and an arena's
`render.podium.PodiumPicture`, from the pure model (bot/model/knockout.py, bot/model/arena.py), the
players' names and the words in the reader's language (given: no i18n here)."""

from __future__ import annotations

from collections.abc import Mapping

from bot.model.arena import Arena
from bot.model.knockout import BracketMatch, Knockout
from render.bracket import Bout, BracketPicture, BracketTexts, Entrant
from render.podium import Placed, PodiumPicture, PodiumTexts

PODIUM_LINES = 10  # places drawn: the three on the podium and the next seven


def _entrant(match: BracketMatch, user_id: int | None, seed: int | None, names: Mapping[int, str]) -> Entrant:
    if user_id is None:
        return Entrant()
    decided = match.decided
    score = None
    if decided is not None:
        score = decided.score[0] if decided.winner == user_id else decided.score[1]
    return Entrant(
        name=names.get(user_id, str(user_id)),
        seed=seed,
        score=score,
        won=match.winner == user_id and (decided is not None or match.bye),
    )


def bracket_picture(knockout: Knockout, names: Mapping[int, str], texts: BracketTexts) -> BracketPicture:
    """The knockout's bracket as it stands, the champion's path marked once there is a champion."""
    path = set(knockout.champion_path())
    rounds = tuple(
        tuple(
            Bout(
                top=_entrant(m, m.top, m.top_seed, names),
                bottom=_entrant(m, m.bottom, m.bottom_seed, names),
                bye=m.bye,
                walkover=m.decided is not None and m.decided.walkover,
                on_path=m.match_id in path,
            )
            for m in round_
        )
        for round_ in knockout.bracket()
    )
    return BracketPicture(rounds, texts)


def podium_picture(arena: Arena, names: Mapping[int, str], texts: PodiumTexts) -> PodiumPicture:
    """The arena's final standings: the first three on the podium, the next places below them."""
    places = tuple(
        Placed(rank=s.rank, name=names.get(s.user_id, str(s.user_id)), points=s.points, games=s.games)
        for s in arena.standings()[:PODIUM_LINES]
    )
    return PodiumPicture(places, texts)
