"""The Telegram bot of nardy: python-telegram-bot v22 front, Redis storage, the engine behind."""
