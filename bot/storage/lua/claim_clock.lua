-- Claim a live game's due clock entry, so that exactly one worker acts on it (bot/storage/schedules.py,
-- ScheduleStore.claim_clock).
--
-- KEYS: [1] the live games' clocks (nardy:clocks).
-- ARGV: [1] the entry ("<id>": its running clock's flag falls; "<id>/warn": its player is warned), [2] now
--   (unix seconds, the bot's clock), [3] the lease in seconds: the entry is due again then, should the
--   worker fail before the game's save moves or removes it ("0": taken once, the entry leaves).
-- Every save of the game moves its entries or removes them (save_game.lua), so an entry still due means
-- that no change came since.
-- Returns 1 if claimed, 0 if not (not there, or not due).

local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due or tonumber(due) > tonumber(ARGV[2]) then return 0 end
if tonumber(ARGV[3]) > 0 then
  redis.call('ZADD', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
return 1
