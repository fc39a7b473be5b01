"""Tests of the rules (engine/): positions, moves, dice, the cube, matches, records; perft and oracle figures
kept as data in tests/data."""
