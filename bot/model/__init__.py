"""The game's domain: a table (one game and its series, as the bot keeps it), its format and clock, and flow:
what a press does to it, with no Telegram, no Redis and no clock of its own (pure values and functions; the
dice and the computer come in as arguments). Tournaments' rules too: an arena's scoring, standings and
pairing (arena), a knockout's bracket (knockout)."""
