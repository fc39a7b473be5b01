-- Forget a user in one tournament (/forget; bot/storage/tournaments.py, TournamentStore.forget_user): its
-- record rewritten with the user's name replaced (Tournament.forget) by compare-and-set on its version, and
-- their sign-up, while it signs up, withdrawn, in one atomic step.
--
-- KEYS: [1] the tournament (nardy:tourney:<id>), [2] its sign-ups (nardy:tourney:<id>:players, written by
--   sign_up.lua while it signs up: user id -> the entrant's JSON).
-- ARGV: [1] the stored version the change was made from, [2] the new JSON (with the name replaced and the
--   version moved on; "": the record names them nowhere and is not rewritten), [3] the user id.
-- Returns {1, sign-ups withdrawn (0 or 1)} when done; {0, 0} when the stored version is not ARGV[1] (someone
-- changed it first: the caller reads it again), or the tournament is gone.

local raw = redis.call('GET', KEYS[1])
if not raw then return {0, 0} end
local record = cjson.decode(raw)
if string.format('%d', record['version']) ~= ARGV[1] then return {0, 0} end
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') end
local withdrawn = 0
if record['stage'] == 'signup' then withdrawn = redis.call('HDEL', KEYS[2], ARGV[3]) end
return {1, withdrawn}
