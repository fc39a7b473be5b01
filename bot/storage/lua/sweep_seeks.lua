-- End the quick-match searches that waited too long (bot/storage/rooms.py, RoomStore.expire_seekers).
--
-- KEYS: the queues (nardy:seek:<format>).
-- ARGV: [1] the cutoff (entries that joined at or before it), [2] at most this many per queue, then each
--   queue's variant (ARGV[2 + i] for KEYS[i]).
-- Each expired entry leaves its queue; a live search is ended with it and returned, so exactly one sweeper
-- tells each. Stale entries just leave.
-- Returns a flat list: per ended search its record, then the id of the game the user started meanwhile
-- (or "").

-- @include seek_helpers

local out = {}
for i, queue in ipairs(KEYS) do
  local old = redis.call('ZRANGEBYSCORE', queue, '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
  for _, user in ipairs(old) do
    redis.call('ZREM', queue, user)
    local raw = redis.call('GET', record_key(user))
    if raw and cjson.decode(raw)['game'] == ARGV[2 + i] then
      redis.call('DEL', record_key(user))
      out[#out + 1] = raw
      out[#out + 1] = live_game(user) or ''
    end
  end
end
return out
