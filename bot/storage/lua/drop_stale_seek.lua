-- Remove a queue entry whose search ended (bot/storage/rooms.py, RoomStore.start_from_seek).
--
-- KEYS: [1] the queue (nardy:seek:<format>), [2] the user's search record (nardy:user:<id>:seek).
-- ARGV: [1] the user id, [2] the queue's variant.
-- Removed unless the user looks again in that variant (then the entry is theirs).
-- Returns 1 if removed, else 0.

local raw = redis.call('GET', KEYS[2])
if raw and cjson.decode(raw)['game'] == ARGV[2] then return 0 end
return redis.call('ZREM', KEYS[1], ARGV[1])
