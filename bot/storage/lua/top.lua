-- A leaderboard's best players (bot/storage/results.py, ResultStore.top_of_chat and ResultStore.top_global).
--
-- KEYS: [1] the leaderboard (nardy:top:<variant> or nardy:top:chat:<chat>:<variant>).
-- ARGV: [1] its variant, [2] how many players.
-- Reads at most PAGES pages of the board; entries whose statistics expired are skipped and dropped.
-- Returns the players flat, six values each: user id, rating, name, games, wins, rated matches.

local PAGES = 5  -- bot/stats.py: TOP_PAGES
local v = ARGV[1] .. ':'
local n = tonumber(ARGV[2])
local out, stale = {}, {}
local start = 0
for page = 1, PAGES do
  local ids = redis.call('ZREVRANGE', KEYS[1], start, start + n - 1, 'WITHSCORES')
  if #ids == 0 then break end
  for j = 1, #ids, 2 do
    local got = redis.call('HMGET', 'nardy:user:' .. ids[j] .. ':stats', 'name', v .. 'games', v .. 'wins',
      v .. 'rated')
    if not got[1] then
      table.insert(stale, ids[j])
    elseif #out < 6 * n then
      for _, x in ipairs({ids[j], ids[j + 1], got[1], got[2] or '0', got[3] or '0', got[4] or '0'}) do
        table.insert(out, x)
      end
    end
  end
  if #out >= 6 * n then break end
  start = start + n
end
for _, uid in ipairs(stale) do redis.call('ZREM', KEYS[1], uid) end
return out
