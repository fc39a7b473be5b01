-- Claim a due turn reminder, so that exactly one worker sends it (bot/storage/schedules.py,
-- ScheduleStore.claim_reminder).
--
-- KEYS: [1] the reminders set (nardy:remind), [2] the game, [3] its reminders count (nardy:reminded:<id>).
-- ARGV: [1] the game id, [2] now, [3] the game's version as the caller loaded it, [4] its game number,
--   [5] reminders allowed per player and game, [6] the count's TTL if the game has none, [7] the side on
--   turn ("w" or "b": the count's field).
-- Every save of the game moves its entry (a later due time) or removes it, so an entry still due means no
-- change since; a game at another version than the caller's is left to its next look.
-- Returns 0 (not claimed: not due, taken by another worker, or the caller's table is not the stored one),
-- -1 (the entry left without a reminder: the game is gone, waits for nobody (ARGV[5] 0), or its player on
-- turn had their reminders), else which reminder of that player in this game it is (the entry left: sent
-- once, whatever becomes of the send).

local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due or tonumber(due) > tonumber(ARGV[2]) then return 0 end
local raw = redis.call('GET', KEYS[2])
if not raw then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return -1
end
if string.format('%d', cjson.decode(raw)['version']) ~= ARGV[3] then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
local counted = redis.call('HMGET', KEYS[3], 'n', ARGV[7])
local sent = 0
if counted[1] == ARGV[4] then sent = tonumber(counted[2] or '0') else redis.call('DEL', KEYS[3]) end
local ttl = redis.call('TTL', KEYS[2])
if ttl <= 0 then ttl = tonumber(ARGV[6]) end
if sent >= tonumber(ARGV[5]) then
  redis.call('EXPIRE', KEYS[3], ttl)
  return -1
end
redis.call('HSET', KEYS[3], 'n', ARGV[4], ARGV[7], sent + 1)
redis.call('EXPIRE', KEYS[3], ttl)
return sent + 1
