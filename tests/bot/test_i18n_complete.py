"""Every language the bot speaks: each catalogue complete against the code's message ids, its plural forms,
a glyph in the bundled fonts for each of its characters, each text in its place on the pictures, and a whole
game whose board captions hold no English word."""

from __future__ import annotations

import random
import re
import string
import subprocess
import sys
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from fontTools.ttLib import TTFont

from bot.i18n import (
    LANGUAGE_NAMES,
    LANGUAGES,
    RIGHT_TO_LEFT,
    SOURCE_LANGUAGE,
    UPDATE_COMMAND,
    catalog_path,
    extract_template,
    read_catalog,
    texts,
    untranslated,
)
from engine.sides import Side
from render import compare
from render import stats as chart
from render.board import shortened
from render.gallery import SHORT_START
from render.text import BOLD, REGULAR, _font_bytes, clean_text, shapes_right_to_left, text_width
from render.view import BoardView
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import is_over, play_private_game, reply_to, wait_board
from testkit.fake_telegram.runner import BotRunner

TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE]
FIELDS = string.Formatter()


@cache
def template() -> Any:
    return extract_template()


@cache
def catalog(lang: str) -> Any:
    return read_catalog(catalog_path(lang, ".po"))


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in FIELDS.parse(text) if name is not None}


def strings(message: Any) -> tuple[str, ...]:
    return (message.string,) if isinstance(message.string, str) else tuple(message.string)


# ---------------------------------------------------------------------- catalogues


def test_the_committed_template_holds_the_messages_of_the_code() -> None:
    from bot.i18n import TEMPLATE

    committed = {m.id for m in read_catalog(TEMPLATE) if m.id}
    assert committed == {m.id for m in template() if m.id}, f"run `{UPDATE_COMMAND}` and commit bot/locale"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_of_the_code_is_translated(lang: str) -> None:
    gaps = untranslated(catalog(lang), template())
    assert gaps == [], f"{lang}: {len(gaps)} untranslated or fuzzy; run `{UPDATE_COMMAND}` and translate them"
    fuzzy = [m.id for m in catalog(lang) if m.id and m.fuzzy]
    assert fuzzy == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_translation_keeps_the_placeholders_of_its_message(lang: str) -> None:
    for message in template():
        if not message.id:
            continue
        found = catalog(lang).get(message.id)
        english = message.id if isinstance(message.id, str) else message.id[-1]
        for text in strings(found):
            assert fields(text) == fields(english), f"{lang}: {text!r} for {english!r}"
            example = dict.fromkeys(fields(english), "x")
            text.format(**example)  # a broken brace raises here


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        # n: 0, 1, 2, 5, 11, 21, 101 (CLDR: Ukrainian one/few/many; the others singular after numbers)
        ("ru", ("очков", "очко", "очка", "очков", "очков", "очко", "очко")),
        ("uk", ("очок", "очко", "очки", "очок", "очок", "очко", "очко")),
        ("az", ("xal",) * 7),
        ("hy", ("միավոր",) * 7),
        ("ka", ("ქულა",) * 7),
        ("tr", ("sayı",) * 7),
        ("fa", ("امتیاز",) * 7),
        ("en", ("points", "point", "points", "points", "points", "points", "points")),
    ],
)
def test_plural_forms_of_each_language(lang: str, words: tuple[str, ...]) -> None:
    t = texts(lang)
    counts = (0, 1, 2, 5, 11, 21, 101)
    assert [t.ngettext("{n} point", "{n} points", n) for n in counts] == [
        f"{n} {word}" for n, word in zip(counts, words)
    ]


def test_plural_formulas_follow_cldr() -> None:
    forms = {lang: catalog(lang).plural_forms for lang in TRANSLATED}
    assert forms["uk"] == forms["ru"]
    assert catalog("hy").plural_expr == catalog("fa").plural_expr == "(n > 1)"  # CLDR "one": 0 and 1
    for lang in ("az", "ka", "tr"):
        assert catalog(lang).plural_expr == "(n != 1)"


def test_each_language_is_offered_by_its_own_name_and_named_by_telegram_codes() -> None:
    assert set(LANGUAGE_NAMES) == set(LANGUAGES)
    assert len(set(LANGUAGE_NAMES.values())) == len(LANGUAGES)
    for lang in TRANSLATED:
        assert texts(f"{lang}-XX").lang == lang


# ---------------------------------------------------------------------- glyphs


