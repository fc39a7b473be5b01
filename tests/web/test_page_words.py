"""The board page speaks every language of the chat, from the same catalogues: its words are message ids of
bot/web/words.py, sent in the person's language in the welcome; the English it shows before the welcome is
those ids; every word its scripts ask for is one of them; the fonts its CSS names hold every letter of every
language; and in Chromium a Ukrainian page shows Ukrainian words and a Persian page runs right to left
around a board drawn as in any other language. The review page likewise: every word its scripts (and the
board's drawing it reuses) ask for is in bot/web/review_words.py, translated in every catalogue, and held
by the fonts."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import unicodedata
from functools import cache
from typing import TYPE_CHECKING

import pytest

from bot.i18n import LANGUAGES, RIGHT_TO_LEFT, texts
from bot.web import STATIC_DIR
from bot.web.review_words import REVIEW_WORDS, review_words
from bot.web.words import PAGE_WORDS, direction, page_words
from testkit.browser import DESKTOP, StubServer, StubTable, checker_centre, open_board

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

BOARD = STATIC_DIR / "board"
REVIEW = STATIC_DIR / "review"


def scripts() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(BOARD.glob("*.js"))}


def first_words() -> dict[str, str]:
    """strings.js's FIRST: the English the page shows before the welcome."""
    text = scripts()["strings.js"]
    body = text[text.index("export const FIRST = {") : text.index("};", text.index("export const FIRST"))]
    return dict(re.findall(r'(\w+): "((?:[^"\\]|\\.)*)"', body))


def test_the_english_before_the_welcome_is_the_message_ids_of_those_words() -> None:
    first = first_words()
    assert first, "strings.js's FIRST could not be read"
    assert {key: PAGE_WORDS[key] for key in first} == first


def test_every_word_the_scripts_ask_for_is_in_the_catalogue() -> None:
    asked: set[str] = set()
    for text in scripts().values():
        asked |= set(re.findall(r'\bt\("(\w+)"', text))
        asked |= set(re.findall(r'spoken\([^;]*?"(\w+)", \{', text, re.S))
    page = scripts()["page.js"]
    buttons = re.search(r"const BUTTONS = \[([^\]]*)\]", page)
    assert buttons is not None
    asked |= set(re.findall(r'"(\w+)"', buttons.group(1)))
    assert {"undo", "resign", "onPoint", "moves", "move"} <= asked  # the reading above still reads
    assert asked - set(PAGE_WORDS) == set()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_page_words_of_each_language_come_from_its_catalogue(lang: str) -> None:
    words = page_words(lang)
    assert set(words) == set(PAGE_WORDS)
    t = texts(lang)
    assert words == {key: t.gettext(message) for key, message in PAGE_WORDS.items()}
    if lang != "en":
        same = {key for key, word in words.items() if word == PAGE_WORDS[key] and re.search("[a-z]{3}", word)}
        assert same <= {"onBar"}, f"{lang}: left in English: {same}"  # "Bar" is Azerbaijani and Turkish too
    assert direction(lang) == ("rtl" if lang in RIGHT_TO_LEFT else "ltr")


def review_asks() -> set[str]:
    """Every key of a word the review's scripts and the board's drawing (draw.js) ask for: t("key"),
    t(a ? "key" : "key"), the keys of view.js's tables (STEP_LABELS, FIGURES, PROOF_LINES), the downloads'
    kinds (t(d.kind)) and the proof's failed checks (t(answer.failed))."""
    texts_ = [path.read_text(encoding="utf-8") for path in sorted(REVIEW.glob("*.js"))]
    texts_.append(scripts()["draw.js"])
    asked: set[str] = set()
    for text in texts_:
        asked |= set(re.findall(r'\bt\("(\w+)"', text))
        for pair in re.findall(r'\bt\(\w[^()]*\? "(\w+)" : "(\w+)"\)', text):
            asked |= set(pair)
        asked |= set(re.findall(r'spoken\([^;]*?"(\w+)", \{', text, re.S))
        for table in re.findall(r"const (?:STEP_LABELS|FIGURES|PROOF_LINES) = (\[.*?\]);", text, re.S):
            asked |= set(re.findall(r'\["(\w+)"' if table.startswith("[[") else r'"(\w+)"', table))
        asked |= set(re.findall(r'failed: "(\w+)"', text))
    asked |= {"mat", "txt", "json"}  # the downloads' kinds (the contract's)
    return asked


def test_every_word_the_review_asks_for_is_in_its_catalogue() -> None:
    asked = review_asks()
    # the reading above still reads: plain keys, a ternary, the figures' and the proof's tables, the
    # failed checks, the board's drawing
    assert {
        "playOf",
        "pause",
        "autoplay",
        "blunders",
        "commitment",
        "failRoll",
        "noCrypto",
        "onPoint",
    } <= asked
    assert {"white", "black", "board", "borneOff", "errorRate", "clients"} <= asked
    assert asked - set(REVIEW_WORDS) == set()


def test_the_reviews_board_words_are_the_board_pages_message_ids() -> None:
    shared = set(REVIEW_WORDS) & set(PAGE_WORDS)
    assert {"board", "white", "black", "onPoint", "onBar", "borneOff", "you"} <= shared
    assert {key: REVIEW_WORDS[key] for key in shared} == {key: PAGE_WORDS[key] for key in shared}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_review_words_of_each_language_come_from_its_catalogue(lang: str) -> None:
    words = review_words(lang)
    assert set(words) == set(REVIEW_WORDS)
    t = texts(lang)
    assert words == {key: t.gettext(message) for key, message in REVIEW_WORDS.items()}
    if lang != "en":
        same = {
            key for key, word in words.items() if word == REVIEW_WORDS[key] and re.search("[a-z]{3}", word)
        }
        assert same <= {"onBar"}, f"{lang}: left in English: {same}"


