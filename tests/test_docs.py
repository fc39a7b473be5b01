"""The documentation cannot rot silently: README.md and every page of docs/ link only to files that exist
(and to headings that exist in them), every project path they name in backticks or code blocks exists, every
`python -m` module they name is there, and README stays a front page (under README_MAX_LINES lines)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 200
# A path in backticks or a code block is checked when it starts with one of the project's top-level folders.
TOP = ("bot", "engine", "render", "testkit", "tests", "bench", "scripts", "docs", ".ci")
PACKAGES = ("bot", "engine", "render", "testkit", "bench", "tests")

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")  # [text](target) and ![alt](target)
HTML_SOURCE = re.compile(r"""<(?:img|a)\s[^>]*?(?:src|href)="([^"]+)\"""")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
INDENTED = re.compile(r"^(?: {4}|\t).+$", re.MULTILINE)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"(?<![\w./$<-])((?:" + "|".join(re.escape(top) for top in TOP) + r")/[\w./*-]*)")
MODULE = re.compile(r"python3?\s+-m\s+([\w.]+)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def relative(page: Path) -> str:
    return str(page.relative_to(ROOT))


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped (hyphens kept), spaces as hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    found: set[str] = set()
    for heading in HEADING.findall(text):
        base = anchor(heading)
        name, n = base, 0
        while name in found:  # a repeated heading gets -1, -2, ...
            n += 1
            name = f"{base}-{n}"
        found.add(name)
    return found


def links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    text = CODE_SPAN.sub("", text)
    return LINK.findall(text) + HTML_SOURCE.findall(text)


def code(page: Path) -> list[str]:
    """The text of the page's code: spans in backticks, fenced blocks and indented blocks."""
    text = page.read_text(encoding="utf-8")
    blocks = [match.group(0) for match in FENCE.finditer(text)]
    prose = FENCE.sub("", text)
    return blocks + INDENTED.findall(prose) + CODE_SPAN.findall(prose)


def project_paths(snippet: str) -> list[str]:
    return [path.rstrip(".") for path in PATH.findall(snippet) if path.rstrip(".") not in TOP]


def exists(path: str) -> bool:
    if "*" in path:
        return any(ROOT.glob(path))
    return (ROOT / path).exists()


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_every_relative_link_reaches_a_file_and_its_heading(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, tg:
            continue
        path, _, fragment = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists():
            broken.append(f"{target} (no such file)")
        elif fragment and where.suffix == ".md" and fragment not in anchors(where):
            broken.append(f"{target} (no heading #{fragment} in {where.relative_to(ROOT)})")
    assert not broken, f"{relative(page)} links to what is not there: {broken}"


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_every_project_path_named_exists(page: Path) -> None:
    missing = sorted({path for snippet in code(page) for path in project_paths(snippet) if not exists(path)})
    assert not missing, f"{relative(page)} names paths that are not in the project: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_every_python_module_named_exists(page: Path) -> None:
    missing = []
    for snippet in code(page):
        for module in MODULE.findall(snippet):
            parts = module.split(".")
            if parts[0] not in PACKAGES:
                continue  # the standard library's (venv) and other packages'
            base = ROOT.joinpath(*parts)
            if not (base.with_suffix(".py").exists() or (base / "__init__.py").exists()):
                missing.append(module)
    assert not missing, f"{relative(page)} names modules that are not in the project: {sorted(set(missing))}"


def test_readme_is_a_front_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_MAX_LINES, f"README.md has {len(lines)} lines: move detail into docs/"
    assert lines[0] == "# nardy"
    assert ".venv/bin/nardy-bot" in lines[3] and ".venv/bin/pytest -q" in lines[4], (
        "the two commands come first"
    )


def test_the_checks_see_what_they_check() -> None:
    """The patterns themselves: what counts as a project path, a link and an anchor."""
    assert project_paths("`bot/storage/lua/save_game.lua`, `docs/webapp-*.png`, `GAME/N`, `$X/redis`") == [
        "bot/storage/lua/save_game.lua",
        "docs/webapp-*.png",
    ]
    assert project_paths("bot/locale/<lang>/LC_MESSAGES") == ["bot/locale/"]
    assert project_paths("python bench/load.py --games 200.") == ["bench/load.py"]
    assert anchor("Matches and the doubling cube") == "matches-and-the-doubling-cube"
    assert anchor("`/forget`: a user's data") == "forget-a-users-data"
    assert LINK.findall("see [storage](docs/storage.md#keys) and ![board](docs/board-short.png)") == [
        "docs/storage.md#keys",
        "docs/board-short.png",
    ]
