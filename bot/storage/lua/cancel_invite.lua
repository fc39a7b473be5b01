-- Withdraw the user's invitation (bot/storage/rooms.py, RoomStore.cancel_invite).
--
-- KEYS: [1] the user's invitation pointer (nardy:user:<id>:invite).
-- ARGV: [1] the key prefix of invitations.
-- Returns the withdrawn invitation's JSON, or "" (there was none).

local token = redis.call('GET', KEYS[1])
if not token then return '' end
redis.call('DEL', KEYS[1])
local raw = redis.call('GET', ARGV[1] .. token)
if not raw then return '' end
redis.call('DEL', ARGV[1] .. token)
return raw
