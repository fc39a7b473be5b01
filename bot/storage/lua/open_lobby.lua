-- Open a group's lobby (bot/storage/rooms.py, RoomStore.open_lobby).
--
-- KEYS: [1] the lobby (nardy:lobby:<chat>), [2] the chat's game pointer (nardy:chat:<chat>:game).
-- ARGV: [1] the lobby JSON, [2] its TTL, [3] the starter's user id.
-- Refused if the chat has a live game ({0, "game", its id}) or another person's open lobby ({0, "lobby",
-- its JSON}); the starter's own open lobby is replaced ({1, its JSON}).
-- Returns {1, ""} when opened in an empty chat.

local current = redis.call('GET', KEYS[2])
if current then
  local game = redis.call('GET', 'nardy:game:' .. current)
  if game and cjson.decode(game)['game']['state']['phase'] ~= 'over' then return {0, 'game', current} end
end
local old = redis.call('GET', KEYS[1])
if old and string.format('%d', cjson.decode(old)['starter']['id']) ~= ARGV[3] then
  return {0, 'lobby', old}
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return {1, old or ''}
