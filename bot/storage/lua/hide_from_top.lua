-- Hide a user from the global leaderboards, or show them again: the /settings field and the global boards,
-- at once (bot/storage/results.py, ResultStore.set_hidden).
--
-- KEYS: none (the key names are built from the user id: the bot's Redis is a single node).
-- ARGV: [1] the user id, [2] "1" to hide, "0" to show (they are back on a board if they qualify).
-- Returns 1.

local VARIANTS = {'short', 'long'}  -- bot/stats.py: VARIANTS
local HIDDEN_FIELD, HIDDEN = 'top', 'hidden'  -- bot/stats.py: HIDDEN_FIELD, HIDDEN
local USER_TTL, MIN_RATED = 31536000, 5  -- bot/storage/keys.py: USER_TTL; bot/stats.py: MIN_RATED_MATCHES
local uid = ARGV[1]
local base = 'nardy:user:' .. uid .. ':'
local hide = ARGV[2] == '1'
redis.call('HSET', base .. 'settings', HIDDEN_FIELD, hide and HIDDEN or 'shown')
redis.call('EXPIRE', base .. 'settings', USER_TTL)
for _, variant in ipairs(VARIANTS) do
  local board = 'nardy:top:' .. variant
  if hide then
    redis.call('ZREM', board, uid)
  else
    local got = redis.call('HMGET', base .. 'stats', variant .. ':rating', variant .. ':rated')
    if got[1] and tonumber(got[2] or '0') >= MIN_RATED then
      redis.call('ZADD', board, got[1], uid)
      redis.call('EXPIRE', board, USER_TTL)
    end
  end
end
return 1