# ---------------------------------------------------------------------- fonts


def font_stack() -> list[str]:
    css = (STATIC_DIR / "board.css").read_text(encoding="utf-8")
    found = re.search(r"--font:\s*([^;]+);", css)
    assert found is not None, "board.css names no --font"
    return [name.strip().strip('"') for name in found.group(1).split(",")]


def test_the_page_and_the_board_use_the_one_font_stack() -> None:
    css = (STATIC_DIR / "board.css").read_text(encoding="utf-8")
    assert "font-family: var(--font)" in css and "15px/1.35 var(--font)" in css
    assert not re.search(r"font(?:-family)?:[^;]*\bsans-serif", css.split("--font:")[1].split(";", 1)[1])
    stack = font_stack()
    assert stack[-1] == "sans-serif" and "DejaVu Sans" in stack


# What the review's scripts and page show besides its words: the step buttons' symbols, the marks, the
# proof's verdict, the loss's minus sign.
REVIEW_SYMBOLS = ("« ‹ ▶ ❚❚ › »", "?! ? ??", "✓ ✗", "−0.154")


@cache
def installed(family: str) -> frozenset[int]:
    """Every character the installed fonts of `family` hold (fontconfig's files, read by fontTools)."""
    from fontTools.ttLib import TTFont

    done = subprocess.run(
        ["fc-list", family, "file"], capture_output=True, text=True, timeout=30, check=False
    )
    found: set[int] = set()
    for line in done.stdout.splitlines():
        path = line.split(":")[0].strip()
        if path.endswith((".ttf", ".otf")):
            with open(path, "rb") as f:
                found |= set(TTFont(io.BytesIO(f.read())).getBestCmap())
    return frozenset(found)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_fonts_of_the_stack_installed_here_hold_every_letter_of_the_page(lang: str) -> None:
    """As the browser falls back through the stack letter by letter: letters, marks, digits, punctuation
    and spaces of the page's words in `lang` each in some installed font the stack names."""
    if shutil.which("fc-list") is None:
        pytest.skip("no fontconfig (fc-list) to find the installed fonts")
    held = frozenset().union(*(installed(family) for family in font_stack() if family != "sans-serif"))
    if not held:
        pytest.skip("none of the page's fonts is installed here")
    missing = {
        f"U+{ord(ch):04X} {unicodedata.name(ch, '?')}"
        for word in [*page_words(lang).values(), *review_words(lang).values(), *REVIEW_SYMBOLS]
        for ch in re.sub(r"\{\w+\}", "", word)
        if unicodedata.category(ch)[0] in "LMNPZ" and ord(ch) not in held
    }
    assert not missing, f"{lang}: no font of the stack holds {sorted(missing)}"


# ---------------------------------------------------------------------- in the browser


def test_a_ukrainian_page_shows_ukrainian_words(server: StubServer, desktop: Page) -> None:
    server.add(StubTable.start("g", "short", (6, 1), lang="uk"))
    open_board(desktop, server, "g")
    desktop.wait_for_function("document.documentElement.lang === 'uk'")
    assert desktop.locator("#buttons button").all_text_contents() == ["? Підказка", "⚑ Здатися"]
    assert desktop.locator(".pips-label").first.text_content() == "піпси "
    assert desktop.get_attribute("#board", "aria-label") == "Дошка для нард"
    assert desktop.get_attribute("#moves", "aria-label") == "Ваші ходи"
    moves = desktop.locator("#moves button").all_text_contents()
    assert moves and all(re.fullmatch(r"З пункту \d+ на пункт \d+", m) for m in moves), moves
    desktop.click("#buttons button.resign")
    assert desktop.text_content("#confirm-text") == "Ви справді хочете здати цю партію?"


def test_a_persian_page_runs_right_to_left_around_the_same_board(
    server: StubServer, desktop: Page, browser: Browser
) -> None:
    server.add(StubTable.start("fa", "short", (6, 1), lang="fa"))
    server.add(StubTable.start("en", "short", (6, 1)))
    open_board(desktop, server, "fa")
    desktop.wait_for_function("document.documentElement.dir === 'rtl'")
    assert desktop.evaluate("document.documentElement.lang") == "fa"
    assert desktop.locator("#buttons button").all_text_contents() == ["? راهنمایی", "⚑ تسلیم"]
    swatch = desktop.locator("#panel-bottom .swatch").bounding_box()
    name = desktop.locator("#panel-bottom .name").bounding_box()
    assert (
        swatch is not None and name is not None and swatch["x"] > name["x"]
    )  # the panel reads from the right
    assert desktop.evaluate("getComputedStyle(document.getElementById('board-wrap')).direction") == "ltr"
    english = browser.new_context(**DESKTOP)
    try:
        page = english.new_page()
        open_board(page, server, "en")  # the same board in English, on the same screen
        for point, side in ((24, 0), (13, 0), (1, 1), (12, 1)):
            assert checker_centre(desktop, point, side) == pytest.approx(checker_centre(page, point, side))
    finally:
        english.close()
