"""The game service: the operations a player can do (start, join, press, undo, done, cube actions, resign,
claim, rematch, verify, export) as plain async functions over plain values, over storage; every front (the
Telegram handlers, the web page) calls these."""
