-- A new board message (bot/storage/games.py, GameStore.new_message).
--
-- KEYS: [1] the game's messages hash, [2] the game, [3] the new message's home (nardy:home:<chat>:<message>).
-- ARGV: [1] the board key, [2] the message id it replaces ("" for none), [3] the new message id, [4] its
--   home ("board:<game>"; bot/button_homes.py), [5] the least time the home lives (seconds).
-- Set only if the board still has the message it replaces (another worker may have sent one first); the
-- hash lives as long as its game, the message's home at least ARGV[5] (a finished game's board is pressed
-- a while after the game is gone).
-- Returns 1 if set, 0 if not (the game is gone, or the board has another message).

local ttl = redis.call('TTL', KEYS[2])
if ttl <= 0 then return 0 end  -- the game is gone
local current = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if current ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HDEL', KEYS[1], 'v:' .. ARGV[1])
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[3], ARGV[4], 'EX', math.max(ttl, tonumber(ARGV[5])))
return 1
