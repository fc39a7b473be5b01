"""Telegram handlers, one module per feature; bot/app.py registers them all in one place.

No game rules here: handlers translate updates into bot/flow.py calls and tables into messages."""
