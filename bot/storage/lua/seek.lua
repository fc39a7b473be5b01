-- Look for a quick-match partner (bot/storage/rooms.py, RoomStore.seek).
--
-- KEYS: [1] the variant's queue (nardy:seek:<format>), [2] the seeker's search record
--   (nardy:user:<id>:seek).
-- ARGV: [1] the seeker's user id, [2] their record (Seeker JSON), [3] its join time (the queue's score),
--   [4] the keys' TTL, [5] the variant.
-- Refused if the seeker has a live game in their private chat ({"busy", its id}) or is looking already
-- ({"seeking", their record}). Else the queue is read oldest first: entries whose search ended (no record,
-- or one of another variant) are removed; seekers who started another game meanwhile are removed with
-- their record and returned (to be told); the first other live seeker is the partner ({"pair", their
-- record}): left in the queue, their record is consumed by the game's creation (save_game.lua), or they go
-- on waiting. With nobody there the seeker is queued ({"queued", ""}) in this same step: of two people
-- pressing at once, the second finds the first. So a queue never holds two live seekers, and nobody leaves
-- it but in the step that ends their search.
-- Returns {kind, detail, the records of the seekers dropped for a live game}.
-- Ratings do not choose the partner yet. When they do, this is where they go: each record will carry the
-- rating, and instead of the oldest live seeker the script picks the nearest rating among them, within a
-- window that widens with each candidate's wait (now minus their score), oldest first among equals.

-- @include seek_helpers

local mine = live_game(ARGV[1])
if mine then return {'busy', mine, {}} end
local held = redis.call('GET', KEYS[2])
if held then return {'seeking', held, {}} end
local dropped = {}
while true do
  local batch = redis.call('ZRANGE', KEYS[1], 0, 99)
  if #batch == 0 then break end
  for _, user in ipairs(batch) do
    local raw = nil
    if user ~= ARGV[1] then raw = redis.call('GET', record_key(user)) end
    if not raw or cjson.decode(raw)['game'] ~= ARGV[5] then
      redis.call('ZREM', KEYS[1], user)
    elseif live_game(user) then
      redis.call('ZREM', KEYS[1], user)
      redis.call('DEL', record_key(user))
      dropped[#dropped + 1] = raw
    else
      return {'pair', raw, dropped}
    end
  end
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[4])
return {'queued', '', dropped}
