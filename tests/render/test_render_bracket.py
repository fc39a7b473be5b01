"""The knockout's bracket picture (render/bracket.py): where the boxes are, the champion's path in gold,
both themes, 64 players, names full of control characters or far too long."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from PIL import Image

from render.bracket import (
    WIDTH,
    Bout,
    BracketError,
    BracketPicture,
    BracketTexts,
    Entrant,
    draw_bracket,
    fits_a_photo,
    geometry,
    render_bracket,
    round_names,
)
from render.theme import THEMES, mix, palette
from tests.render.render_pixels import RGB, near, pixel

TEXTS = BracketTexts(
    "Club knockout", round_names(2, "Final", "Semi-finals", "Quarter-finals", "Round of {players}")
)


def played(
    won_top: bool = True, score: tuple[int, int] = (3, 1), on_path: bool = False, **names: str
) -> Bout:
    top, bottom = names.get("top", "Alice"), names.get("bottom", "Bob")
    return Bout(
        Entrant(top, 1, score[0] if won_top else score[1], won_top),
        Entrant(bottom, 4, score[1] if won_top else score[0], not won_top),
        on_path=on_path,
    )


def four(top_name: str = "Alice") -> BracketPicture:
    """Alice beats Bob, Carol beats Dave, Alice wins the final: her path is gold."""
    semis = (played(on_path=True, top=top_name), played(top="Carol", bottom="Dave"))
    final = Bout(Entrant(top_name, 1, 5, True), Entrant("Carol", 2, 2), on_path=True)
    return BracketPicture((semis, (final,)), replace(TEXTS, champion=f"Champion: {top_name}"))


def ink(image: Image.Image, box: tuple[int, int, int, int], colour: RGB, tolerance: float = 60) -> int:
    left, top, right, bottom = box
    return sum(
        near(pixel(image, (x, y)), colour, tolerance) for x in range(left, right) for y in range(top, bottom)
    )


@pytest.mark.parametrize("theme", THEMES)
def test_the_boxes_are_where_the_geometry_says_on_the_themes_background(theme: str) -> None:
    picture = four()
    image = draw_bracket(picture, theme)
    g = geometry(picture)
    assert image.size == g.size and image.width == WIDTH
    colours = palette(theme)
    assert pixel(image, (2, 2)) == colours.background
    _left, top, right, bottom = g.box(0, 1)  # Carol v Dave: off the path
    box_fill = mix(colours.background, colours.panel_turn, 0.85)
    assert pixel(image, (right - 3, bottom - 3)) == box_fill
    assert pixel(image, (right + 2, top - 6)) == colours.background


@pytest.mark.parametrize("theme", THEMES)
def test_the_champions_path_is_outlined_in_gold_and_the_other_matches_are_not(theme: str) -> None:
    picture = four()
    image = draw_bracket(picture, theme)
    g = geometry(picture)
    gold = palette(theme).turn_accent
    for round_, index in ((0, 0), (1, 0)):
        left, _top, right, bottom = g.box(round_, index)
        assert pixel(image, ((left + right) // 2, bottom - 1)) == gold
    left, _top, right, bottom = g.box(0, 1)
    assert not near(pixel(image, ((left + right) // 2, bottom - 1)), gold, 30)


def test_the_champions_name_is_gold_and_a_loser_is_dim() -> None:
    picture = four()
    image = draw_bracket(picture)
    g = geometry(picture)
    colours = palette("light")
    left, top, right, _ = g.box(1, 0)
    assert ink(image, (left, top, right, top + g.row), colours.text_gold, 40) > 30  # Alice, the champion
    assert ink(image, (left, top + g.row, right, top + 2 * g.row), colours.text_gold, 40) == 0  # Carol


def test_control_characters_in_a_name_draw_as_the_name_without_them() -> None:
    clean = draw_bracket(four("Alice"))
    dirty = draw_bracket(four("\u202e\x00Al\u200bice\x1b\u0007"))
    assert clean.tobytes() == dirty.tobytes()


def test_a_very_long_name_stays_inside_its_box() -> None:
    short = draw_bracket(four("Al"))
    long = draw_bracket(four("Ж" * 5000))
    g = geometry(four())
    _left, top, right, bottom = g.box(0, 0)
    gap = (right + 1, top, right + 12, bottom)  # beside the box: only the connecting line, never a letter
    assert short.crop(gap).tobytes() == long.crop(gap).tobytes()
    score = (right - 24, top + 2, right - 4, top + g.row - 2)  # the score is still drawn, not covered
    assert short.crop(score).tobytes() == long.crop(score).tobytes()


def sixty_four() -> BracketPicture:
    rounds = []
    count = 32
    number = 0
    while count:
        bouts = []
        for _ in range(count):
            bouts.append(played(top=f"Игрок {number}", bottom=f"Ղազար {number + 1}"))
            number += 2
        rounds.append(tuple(bouts))
        count //= 2
    names = round_names(6, "Final", "Semi-finals", "Quarter-finals", "Round of {players}")
    return BracketPicture(tuple(rounds), BracketTexts("Championship", names))


@pytest.mark.parametrize("theme", THEMES)
def test_sixty_four_players_fit_the_width_and_every_first_round_name_is_drawn(theme: str) -> None:
    picture = sixty_four()
    image = draw_bracket(picture, theme)
    g = geometry(picture)
    assert image.width == WIDTH and image.height < 2600 and g.font >= 16
    colours = palette(theme)
    for index in range(32):
        left, top, right, _bottom = g.box(0, index)
        for row in (0, 1):
            name_area = (left + 30, top + row * g.row + 3, right - 30, top + (row + 1) * g.row - 3)
            colour = colours.text if row == 0 else colours.text_dim  # the winner, the loser
            assert ink(image, name_area, colour, 40) > 10, (index, row)
    final = g.box(5, 0)
    assert final[2] <= WIDTH - 20 and final[3] <= image.height


def test_rounds_that_do_not_halve_are_refused() -> None:
    with pytest.raises(BracketError, match="round 1 has 2 matches after 2"):
        geometry(BracketPicture(((Bout(), Bout()), (Bout(), Bout())), TEXTS))
    with pytest.raises(BracketError, match="needs a round"):
        geometry(BracketPicture((), TEXTS))


def test_a_bye_and_a_walkover_draw_their_words() -> None:
    bye = Bout(Entrant("Alice", 1, None, True), Entrant(), bye=True)
    walkover = Bout(Entrant("Bob", 2, 0, True), Entrant("Carol", 3, 0), walkover=True)
    picture = BracketPicture(((bye, walkover), (Bout(Entrant("Alice", 1), Entrant("Bob", 2)),)), TEXTS)
    image = Image.open(io.BytesIO(render_bracket(picture, "dark")))
    assert image.format == "PNG" and image.size == geometry(picture).size
    g = geometry(picture)
    dim = palette("dark").text_dim
    left, top, right, _ = g.box(0, 0)
    assert ink(image.convert("RGB"), (left + 20, top + g.row, right, top + 2 * g.row), dim, 40) > 10  # "bye"


def test_round_names_count_back_from_the_final() -> None:
    assert round_names(4, "F", "SF", "QF", "R{players}") == ("R16", "QF", "SF", "F")


@pytest.mark.parametrize("name", ["Արամ Պետրոսյան", "ნინო გიორგაძე", "سارا رضایی", "Zeynep Yılmaz", "Гоша"])
def test_names_in_every_script_of_the_bots_languages_are_drawn(name: str) -> None:
    picture = four(name)
    image = draw_bracket(picture)
    g = geometry(picture)
    left, top, right, _ = g.box(0, 0)
    gold = palette("light").text_gold  # the champion's name, in the first round's top row
    assert ink(image, (left + 30, top, right - 30, top + g.row), gold, 40) > 40


def bracket_of(players: int) -> BracketPicture:
    rounds = []
    count = players // 2
    while count:
        rounds.append(tuple(Bout() for _ in range(count)))
        count //= 2
    return BracketPicture(tuple(rounds), replace(TEXTS, champion="Champion: Alice"))


@pytest.mark.parametrize(("players", "photo"), [(4, True), (8, True), (16, True), (32, True), (64, False)])
def test_up_to_thirty_two_players_fit_a_telegram_photo(players: int, photo: bool) -> None:
    assert fits_a_photo(bracket_of(players)) is photo
