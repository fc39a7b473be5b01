-- Record one finished game's result on its own (bot/storage/results.py, ResultStore.record): a game's save
-- records the games it ended itself (save_game.lua).
--
-- KEYS: none (record_result.lua builds the key names from the game).
-- ARGV: [1] the finished game (bot/stats.py's FinishedGame as JSON), [2] now (unix seconds).
-- Returns the outcome as JSON (bot/stats.py's RecordOutcome): the first call's, if the game was recorded.

-- @include record_result

return nardy_record(ARGV[1], ARGV[2])
