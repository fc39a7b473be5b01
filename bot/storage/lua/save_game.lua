-- Save a game: the compare-and-set of its record, with everything that must change with it, in one
-- atomic step (bot/storage/games.py, GameStore.create and GameStore.save).
--
-- KEYS: [1] the game (nardy:game:<id>), [2] its messages hash, [3] the unshown-boards set (nardy:unshown),
--   then ARGV[5] chat pointers (nardy:chat:<chat>:game), then ARGV[7] games sets (nardy:user:<id>:games),
--   then the keys this change consumes (a lobby, an invitation, a challenge, a quick-match search: each must
--   still hold the JSON whose field ARGV[11 + 2i] is ARGV[12 + 2i], and is deleted), and last the turn
--   reminders set (nardy:remind), then the live games' clocks (nardy:clocks), then the live games
--   (nardy:games:live: a live game scored by the time now, a game over removed).
-- ARGV: [1] the expected stored version ("" = the game must not exist), [2] the new JSON, [3] its TTL,
--   [4] the game id, [5] the number of chat pointers, [6] the games sets' TTL, [7] the number of games sets,
--   [8] when its boards are due to be shown by then (unix seconds; the unshown set's score), [9] "1" if the
--   game is live (not over), [10] "1" to forget its board messages (a rematch starts new ones), then the
--   consumed keys' pairs (field, value), then with n consumed keys: [11 + 2n] when the player on turn is due
--   a turn reminder (unix seconds; "": none, the game leaves the reminders set), [12 + 2n] the games this
--   change ended (a JSON list of bot/stats.py FinishedGame objects, "" for none: each recorded in its
--   players' statistics and ratings by record_result.lua's nardy_record, in this same atomic step) and
--   [13 + 2n] the time now, [14 + 2n] when the running clock's flag falls (unix seconds, the bot's clock;
--   "": no clock runs, the game leaves the clocks set) and [15 + 2n] when its player is warned that time
--   runs out ("": no warning due).
-- A tournament game (its JSON has "tournament": {"id": ...}) that is over is pushed onto its tournament's
-- inbox (nardy:tourney:<id>:inbox, spelt out here as bot/storage/keys.py names it) and its tournament is due
-- a look now (nardy:tourneys): the result leaves with the save that made it, exactly once.
-- Every write publishes the new version on the game's channel (nardy:live:<id>), for the board pages.
-- A chat has one live game: a pointer to another live game refuses a live table ("busy"); a finished
-- table never moves a pointer away from another game.
-- Returns {1, stored version, "", ""} when written; {0, stored version, reason, detail} (nothing written)
-- when refused: reason "version" (someone changed it first), "busy" (detail: the chat's live game), "gone"
-- (detail: a consumed key that is missing or holds something else).

-- @include record_result

local raw = redis.call('GET', KEYS[1])
local stored = ''
if raw then stored = string.format('%d', cjson.decode(raw)['version']) end  -- not tostring: 1e+14
if raw == ARGV[2] then return {1, stored, '', ''} end  -- a retry of this very write (its answer was lost)
if stored ~= ARGV[1] then return {0, stored, 'version', ''} end
local chats, sets = tonumber(ARGV[5]), tonumber(ARGV[7])
local live = ARGV[9] == '1'
local first_chat, first_set, first_consumed = 4, 4 + chats, 4 + chats + sets
local last_consumed = #KEYS - 3  -- then the turn reminders set, the clocks, the live games
local reminders, clocks, live_games = KEYS[#KEYS - 2], KEYS[#KEYS - 1], KEYS[#KEYS]
local remind_at = ARGV[11 + 2 * (last_consumed - first_consumed + 1)]
for i = first_consumed, last_consumed do
  local held = redis.call('GET', KEYS[i])
  local arg = 11 + 2 * (i - first_consumed)
  if not held then return {0, stored, 'gone', KEYS[i]} end
  local value = cjson.decode(held)[ARGV[arg]]
  if type(value) == 'number' then value = string.format('%d', value) end
  if tostring(value) ~= ARGV[arg + 1] then return {0, stored, 'gone', KEYS[i]} end
end
local take = {}
for i = first_chat, first_set - 1 do
  local current = redis.call('GET', KEYS[i])
  if not current or current == ARGV[4] then
    take[#take + 1] = KEYS[i]
  else
    local other = redis.call('GET', 'nardy:game:' .. current)
    if other and cjson.decode(other)['game']['state']['phase'] ~= 'over' then
      if live then return {0, stored, 'busy', current} end
    elseif live then
      take[#take + 1] = KEYS[i]
    end
  end
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
if ARGV[10] == '1' then redis.call('DEL', KEYS[2]) else redis.call('EXPIRE', KEYS[2], ARGV[3]) end
for _, key in ipairs(take) do redis.call('SET', key, ARGV[4], 'EX', ARGV[3]) end
for i = first_set, first_consumed - 1 do
  redis.call('SADD', KEYS[i], ARGV[4])
  redis.call('EXPIRE', KEYS[i], ARGV[6])
end
for i = first_consumed, last_consumed do redis.call('DEL', KEYS[i]) end
redis.call('ZADD', KEYS[3], ARGV[8], ARGV[4])
redis.call('EXPIRE', KEYS[3], ARGV[6])  -- an index of live games: gone only if no game changes for 30 days
if remind_at and remind_at ~= '' then
  redis.call('ZADD', reminders, remind_at, ARGV[4])
  redis.call('EXPIRE', reminders, ARGV[6])  -- likewise
else
  redis.call('ZREM', reminders, ARGV[4])
end
local consumed = 2 * (last_consumed - first_consumed + 1)
local flag_at, warn_at = ARGV[14 + consumed], ARGV[15 + consumed]
if flag_at and flag_at ~= '' then
  redis.call('ZADD', clocks, flag_at, ARGV[4])
  redis.call('EXPIRE', clocks, ARGV[6])  -- likewise
else
  redis.call('ZREM', clocks, ARGV[4])
end
if warn_at and warn_at ~= '' then
  redis.call('ZADD', clocks, warn_at, ARGV[4] .. '/warn')
else
  redis.call('ZREM', clocks, ARGV[4] .. '/warn')
end
if live then
  redis.call('ZADD', live_games, ARGV[13 + consumed], ARGV[4])
  redis.call('EXPIRE', live_games, ARGV[6])  -- likewise
else
  redis.call('ZREM', live_games, ARGV[4])
end
local ended = ARGV[12 + consumed]
if ended and ended ~= '' then
  local now = ARGV[13 + consumed]
  for _, finished in ipairs(cjson.decode(ended)) do nardy_record(finished, now) end
end
local record = cjson.decode(ARGV[2])
local tourney = record['tournament']
if type(tourney) == 'table' and not live then
  local inbox = 'nardy:tourney:' .. tourney['id'] .. ':inbox'
  redis.call('RPUSH', inbox, ARGV[4])
  redis.call('EXPIRE', inbox, ARGV[6])
  redis.call('ZADD', 'nardy:tourneys', 0, tourney['id'])
end
redis.call('PUBLISH', 'nardy:live:' .. ARGV[4], record['version'])
return {1, stored, '', ''}
