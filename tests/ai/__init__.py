"""Tests of the computer opponent (engine/ai): its choices, levels, cube decisions and networks."""
