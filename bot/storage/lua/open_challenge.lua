-- An inline challenge: the user's open challenge of a kind, or a new one (bot/storage/rooms.py,
-- RoomStore.open_challenge). The open challenge of that kind is reused: every inline query of the user would
-- otherwise make a new one.
--
-- KEYS: [1] the user's pointer for (variant, target) (nardy:user:<id>:challenge:<variant>:<target>).
-- ARGV: [1] a new token, [2] its challenge JSON, [3] the TTL, [4] the key prefix of challenges.
-- Returns {the token of the challenge now open, its JSON}.

local token = redis.call('GET', KEYS[1])
if token then
  local raw = redis.call('GET', ARGV[4] .. token)
  if raw then
    redis.call('EXPIRE', ARGV[4] .. token, ARGV[3])
    redis.call('EXPIRE', KEYS[1], ARGV[3])
    return {token, raw}
  end
end
redis.call('SET', ARGV[4] .. ARGV[1], ARGV[2], 'EX', ARGV[3])
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
return {ARGV[1], ARGV[2]}
