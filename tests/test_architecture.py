"""The shape of the code, read with the standard library's `ast`: no import circle between the project's
modules, no import reaching up a floor or across to a sibling (FLOORS: docs/architecture.md's layers), no
module over MAX_LINES lines outside tests/, no Lua written in a Python string (a script is a file:
bot/storage/lua/), and every package's __init__.py saying in its docstring what lives there."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = ("bot", "engine", "render", "testkit", "bench", "scripts")  # everything but tests/
MAX_LINES = 600
# Modules over MAX_LINES, each held at its size until it is split: it may shrink, never grow, and its line here
# goes once it is under the limit. Issue 28 split the last of them (bot/storage.py, bot/flow.py,
# engine/records.py, engine/rules/base.py, bench/load.py, testkit/fake_telegram/server.py, testkit/browser.py).
OVERSIZED: dict[str, int] = {}
# The floors, lowest first (docs/architecture.md): a module may import its own group and the groups of the
# floors below, never one above nor a sibling on its own floor (the fronts bot/telegram and bot/web are
# composed above both, in bot/app.py). A module belongs to the longest group its name starts with; every
# module must belong to one (a new folder is given its floor here).
FLOORS: tuple[tuple[str, ...], ...] = (
    ("engine",),  # the rules, pure
    ("render",),  # the pictures: a pure function of a view
    (
        "bot",
        "bot.config",
        "bot.i18n",
        "bot.embedded_redis",
        "bot.workers",
    ),  # the bot's ground: settings, words
    ("bot.model",),  # the game's domain, pure
    ("bot.storage", "bot.views"),  # Redis; a game in words and as a picture's view
    ("bot.service",),  # the operations a player can do
    ("bot.telegram", "bot.web"),  # the fronts, siblings
    ("bot.app", "bot.health"),  # the fronts composed; the container's health check
    ("bot.__main__",),  # starts it all
    ("testkit",),  # what tests and benchmarks share
    ("bench", "scripts", "tests"),
)
LUA_WORDS = ("redis.call(", "redis.pcall(", "cjson.decode(", "cjson.encode(")


def python_files(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(folders: tuple[str, ...] = CODE) -> dict[str, set[str]]:
    """Project module -> the project modules it imports (anywhere in it: at the top, in a function, under
    TYPE_CHECKING). `from a import b` names the module a.b if there is one, else the module a."""
    files = {module_name(path): path for path in python_files(*folders)}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names if alias.name in files)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                for alias in node.names:
                    if f"{source}.{alias.name}" in files:
                        found.add(f"{source}.{alias.name}")
                    elif source in files:
                        found.add(source)
        graph[name] = found - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each group of modules that import each other (Tarjan's strongly connected
    components, then a path back to the start inside each), as [a, b, ..., a]."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    found = []
    for group in groups:
        start = min(group)
        paths = {start: [start]}  # the shortest path from `start` to each member
        todo = [start]
        while todo:
            node = todo.pop(0)
            for other in sorted(graph[node] & group):
                if other not in paths:
                    paths[other] = [*paths[node], other]
                    todo.append(other)
        last = min((n for n in paths if start in graph[n]), key=lambda n: (len(paths[n]), n))
        found.append([*paths[last], start])
    return sorted(found)


def test_no_module_imports_itself_through_others() -> None:
    graph = import_graph()
    assert {"bot.storage", "bot.storage.games", "bot.model.stats", "engine", "testkit.fuzzer"} <= set(graph)
    assert "bot.storage.keys" in graph["bot.storage.games"]
    circles = [" -> ".join(circle) for circle in cycles(graph)]
    assert not circles, "modules that import each other (one module, or a third to own what both need):\n" + (
        "\n".join(circles)
    )


def test_the_circle_finder_names_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e2"}, "e2": {"e"}}
    assert cycles(graph) == [["a", "b", "c", "a"], ["e", "e2", "e"]]


def group_of(module: str, floors: tuple[tuple[str, ...], ...] = FLOORS) -> tuple[int, str] | None:
    """(floor, group) of `module`: the longest group its name is or starts with; None: on no floor. The
    group "bot" holds bot/__init__.py only (a module bot.x must be given a floor of its own)."""
    found = [
        (len(group), floor, group)
        for floor, groups in enumerate(floors)
        for group in groups
        if module == group or (module.startswith(group + ".") and group != "bot")
    ]
    return max(found)[1:] if found else None


def wrong_way(graph: dict[str, set[str]], floors: tuple[tuple[str, ...], ...] = FLOORS) -> list[str]:
    """Each import that reaches up a floor or across to a sibling group on the same floor, and each module
    on no floor, as a line for a person."""
    found = []
    for module in sorted(graph):
        mine = group_of(module, floors)
        if mine is None:
            found.append(f"{module} is on no floor (give its folder a place in FLOORS)")
            continue
        for other in sorted(graph[module]):
            theirs = group_of(other, floors)
            if theirs is None or theirs[1] == mine[1] or theirs[0] < mine[0]:
                continue
            way = "up" if theirs[0] > mine[0] else "across"
            found.append(f"{module} -> {other} ({mine[1]} reaches {way} to {theirs[1]})")
    return found


def test_no_module_imports_a_floor_above_its_own_or_a_sibling() -> None:
    graph = import_graph((*CODE, "tests"))
    assert {"engine", "render.gallery", "bot.telegram.app", "bot.web.server", "tests.test_docs"} <= set(graph)
    assert "bot.service.context" in graph["bot.web.server"]
    found = wrong_way(graph)
    assert not found, (
        "imports the wrong way (engine < render < bot's floors < testkit < bench, scripts, tests; see FLOORS):\n"
        + "\n".join(found)
    )


def test_the_floor_checker_names_an_import_up_across_and_a_module_on_no_floor() -> None:
    floors = (("low",), ("mid.a", "mid.b"), ("top",))
    graph = {
        "low": set(),
        "low.x": {"low", "mid.a.y"},  # up
        "mid.a.y": {"low.x", "mid.a"},  # down, and its own group
        "mid.a": set(),
        "mid.b": {"mid.a.y"},  # across
        "top": {"low", "mid.b"},
        "stray": {"low"},
    }
    assert wrong_way(graph, floors) == [
        "low.x -> mid.a.y (low reaches up to mid.a)",
        "mid.b -> mid.a.y (mid.b reaches across to mid.a)",
        "stray is on no floor (give its folder a place in FLOORS)",
    ]
    assert group_of("bot.web.server") == (6, "bot.web")
    assert group_of("bot") == (2, "bot")
    assert group_of("bot.newfolder.x") is None


def test_no_module_outside_tests_is_over_the_line_limit() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in python_files(*CODE)
    }
    too_long = {path: lines for path, lines in sizes.items() if lines > OVERSIZED.get(path, MAX_LINES)}
    assert not too_long, f"modules over {MAX_LINES} lines (or grown past their size in OVERSIZED): {too_long}"
    split = [path for path in OVERSIZED if sizes.get(path, 0) <= MAX_LINES]
    assert not split, f"{split} are under {MAX_LINES} lines now (or gone): take them out of OVERSIZED"


def test_no_lua_is_written_in_a_python_string() -> None:
    found = []
    for path in python_files(*CODE):
        texts = [
            (node.lineno, node.value)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path)))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        ]
        found += [
            f"{path.relative_to(ROOT)}:{line}" for line, text in texts if any(w in text for w in LUA_WORDS)
        ]
    assert not found, f"Lua in Python strings (a script is a .lua file, see bot/storage/scripts.py): {found}"


def test_every_package_says_in_its_docstring_what_lives_there() -> None:
    packages = sorted(path for folder in (*CODE, "tests") for path in (ROOT / folder).rglob("__init__.py"))
    assert len(packages) >= 8
    silent = [
        str(path.relative_to(ROOT))
        for path in packages
        if len((ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").split()) < 4
    ]
    assert not silent, f"packages whose __init__.py has no docstring saying what lives there: {silent}"
