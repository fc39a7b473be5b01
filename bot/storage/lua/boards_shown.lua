-- Boards shown: some boards of a game now show a version (bot/storage/games.py, GameStore.shown).
--
-- KEYS: [1] the game's messages hash, [2] the unshown-boards set, [3] the game, [4] its drawing lease.
-- ARGV: [1] the game id, [2] the version the boards now show, [3] "1" if no board failed, [4] the drawer's
--   token, then the keys of the boards that show it now ("v:<key>" is what the last edit to land put there:
--   the drawer holds the lease, so edits land in order).
-- If the game is still at that version, it leaves the unshown set (when complete) and the drawer's lease is
-- released: a change saved later finds no lease, so its worker draws it.
-- Returns the stored version (-1: the game is gone; nothing is written then).

local raw = redis.call('GET', KEYS[3])
if not raw then
  redis.call('ZREM', KEYS[2], ARGV[1])
  if redis.call('GET', KEYS[4]) == ARGV[4] then redis.call('DEL', KEYS[4]) end
  return -1
end
for i = 5, #ARGV do
  redis.call('HSET', KEYS[1], 'v:' .. ARGV[i], ARGV[2])
  redis.call('HDEL', KEYS[1], 'x:' .. ARGV[i])  -- its player is reachable again
end
if #ARGV >= 5 then
  local ttl = redis.call('TTL', KEYS[3])
  if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
end
local stored = string.format('%d', cjson.decode(raw)['version'])
if stored ~= ARGV[2] then return tonumber(stored) end
if ARGV[3] == '1' then redis.call('ZREM', KEYS[2], ARGV[1]) end
if redis.call('GET', KEYS[4]) == ARGV[4] then redis.call('DEL', KEYS[4]) end
return tonumber(stored)
