"""Game records as files: pure functions of a `Game` (or a `Match`) and the players' names that return text,
and readers that parse text back into the identical game, nothing else.

- `mat`: GNU Backgammon's .mat match files for short nardy (`to_mat`, `match_to_mat`), which gnubg imports
  with our score;
- `text`: a game as a plain-text record in the project's notation (`to_text`, `parse_text`);
- `match_text`: a whole match as plain text, each game's record under its score (`match_to_text`,
  `parse_match_text`);
- `json_record`: the engine's record with the names and the result as JSON (`to_json`, `parse_json`);
- `replay`: a parsed record replayed through the rules, naming the part that breaks them;
- `values`: what they share (`RecordError`, `Record`, `clean_name`, a match's games with their scores).

Parsing replays every turn through the rules (`Game.replay`), so a record that breaks them raises a
`RecordError` (a ValueError) naming the line, or the turn, and what was wrong.

The writers are imported here for the game service's export (bot/service/records.py); everything else
imports from the module that owns the name.
"""

from engine.records.json_record import to_json
from engine.records.mat import match_to_mat, to_mat
from engine.records.match_text import match_to_text
from engine.records.text import to_text

__all__ = ["match_to_mat", "match_to_text", "to_json", "to_mat", "to_text"]
