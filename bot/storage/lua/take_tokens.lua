-- Token buckets of inbound updates (bot/storage/limits.py, LimitStore.take_tokens).
--
-- KEYS: the buckets (nardy:limit:<who>:<kind>: hashes of "t" tokens, "at" when counted, "n" refused since).
-- ARGV: [1] now (unix seconds, the limiter's clock: bot/service/rates.py Limits.clock), then per bucket i,
--   [2i] its capacity and [2i + 1] its refill per second.
-- All buckets must hold a token; then one is taken from each.
-- Returns {0, 0} when allowed, else {i, notice}: bucket i is empty, and notice is 1 the first time since it
-- last allowed (one polite answer per flood).

local now = tonumber(ARGV[1])
local state = {}
for i, key in ipairs(KEYS) do
  local cap, rate = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  local held = redis.call('HMGET', key, 't', 'at', 'n')
  local tokens = tonumber(held[1] or cap)
  local at = tonumber(held[2] or now)
  tokens = math.min(cap, tokens + math.max(0, now - at) * rate)
  state[i] = {tokens, held[3]}
  if tokens < 1 then
    local notice = 0
    if not held[3] then notice = 1 end
    redis.call('HSET', key, 't', tokens, 'at', now, 'n', 1)
    redis.call('EXPIRE', key, math.ceil(cap / rate) + 1)
    return {i, notice}
  end
end
for i, key in ipairs(KEYS) do
  local cap, rate = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  redis.call('HSET', key, 't', state[i][1] - 1, 'at', now)
  redis.call('HDEL', key, 'n')
  redis.call('EXPIRE', key, math.ceil(cap / rate) + 1)
end
return {0, 0}
