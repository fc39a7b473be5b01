-- Forget a user's results (/forget; bot/storage/results.py, ResultStore.forget_user): off every leaderboard,
-- and their statistics, history, boards set and rating histories deleted.
--
-- KEYS: none (the key names are built from the user id: the bot's Redis is a single node).
-- ARGV: [1] the user id.
-- Returns how many keys and global leaderboard entries went.

local VARIANTS = {'short', 'long'}  -- bot/stats.py: VARIANTS
local uid = ARGV[1]
local base = 'nardy:user:' .. uid .. ':'
for _, board in ipairs(redis.call('SMEMBERS', base .. 'boards')) do redis.call('ZREM', board, uid) end
local removed = 0
for _, variant in ipairs(VARIANTS) do removed = removed + redis.call('ZREM', 'nardy:top:' .. variant, uid) end
local ratings = {}
for i, variant in ipairs(VARIANTS) do ratings[i] = base .. 'rating:' .. variant end
local deleted = redis.call('DEL', base .. 'stats', base .. 'history', base .. 'boards', unpack(ratings))
return deleted + removed
