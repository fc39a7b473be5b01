-- Take or extend the lease of drawing a game's boards: one worker at a time, so that an older picture
-- never lands after a newer one (bot/storage/games.py, GameStore.hold_draw).
--
-- KEYS: [1] the lease (nardy:drawing:<id>), [2] the game's messages hash.
-- ARGV: [1] the worker's token, [2] the lease's time to live in ms.
-- Taken if free, extended if held by that token.
-- Returns {1, the messages hash as a flat list} if the worker holds it now (what the boards show, as the
-- previous holder left it), else {0, the lease's ms left}.

local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return {0, redis.call('PTTL', KEYS[1])} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {1, redis.call('HGETALL', KEYS[2])}