@cache
def cmap(name: str) -> frozenset[int]:
    import io

    return frozenset(TTFont(io.BytesIO(_font_bytes(name))).getBestCmap())


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_letter_of_every_translation_has_a_glyph_in_both_fonts(lang: str) -> None:
    """Letters, marks, digits, punctuation and spaces, read from the fonts' cmaps by fontTools. Emoji and
    other symbols (messages only: Telegram draws them) and invisible format characters are not drawn by
    the board's font; the words drawn on pictures are checked whole below."""
    missing: set[str] = set()
    for message in catalog(lang):
        if not message.id:
            continue
        for text in strings(message):
            for ch in text:
                category = unicodedata.category(ch)
                if category[0] in "LMNPZ" and not (ord(ch) in cmap(REGULAR) and ord(ch) in cmap(BOLD)):
                    missing.add(f"U+{ord(ch):04X} {unicodedata.name(ch, '?')}")
    assert not missing, f"{lang}: no glyph for {sorted(missing)}"


# ---------------------------------------------------------------------- places on the pictures

NAME = "Margarita"  # a name in the texts measured below (a longer name is shortened, as any name is)
PLAY = "13/7* 13/7 8/2 8/2"
LEVELS = ("beginner", "intermediate", "expert")
KINDS = ("oin", "mars", "koks", "home mars")


def picture_words(lang: str) -> dict[str, list[str]]:
    """Every text a picture of `lang` can show in each place, placeholders filled with wide values."""
    t = texts(lang)
    kinds = [t.gettext(kind) for kind in KINDS]
    statuses = [t.gettext("{name} wins: {kind}", name=NAME, kind=kind) for kind in kinds]
    statuses += [
        t.gettext("{name} wins: the double was passed", name=NAME),
        t.gettext("{name} doubles to {value}", name=NAME, value=64),
        t.gettext("Your move: {dice}", dice="6-6"),
        t.gettext("{name} to move: {dice}", name=NAME, dice="6-6"),
        t.gettext("{name} to roll", name=NAME),
        t.gettext("Who will accept?"),
        t.gettext("⚪ {white} vs ⚫ {black}", white=NAME, black="Bob"),
        "188/188 · " + t.gettext("no move"),
    ]
    score = t.gettext("{w}:{b} of {n}", w=6, b=6, n=7) + " · "
    statuses += [score + status for status in statuses[:6]]
    names = [t.gettext("White"), t.gettext("Black"), t.gettext("a former player")]
    names += [t.gettext("Computer ({level})", level=t.gettext(level)) for level in LEVELS]
    labels = [t.gettext("Played: {play}", play=PLAY), t.gettext("Better: {play}", play=PLAY)]
    return {"status": statuses, "names": names, "labels": labels}


def needs_shaping(lang: str) -> None:
    if lang in RIGHT_TO_LEFT and not shapes_right_to_left():
        pytest.skip(
            f"{lang} needs Pillow's libraqm with FriBiDi (Debian: libfribidi0); the bot draws English"
        )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_text_of_each_language_fits_its_place_on_the_board(lang: str) -> None:
    needs_shaping(lang)
    t = texts(lang)
    words = picture_words(lang)
    wide_status = max(words["status"], key=lambda s: text_width(s, 24, True))
    for name in words["names"]:
        for winner in (None, Side.WHITE):
            view = BoardView(
                game="short",
                points=SHORT_START,
                names=(name, name),
                to_move=None if winner else Side.WHITE,
                winner=winner,
                pips=(888, 888),
                status=wide_status,
                pips_label=t.gettext("pips"),
            )
            assert shortened(view) == [], f"{lang}: {shortened(view)} do not fit"
    for status in words["status"]:
        view = BoardView(game="long", points=SHORT_START, names=("A", "B"), winner=Side.BLACK, status=status)
        assert shortened(view) == [], f"{lang}: {status!r} does not fit the status line"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_analysis_labels_and_the_rating_chart_words_fit(lang: str) -> None:
    needs_shaping(lang)
    t = texts(lang)
    for label in picture_words(lang)["labels"]:
        assert text_width(clean_text(label), compare.LABEL_SIZE) <= compare.label_room(), f"{lang}: {label!r}"
    words = chart.ChartTexts(
        t.gettext("Rating of {name}", name=NAME),
        t.gettext("date"),
        t.gettext("rating"),
        t.gettext("No rated matches yet"),
    )
    series = [t.gettext("Short nardy"), t.gettext("Long nardy")]
    assert chart.shortened(series, words) == [], lang


