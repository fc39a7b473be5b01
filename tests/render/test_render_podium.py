"""The arena's final picture (render/podium.py): the steps where they belong in both themes, the winner's
name in gold, the list below, names full of control characters."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from render.podium import (
    MEDALS,
    ROW,
    WIDTH,
    Placed,
    PodiumPicture,
    PodiumTexts,
    draw_podium,
    render_podium,
    row_top,
    size_of,
    step_box,
)
from render.theme import THEMES, mix, palette
from tests.render.render_pixels import near, pixel

TEXTS = PodiumTexts("Friday arena", "30 minutes · 10 players", "{points} pts", "{games} games")


def places(count: int, first: str = "Alice") -> tuple[Placed, ...]:
    names = [first, "Карина", "Արամ", "ნინო", "سارا", "Zeynep", "Dmytro", "Leyla", "Bob", "Ivan"]
    return tuple(Placed(rank, names[rank - 1], 30 - 3 * rank, 6) for rank in range(1, count + 1))


@pytest.mark.parametrize("theme", THEMES)
def test_the_three_steps_stand_first_in_the_middle_and_highest(theme: str) -> None:
    image = draw_podium(PodiumPicture(places(10), TEXTS), theme)
    assert image.size == size_of(PodiumPicture(places(10), TEXTS)) and image.width == WIDTH
    colours = palette(theme)
    assert pixel(image, (2, 2)) == colours.background
    for place in (1, 2, 3):
        left, top, right, _bottom = step_box(place)
        assert near(
            pixel(image, ((left + right) // 2, top + 4)), mix(MEDALS[place - 1], colours.background, 0.15), 3
        )
        assert pixel(image, ((left + right) // 2, top - 2 - 0)) != pixel(
            image, ((left + right) // 2, top + 4)
        )
    assert step_box(1)[1] < step_box(2)[1] < step_box(3)[1]
    assert step_box(2)[2] < step_box(1)[0] and step_box(1)[2] < step_box(3)[0]


def test_the_winners_name_is_gold() -> None:
    image = draw_podium(PodiumPicture(places(3), TEXTS))
    gold = palette("light").text_gold
    left, top, right, _ = step_box(1)
    above = [pixel(image, (x, y)) for x in range(left, right) for y in range(top - 110, top - 20)]
    assert sum(near(p, gold, 40) for p in above) > 30


def test_the_list_below_has_a_line_for_each_place_after_the_third() -> None:
    picture = PodiumPicture(places(10), TEXTS)
    image = draw_podium(picture)
    assert image.height == row_top(7) + 36
    text = palette("light").text
    for index in range(7):
        top = row_top(index)
        line = [pixel(image, (x, y)) for x in range(120, 600) for y in range(top, top + ROW - 4)]
        assert sum(near(p, text, 60) for p in line) > 10, index


def test_control_characters_in_a_name_draw_as_the_name_without_them() -> None:
    clean = draw_podium(PodiumPicture(places(5, "Alice"), TEXTS))
    dirty = draw_podium(PodiumPicture(places(5, "\u202eAl\x00ice\u200b\x1b"), TEXTS))
    assert clean.tobytes() == dirty.tobytes()


def test_a_very_long_name_stays_above_its_step() -> None:
    short = draw_podium(PodiumPicture(places(3, "Al"), TEXTS))
    long = draw_podium(PodiumPicture(places(3, "W" * 3000), TEXTS))
    left, top, right, _ = step_box(2)  # the second's step, left of the first's: its name area untouched
    area = (left, top - 110, right, top)
    assert short.crop(area).tobytes() == long.crop(area).tobytes()


def test_two_players_and_one_still_draw_a_png() -> None:
    for count in (1, 2):
        data = render_podium(PodiumPicture(places(count), TEXTS), "dark")
        image = Image.open(io.BytesIO(data))
        assert image.format == "PNG" and image.width == WIDTH
