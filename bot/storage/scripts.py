"""The Lua scripts of the storage: each a file in lua/ beside this module, read once, registered by SHA.

A script's file starts with a comment naming its KEYS and ARGV and what it returns. Lua shared by several
scripts lives in a file of its own and is included by a line that reads exactly `-- @include <name>`: the
loader puts that file's text in its place (once per script, however often it is named), so the shared Lua
is written once and never pasted. A script is registered with redis-py (`register_script`): it is called by
EVALSHA, and loaded again with SCRIPT LOAD when Redis answers NOSCRIPT (a restarted or flushed Redis).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from importlib import resources

import redis.asyncio as aioredis
from redis.commands.core import AsyncScript

INCLUDE = re.compile(r"^-- @include ([a-z0-9_]+)[ \t]*$", re.MULTILINE)


def lua_file(name: str) -> str:
    """The text of lua/<name>.lua as written (includes not resolved)."""
    return resources.files(__package__).joinpath("lua", f"{name}.lua").read_text(encoding="utf-8")


def lua_names() -> list[str]:
    """The names of every file in lua/, sorted."""
    found = resources.files(__package__).joinpath("lua").iterdir()
    return sorted(f.name.removesuffix(".lua") for f in found if f.name.endswith(".lua"))


def includes(name: str) -> list[str]:
    """The names lua/<name>.lua includes directly."""
    return INCLUDE.findall(lua_file(name))


def resolve(name: str, read: Callable[[str], str] = lua_file) -> str:
    """The text of script `name` (as `read` gives it) with every include line replaced by the included
    text, itself resolved; a file included a second time is left out (its definitions are there)."""
    done: set[str] = set()

    def text(wanted: str, including: tuple[str, ...]) -> str:
        done.add(wanted)

        def include(found: re.Match[str]) -> str:
            inner = found.group(1)
            if inner in (*including, wanted):
                raise ValueError(
                    f"lua/{wanted}.lua includes itself: {' -> '.join((*including, wanted, inner))}"
                )
            if inner in done:
                return f"-- ({inner} is included above)"
            return text(inner, (*including, wanted)).rstrip("\n")

        return INCLUDE.sub(include, read(wanted))

    return text(name, ())


@functools.cache
def source(name: str) -> str:
    """The script lua/<name>.lua with its includes resolved: what Redis runs (read once per process)."""
    return resolve(name)


def register(client: aioredis.Redis, name: str) -> AsyncScript:
    """The script lua/<name>.lua, registered with `client`: called by EVALSHA, reloaded on NOSCRIPT."""
    return client.register_script(source(name))