def test_persian_is_shaped_right_to_left_on_the_board() -> None:
    """With libraqm the letters join and run right to left: the shaped word is narrower than its letters
    drawn apart (each isolated form), and a Latin name keeps its width."""
    if not shapes_right_to_left():
        pytest.skip("no libraqm/FriBiDi: Persian pictures fall back to English words")
    word = "تخته‌نرد"
    apart = sum(text_width(ch, 24) for ch in word)
    assert text_width(word, 24) < apart
    assert texts("fa").for_picture().lang == "fa"


def test_without_shaping_a_persian_picture_speaks_english(monkeypatch: pytest.MonkeyPatch) -> None:
    import render.text

    monkeypatch.setattr(render.text, "shapes_right_to_left", lambda: False)
    assert texts("fa").for_picture().lang == "en"
    assert texts("hy").for_picture().lang == "hy"


# ---------------------------------------------------------------------- a whole game per language

# Words that are the same in the languages that share the Latin script with English: game terms and names.
SHARED = {"mars", "koks", "bar", "carol", "oyun"}
TOKENS = re.compile(
    r"/\w+"  # a command (/verify)
    r"|\b[0-9a-f]{16,}\b"  # a hash or a seed
    r"|\b\w+/\d+\b"  # a game id (/verify GAME/N)
    r"|\b(?:\d+|bar)/(?:\d+|off)\*?(?:\(\d\))?"  # a move: 13/7*, bar/22, 6/off(2)
)


@cache
def english_words() -> frozenset[str]:
    found: set[str] = set()
    for message in template():
        for text in [message.id] if isinstance(message.id, str) else message.id:
            found |= {w.lower() for w in re.findall(r"[A-Za-z]{3,}", re.sub(r"\{\w+\}", " ", text))}
    return frozenset(found - SHARED)


def english_in(caption: str) -> set[str]:
    rest = TOKENS.sub(" ", caption)
    return {w for w in re.findall(r"[A-Za-z]{3,}", rest) if w.lower() in english_words()}


def press_data(user: SimUser, tg: FakeTelegram, msg: Any, pattern: str) -> None:
    current = tg.message(msg.chat_id, msg.message_id)
    text = next(b["text"] for b in current.buttons if re.fullmatch(pattern, str(b.get("callback_data", ""))))
    user.press(msg, lambda label: label == text)


@pytest.mark.slow
@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_whole_game_in_each_language_leaves_no_english_in_the_captions(
    lang: str, tg: FakeTelegram, bot: BotRunner
) -> None:
    carol = SimUser(tg, 3, "Carol", language_code=lang)
    menu = reply_to(carol, "/newgame")
    assert menu.text == texts(lang).gettext("Which game?")
    press_data(carol, tg, menu, r"v:3:short")
    press_data(carol, tg, menu, r"o:3:short:c")
    press_data(carol, tg, menu, r"l:3:short:beginner")
    first = wait_board(tg, carol.id)
    captions = [first.caption or ""]
    final = play_private_game(tg, [carol], random.Random(5))[carol.id]
    assert is_over(final)
    captions.append(final.caption or "")
    buttons = " ".join(tg.message(final.chat_id, final.message_id).button_texts)
    for caption in [*captions, buttons]:
        assert english_in(caption) == set(), f"{lang}: English left in {caption!r}"
    assert texts(lang).gettext("Press Rematch to play again.") in captions[-1]
    assert not bot.errors.records, bot.errors.messages()


def test_the_gallery_draws_two_boards_in_every_language_with_nothing_shortened() -> None:
    from bot.views.gallery import translated_samples
    from render.board import render_board

    boards = translated_samples()
    assert sorted({stem.split("-")[0] for stem in boards}) == sorted(LANGUAGES)
    for stem, view in boards.items():
        assert render_board(view)[:2] == b"\xff\xd8", stem  # a JPEG
        if shapes_right_to_left() or stem.split("-")[0] not in RIGHT_TO_LEFT:
            assert shortened(view) == [], stem


def test_the_bots_gallery_runs_as_a_module_and_writes_every_sample_in_every_language(tmp_path: Path) -> None:
    from bot.views.gallery import every_sample

    done = subprocess.run(
        [sys.executable, "-m", "bot.views.gallery", str(tmp_path / "out")],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    written = sorted(path.stem for path in (tmp_path / "out").glob("*.jpg"))
    assert written == sorted(every_sample())
    assert {stem.split("-")[0] for stem in written} >= set(LANGUAGES)
