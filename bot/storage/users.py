"""Users: their settings, their pending dice secrets, the homes of the messages with buttons (which message
is which menu, board or card), the file ids of media the bot sent, and what /forget deletes of a user.
"""

from __future__ import annotations

import redis.asyncio as aioredis

from bot.storage.client import redis_errors
from bot.storage.keys import (
    HOME_TTL,
    MEDIA_TTL,
    SEEK_FORMATS,
    SETTINGS_TTL,
    challenge_key,
    chat_key,
    dice_secret_key,
    home_key,
    invite_key,
    limit_key,
    media_key,
    seek_key,
    user_challenges_pattern,
    user_games_key,
    user_homes_key,
    user_invite_key,
    user_seek_key,
    user_settings_key,
)


class UserStore:
    """Per-user records (settings, dice secrets, the homes of their menus), media file ids, /forget's keys."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._r = client

    # ------------------------------------------------------------------ settings and dice secrets

    async def settings(self, user_id: int) -> dict[str, str]:
        """The user's settings hash (empty: none saved); reading it keeps it SETTINGS_TTL longer."""
        key = user_settings_key(user_id)
        async with redis_errors(f"user {user_id} settings"), self._r.pipeline(transaction=False) as pipe:
            pipe.hgetall(key)
            pipe.expire(key, SETTINGS_TTL)
            fields, _ = await pipe.execute()
        return {str(k): str(v) for k, v in fields.items()}

    async def set_setting(self, user_id: int, setting: str, choice: str) -> None:
        """Save one of the user's settings (the hash lives SETTINGS_TTL from now)."""
        key = user_settings_key(user_id)
        async with redis_errors(f"user {user_id} settings"), self._r.pipeline(transaction=True) as pipe:
            pipe.hset(key, setting, choice)
            pipe.expire(key, SETTINGS_TTL)
            await pipe.execute()

    async def take_dice_secret(self, user_id: int, fresh: str, computer: bool = False) -> str | None:
        """The user's pending dice secret, replaced by `fresh` in the same step (GETSET: two games starting
        at once take two different ones); None if they had none yet. `computer`: the computer's part for
        the user's game against it."""
        key = dice_secret_key(user_id, computer)
        async with redis_errors(f"user {user_id} dice secret"):
            found = await self._r.set(key, fresh, ex=SETTINGS_TTL, get=True)
        return None if found is None else str(found)

    async def pending_dice_secret(self, user_id: int, fresh: str, computer: bool = False) -> str:
        """The user's pending dice secret (`fresh` becomes it if they had none): what /seed commits to.
        `computer`: the computer's part for the user's next game against it."""
        key = dice_secret_key(user_id, computer)
        async with redis_errors(f"user {user_id} dice secret"), self._r.pipeline(transaction=True) as pipe:
            pipe.set(key, fresh, ex=SETTINGS_TTL, nx=True)
            pipe.get(key)
            _, found = await pipe.execute()
        return str(found)

    # ------------------------------------------------------------------ the homes of buttons

    async def home(self, where: str) -> str | None:
        """The home written down for the message `where` (bot/telegram/button_homes.py: what each home is), None if none."""
        async with redis_errors(f"home of {where}"):
            found = await self._r.get(home_key(where))
        return None if found is None else str(found)

    async def set_home(
        self, where: str, home: str, seconds: int = HOME_TTL, owner: int | None = None
    ) -> None:
        """Write down that the message `where` is `home` now (sent as it, or turned into it). A home that
        names a user (`owner`) is listed among theirs too, for /forget."""
        user = owner
        async with redis_errors(f"home of {where}"), self._r.pipeline(transaction=True) as pipe:
            pipe.set(home_key(where), home, ex=seconds)
            if user is not None:
                pipe.sadd(user_homes_key(user), home_key(where))
                pipe.expire(user_homes_key(user), max(seconds, HOME_TTL))
            await pipe.execute()

    async def drop_home(self, where: str, owner: int | None = None) -> None:
        """The message `where` has no buttons any more: its home is forgotten (and its `owner`'s list of it)."""
        user = owner
        async with redis_errors(f"home of {where}"), self._r.pipeline(transaction=True) as pipe:
            pipe.delete(home_key(where))
            if user is not None:
                pipe.srem(user_homes_key(user), home_key(where))
            await pipe.execute()

    # ------------------------------------------------------------------ media sent before

    async def media_file(self, name: str) -> str | None:
        async with redis_errors(f"media {name}"):
            found = await self._r.get(media_key(name))
        return None if found is None else str(found)

    async def set_media_file(self, name: str, file_id: str) -> None:
        async with redis_errors(f"media {name}"):
            await self._r.set(media_key(name), file_id, ex=MEDIA_TTL)

    # ------------------------------------------------------------------ deleting a user's data

    async def forget_user_keys(self, user_id: int) -> list[str]:
        """Delete every per-user key of `user_id` (private chat pointer, invitation, games set, settings,
        limits); returns the keys that existed."""
        keys = [
            chat_key(user_id),
            user_invite_key(user_id),
            user_games_key(user_id),
            user_settings_key(user_id),
            dice_secret_key(user_id),
            dice_secret_key(user_id, computer=True),
            user_seek_key(user_id),
            user_homes_key(user_id),
            *(limit_key(f"u{user_id}", kind) for kind in ("press", "command", "inline")),
            *(limit_key(f"c{user_id}", kind) for kind in ("press", "command")),
        ]
        async with redis_errors(f"forget user {user_id}"):
            token = await self._r.get(user_invite_key(user_id))
            if token is not None:
                keys.append(invite_key(str(token)))
            # the homes of the user's menus and questions, and of every message in their private chat
            keys.extend(str(key) for key in await self._r.smembers(user_homes_key(user_id)))
            async for key in self._r.scan_iter(match=home_key(f"{user_id}:*"), count=100):
                keys.append(str(key))
            async for key in self._r.scan_iter(match=user_challenges_pattern(user_id), count=100):
                keys.append(str(key))
                challenge = await self._r.get(key)
                if challenge is not None:
                    keys.append(challenge_key(str(challenge)))
            keys = list(dict.fromkeys(keys))  # a home may be both listed and in the private chat
            async with self._r.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.exists(key)
                for key in keys:
                    pipe.delete(key)
                for variant in SEEK_FORMATS:  # the user's entries in the quick-match queues
                    pipe.zrem(seek_key(variant), str(user_id))
                found = await pipe.execute()
        return [key for key, there in zip(keys, found[: len(keys)], strict=True) if there]
