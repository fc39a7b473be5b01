-- Save a tournament: the compare-and-set of its record, with its group's pointers, its place in the due set
-- and the results it took from its inbox, in one atomic step (bot/storage/tournaments.py, TournamentStore.save).
--
-- KEYS: [1] the tournament (nardy:tourney:<id>), [2] its group's live pointer (nardy:chat:<chat>:tourney),
--   [3] the due set (nardy:tourneys), [4] its inbox (nardy:tourney:<id>:inbox), [5] its group's last
--   finished tournament (nardy:chat:<chat>:tourney:last), [6] its sign-ups (nardy:tourney:<id>:players,
--   written by sign_up.lua while it signs up).
-- ARGV: [1] the expected stored version ("" = it must not exist: a new tournament), [2] the new JSON,
--   [3] its TTL, [4] its id, [5] when it is next due a look (unix seconds; "": never, it leaves the due set;
--   at once while its inbox holds a game this change did not apply: one that ended as it was made),
--   [6] how many of its inbox's first entries this change applied (they leave the inbox), [7] "1" while it
--   is live (signing up or running: the group's pointer names it), "0" once over or cancelled (the pointer
--   is cleared), [8] "1" if it finished (the group's last-tournament pointer names it for ARGV[3] seconds),
--   [9] the user ids of the sign-ups this change was made with, sorted as strings and joined by ",": a change
--   that ends the sign-up (the stored record signs up, the new one does not) holds the players in its JSON,
--   so the sign-ups must still be those (else someone joined or left meanwhile: "version"), and they are
--   deleted; [10] when the change ends the tournament (the stored one was not over, the new one is): a JSON
--   object {"players": [user ids], "champion": user id}: each player's statistics count a tournament played
--   (nardy:user:<id>:stats, field "tourneys", as bot/storage/results.py names it) and the champion's one won
--   ("tourney_wins"), once, with the save that ends it; "" otherwise.
-- A group has one live tournament: a new one while another live one is named by the pointer is refused.
-- Returns {1, stored version, ""} when written; {0, stored version, reason} when refused: reason "version"
-- (someone changed it first) or "busy" (the group's live tournament is another: its id in place of version).

local raw = redis.call('GET', KEYS[1])
local stored = ''
if raw then stored = string.format('%d', cjson.decode(raw)['version']) end
if raw == ARGV[2] then return {1, stored, ''} end  -- a retry of this very write (its answer was lost)
if stored ~= ARGV[1] then return {0, stored, 'version'} end
local closes = raw and cjson.decode(raw)['stage'] == 'signup' and cjson.decode(ARGV[2])['stage'] ~= 'signup'
if closes then
  local ids = redis.call('HKEYS', KEYS[6])
  table.sort(ids)
  if table.concat(ids, ',') ~= ARGV[9] then return {0, stored, 'version'} end
  redis.call('DEL', KEYS[6])
end
local current = redis.call('GET', KEYS[2])
if ARGV[1] == '' and current and current ~= ARGV[4] then
  local other = redis.call('GET', 'nardy:tourney:' .. current)
  if other then
    local stage = cjson.decode(other)['stage']
    if stage == 'signup' or stage == 'running' then return {0, current, 'busy'} end
  end
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
if ARGV[7] == '1' then
  redis.call('SET', KEYS[2], ARGV[4], 'EX', ARGV[3])
elseif current == ARGV[4] then
  redis.call('DEL', KEYS[2])
end
if ARGV[8] == '1' then redis.call('SET', KEYS[5], ARGV[4], 'EX', ARGV[3]) end
local ends = ARGV[10] and ARGV[10] ~= '' and (not raw or cjson.decode(raw)['stage'] ~= 'over')
if ends then
  local counted = cjson.decode(ARGV[10])
  local USER_TTL = 31536000  -- bot/storage/keys.py USER_TTL
  for _, uid in ipairs(counted['players']) do
    local key = 'nardy:user:' .. string.format('%d', uid) .. ':stats'
    redis.call('HINCRBY', key, 'tourneys', 1)
    if uid == counted['champion'] then redis.call('HINCRBY', key, 'tourney_wins', 1) end
    redis.call('EXPIRE', key, USER_TTL)
  end
end
local applied = tonumber(ARGV[6])
if applied > 0 then redis.call('LTRIM', KEYS[4], applied, -1) end
redis.call('EXPIRE', KEYS[4], ARGV[3])
if ARGV[5] ~= '' then
  -- a game that ended after this change read the inbox left its id there: due now, not at ARGV[5]
  local due = ARGV[5]
  if redis.call('LLEN', KEYS[4]) > 0 then due = '0' end
  redis.call('ZADD', KEYS[3], due, ARGV[4])
else
  redis.call('ZREM', KEYS[3], ARGV[4])
end
return {1, stored, ''}
