"""The board page's scripts as native ES modules with no build step (bot/web/static/board/, main.js their
entry): the page loads main.js as a module and preloads every other one (no waterfall of imports), each
import names a module of the folder and a name it exports, no two modules import each other, each module is
small, and the server sends each one as JavaScript (a browser runs no module of another type)."""

from __future__ import annotations

import re

from bot.web import PAGE, STATIC_DIR
from bot.web.server import static_files
from tests.test_architecture import cycles

BOARD = STATIC_DIR / "board"
MAX_LINES = 300  # a module that grows past it has more than one job: split it again
IMPORT = re.compile(r'^import \{([^}]*)\} from "\./([\w-]+\.js)";', re.M)
EXPORT = re.compile(r"^export (?:function|let|const) ([\w$]+)", re.M)
EXPORTED_CONSTANTS = re.compile(r"^export const ([^;\n]*)", re.M)


def modules() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(BOARD.glob("*.js"))}


def exports(text: str) -> set[str]:
    names = set(EXPORT.findall(text))
    for declarations in EXPORTED_CONSTANTS.findall(text):  # export const A = 1, B = A + 2
        names |= set(re.findall(r"(?:^|,\s*)([\w$]+)\s*=", declarations))
    return names


def imports(text: str) -> dict[str, set[str]]:
    """module file -> the names imported from it (`a as b` counts as a)."""
    found: dict[str, set[str]] = {}
    for names, source in IMPORT.findall(text):
        found.setdefault(source, set()).update(
            n.split(" as ")[0].strip() for n in names.split(",") if n.strip()
        )
    return found


def test_the_page_loads_main_as_a_module_and_preloads_every_other_module() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert '<script type="module" src="static/board/main.js"></script>' in page
    assert "<script src=" not in page  # no classic script: every one is a module
    preloaded = set(re.findall(r'<link rel="modulepreload" href="static/board/([\w-]+\.js)">', page))
    assert preloaded == set(modules()) - {"main.js"}
    assert len(modules()) >= 8


def test_every_import_names_a_module_of_the_folder_and_a_name_it_exports() -> None:
    found = modules()
    for name, text in found.items():
        assert "import(" not in text and "require(" not in text, name
        assert len(IMPORT.findall(text)) == len(re.findall(r"^import ", text, re.M)), (
            f'{name}: an import the test cannot read (one per line, `import {{ a, b }} from "./x.js";`)'
        )
        for source, names in imports(text).items():
            assert source in found, f"{name} imports {source}, which is not in {BOARD}"
            missing = names - exports(found[source])
            assert not missing, f"{name} imports {sorted(missing)} from {source}, which does not export them"


def test_no_two_modules_of_the_page_import_each_other() -> None:
    graph = {name: set(imports(text)) for name, text in modules().items()}
    assert not cycles(graph), cycles(graph)
    assert "main.js" not in set().union(*graph.values())  # the entry: nothing imports it


def test_each_module_of_the_page_is_small() -> None:
    sizes = {name: len(text.splitlines()) for name, text in modules().items()}
    assert all(lines <= MAX_LINES for lines in sizes.values()), sizes


def test_the_server_sends_every_script_of_the_page_as_javascript() -> None:
    served = static_files()
    scripts = [name for name in served if name.endswith(".js")]
    assert {f"board/{name}" for name in modules()} <= set(scripts)
    assert "sandbox/sandbox.js" in scripts
    assert {served[name].content_type for name in scripts} == {"text/javascript"}
