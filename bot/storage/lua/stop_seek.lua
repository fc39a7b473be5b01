-- Stop a quick-match search (bot/storage/rooms.py, RoomStore.stop_seek).
--
-- KEYS: [1] the user's search record (nardy:user:<id>:seek), then every variant's queue.
-- ARGV: [1] the user id, [2] the search's token ("": whichever).
-- Returns the record it ended, or "" (no such search: paired, ended, or a newer one).

local raw = redis.call('GET', KEYS[1])
if not raw then return '' end
if ARGV[2] ~= '' and cjson.decode(raw)['token'] ~= ARGV[2] then return '' end
redis.call('DEL', KEYS[1])
for i = 2, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
return raw
