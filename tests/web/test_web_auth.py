"""initData of a Mini App: signed by Telegram with a key derived from the bot's token, checked on every
connection and press (bot/web/auth.py)."""

from __future__ import annotations

import json

import pytest

from bot.web.auth import BadInitData, check, sign

TOKEN = "123456:TEST-token"
NOW = 1_800_000_000.0
DAY = 86400.0


def _fields(**extra: str) -> dict[str, str]:
    user = {"id": 42, "first_name": "Алиса", "username": "alice", "language_code": "ru"}
    return {"auth_date": str(int(NOW) - 60), "query_id": "AAE", "user": json.dumps(user), **extra}


def test_a_good_init_data_names_its_user_and_start_param() -> None:
    found = check(sign(_fields(start_param="g123"), TOKEN), TOKEN, NOW, DAY)
    assert found.user.id == 42 and found.user.first_name == "Алиса" and found.user.language_code == "ru"
    assert found.start_param == "g123" and found.auth_date == int(NOW) - 60


def test_a_forged_field_a_foreign_token_or_a_missing_hash_is_refused() -> None:
    good = sign(_fields(), TOKEN)
    forged = good.replace("%22id%22%3A+42", "%22id%22%3A+43")
    assert forged != good
    cases = {
        "forged user": forged,
        "another bot's token": sign(_fields(), "999:OTHER"),
        "no hash": good.split("&hash=")[0],
        "empty hash": good.split("&hash=")[0] + "&hash=",
        "a repeated field": good + "&user=%7B%7D",
        "not a query string": "%%%",
        "empty": "",
        "overlong": "a=" + "b" * 5000,
    }
    for name, raw in cases.items():
        with pytest.raises(BadInitData):
            check(raw, TOKEN, NOW, DAY)
        assert name


def test_an_expired_or_future_auth_date_is_refused() -> None:
    old = sign({**_fields(), "auth_date": str(int(NOW - DAY - 1))}, TOKEN)
    with pytest.raises(BadInitData, match="older than"):
        check(old, TOKEN, NOW, DAY)
    ahead = sign({**_fields(), "auth_date": str(int(NOW + 3600))}, TOKEN)
    with pytest.raises(BadInitData, match="future"):
        check(ahead, TOKEN, NOW, DAY)


def test_a_signed_init_data_without_a_proper_user_is_refused() -> None:
    for user in ("", "[]", "{}", '{"id": "x"}', '{"id": 0}', "not json"):
        with pytest.raises(BadInitData, match="no user"):
            check(sign({**_fields(), "user": user}, TOKEN), TOKEN, NOW, DAY)
