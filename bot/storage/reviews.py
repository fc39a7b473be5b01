"""Reviews: the expert's analysis of a finished game, worked out once and kept for the Mini App's review
(bot/service/reviews.py). It holds no names and no user ids (the review reads those from the game when it is
shown), expires with its game and is deleted with it (bot/storage/games.py delete_game: /forget)."""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis

from bot.storage import scripts
from bot.storage.client import redis_errors
from bot.storage.keys import analysis_key, game_key


class ReviewStore:
    """Finished games' analyses, by game id and number in the series."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._r = client
        self._keep_script = scripts.register(client, "keep_analysis")

    async def analysis(self, game_id: str, number: int) -> dict[str, Any] | None:
        """The kept analysis of game `number` of `game_id`'s series, or None."""
        async with redis_errors(f"analysis of {game_id}/{number}"):
            raw = await self._r.hget(analysis_key(game_id), str(number))
        return None if raw is None else dict(json.loads(raw))

    async def keep_analysis(self, game_id: str, number: int, analysis: dict[str, Any]) -> bool:
        """Keep `analysis` while its game is kept (expiring with it); False if the game is gone already."""
        data = json.dumps(analysis, ensure_ascii=False, separators=(",", ":"))
        async with redis_errors(f"keep the analysis of {game_id}/{number}"):
            kept = await self._keep_script(
                keys=[analysis_key(game_id), game_key(game_id)], args=[number, data]
            )
        return bool(kept)
