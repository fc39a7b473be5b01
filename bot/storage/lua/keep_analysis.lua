-- Keep a finished game's analysis (bot/storage/reviews.py, ReviewStore.keep_analysis).
--
-- KEYS: [1] the game's analysis hash, [2] the game.
-- ARGV: [1] the game's number in its series (the hash's field), [2] the analysis (JSON).
-- Written only while the game is kept, and set to expire when the game does (its TTL at this moment): an
-- analysis never outlives its game.
-- Returns 1 if kept, 0 if the game is gone (nothing is written then).

local ttl = redis.call('PTTL', KEYS[2])
if ttl == -2 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
else
  redis.call('PERSIST', KEYS[1])
end
return 1
