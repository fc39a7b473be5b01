"""The Telegram front: the Application and how it runs (app, serve), the handlers that translate updates into
the service's operations, keyboards and callback data, the homes of buttons, boards drawn and edited in
chats, the per-chat outbox and rate limiter, reminders."""
