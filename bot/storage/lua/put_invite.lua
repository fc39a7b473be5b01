-- Store a friend invitation; the starter's previous one is withdrawn (bot/storage/rooms.py,
-- RoomStore.put_invite).
--
-- KEYS: [1] the starter's invitation pointer (nardy:user:<id>:invite), [2] the new invitation
--   (nardy:invite:<token>).
-- ARGV: [1] the invitation JSON, [2] its TTL, [3] its token, [4] the key prefix of invitations.
-- Returns the withdrawn invitation's token, or "".

local old = redis.call('GET', KEYS[1])
if old and old ~= ARGV[3] then redis.call('DEL', ARGV[4] .. old) end
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[2])
redis.call('SET', KEYS[1], ARGV[3], 'EX', ARGV[2])
if old and old ~= ARGV[3] then return old end
return ''
