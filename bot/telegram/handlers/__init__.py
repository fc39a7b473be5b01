"""Telegram handlers, one module per feature; bot/telegram/app.py registers them all in one place.

No game rules here: handlers translate updates into bot/model/flow.py calls and tables into messages."""
