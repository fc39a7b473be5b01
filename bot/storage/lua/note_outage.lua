-- The outages that running clocks get back (bot/storage/schedules.py, ScheduleStore.outages, from the clocks'
-- sweeper of every worker, twice a second): a worker that could not reach Redis notes, when it can again,
-- the time it could not (nobody could press meanwhile); every worker reads them all (bot/model/clock.py
-- Clock.excuse merges the overlapping ones that several workers noted).
--
-- KEYS: [1] the outages (nardy:outages: sorted set, members "<start>:<end>", scored by the end).
-- ARGV: [1] now (unix seconds, the bot's clock), [2] how long an outage is kept (seconds), [3] the start of
--   the outage this worker saw, ending now ("": none).
-- Returns the outages kept, each "<start>:<end>".

local now = tonumber(ARGV[1])
if ARGV[3] ~= '' and tonumber(ARGV[3]) < now then
  redis.call('ZADD', KEYS[1], now, ARGV[3] .. ':' .. ARGV[1])
  redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2])))
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
return redis.call('ZRANGE', KEYS[1], 0, -1)
