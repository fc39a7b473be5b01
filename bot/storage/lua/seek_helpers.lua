-- Included by the quick-match scripts (seek.lua, sweep_seeks.lua): no KEYS or ARGV of its own. Defines
-- record_key(user), the key of a user's search record, and live_game(chat), the id of the live game of a
-- private chat (nil if none). They build key names: the bot's Redis is a single node, not a Cluster.

local function record_key(user) return 'nardy:user:' .. user .. ':seek' end
local function live_game(chat)
  local current = redis.call('GET', 'nardy:chat:' .. chat .. ':game')
  if not current then return nil end
  local game = redis.call('GET', 'nardy:game:' .. current)
  if game and cjson.decode(game)['game']['state']['phase'] ~= 'over' then return current end
  return nil
end
