-- A board's player cannot be reached (403: they blocked the bot, or the chat is gone) (bot/storage/games.py).
--
-- KEYS: [1] the game's messages hash, [2] the game.
-- ARGV: [1] the board key (its field "x:<key>" holds when), [2] now (unix seconds).
-- Returns 1 if newly marked (the opponent is then told), 0 if marked already or the game is gone.

local ttl = redis.call('TTL', KEYS[2])
if ttl <= 0 then return 0 end
if redis.call('HSETNX', KEYS[1], 'x:' .. ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('EXPIRE', KEYS[1], ttl)
return 1
