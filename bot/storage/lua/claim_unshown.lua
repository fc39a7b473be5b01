-- Claim a game whose boards are due to be shown (bot/storage/schedules.py, ScheduleStore.claim_unshown).
--
-- KEYS: [1] the unshown-boards set (nardy:unshown).
-- ARGV: [1] the game id, [2] now (unix seconds), [3] the lease (seconds: the game is due again then),
--   [4] "1" to claim it even if not due yet (a start redraws every marked board).
-- Returns 1 if claimed, 0 if not (not marked, or not due).

local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due then return 0 end
if ARGV[4] ~= '1' and tonumber(due) > tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
return 1
