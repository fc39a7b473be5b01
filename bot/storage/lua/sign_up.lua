-- Sign up for a tournament, or leave it, while it signs up (bot/storage/tournaments.py, TournamentStore.sign_up):
-- one atomic step with no retry, so hundreds of Join presses at once each get their answer at once.
--
-- KEYS: [1] the tournament (nardy:tourney:<id>), [2] its sign-ups (nardy:tourney:<id>:players: user id ->
--   the entrant's JSON).
-- ARGV: [1] "join" or "leave", [2] the user id, [3] the entrant's JSON (join), [4] the most players it takes,
--   [5] the sign-ups' TTL (seconds).
-- Returns "ok" (done), "in" (joining: signed up already), "out" (leaving: not signed up), "full", or
-- "closed" (the tournament is gone or no longer signing up).

local raw = redis.call('GET', KEYS[1])
if not raw or cjson.decode(raw)['stage'] ~= 'signup' then return 'closed' end
if ARGV[1] == 'leave' then
  if redis.call('HDEL', KEYS[2], ARGV[2]) == 0 then return 'out' end
  return 'ok'
end
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return 'in' end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[4]) then return 'full' end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[5])
return 'ok'
