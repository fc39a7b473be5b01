-- Included by save_game.lua (a game's end recorded in the step that saves it) and record_game.lua (a
-- result recorded on its own): no KEYS or ARGV of its own (bot/storage/results.py).
--
-- Defines `local function nardy_record(finished_json, now)`: records one finished game (bot/stats.py's
-- FinishedGame as JSON; now: unix seconds) in its players' statistics, ratings, histories and leaderboards,
-- and returns the outcome as JSON (bot/stats.py's RecordOutcome). Every helper is local to it, so a script
-- can include this file and call it. Idempotent by the game's key (`<table id>/<game number>`): the first
-- call leaves a marker (nardy:recorded:<key>) holding its outcome, and any later or racing call with the
-- same key changes nothing and returns that outcome. The keys (bot/storage/keys.py) are built from the
-- game's JSON, not passed as KEYS: the bot's Redis is a single node, not a Cluster.
-- The rating arithmetic is bot/ratings.py's; the figures named at the top of the function are the Python
-- constants' values (tests/bot/test_lua_scripts.py checks that the two agree).
local function nardy_record(finished_json, now)
  local null = cjson.null
  local f = cjson.decode(finished_json)
  now = tonumber(now)
  local marker = 'nardy:recorded:' .. f.key
  local seen = redis.call('GET', marker)
  if seen then
    return seen
  end
  -- bot/storage/keys.py: USER_TTL, CHAT_TTL, MARKER_TTL; bot/stats.py: MIN_RATED_MATCHES, HISTORY_GAMES,
  -- RATING_POINTS
  local USER_TTL, CHAT_TTL, MARKER_TTL = 31536000, 31536000, 2592000
  local MIN_RATED, HISTORY, POINTS = 5, 20, 100
  local START, SCALE, STAKE = 1500.0, 2000.0, 4.0  -- bot/ratings.py: START_RATING, SCALE, STAKE
  local PROVISIONAL, STEP = 5.0, 100.0  -- bot/ratings.py: PROVISIONAL_FACTOR, EXPERIENCE_STEP
  local HIDDEN_FIELD, HIDDEN = 'top', 'hidden'  -- bot/stats.py: HIDDEN_FIELD, HIDDEN (the /settings choice)
  local function given(x) return x ~= nil and x ~= null end
  local function id(n) return string.format('%d', n) end
  local function ukey(uid, what) return 'nardy:user:' .. id(uid) .. ':' .. what end
  local function num(x, default) local n = tonumber(x) if n == nil then return default end return n end
  local function fmt(x) return string.format('%.17g', x) end
  local variant = f.variant
  local v = variant .. ':'
  local p = f.players
  local won_side = f.winner + 1
  local computer, person = {}, {}
  for i = 1, 2 do
    computer[i] = given(p[i].level)
    person[i] = (not computer[i]) and p[i].id ~= 0
  end
  local outcome = {white = null, black = null}
  local sides = {'white', 'black'}
  local changes = {null, null}
  if p[1].id == p[2].id then  -- a game against oneself counts for nothing
    local stored = cjson.encode({first = false, white = null, black = null})
    redis.call('SET', marker, stored, 'EX', MARKER_TTL)
    return cjson.encode({first = true, white = null, black = null})
  end

  -- the rating: a match between two people, when it is over (FIBS; bot/ratings.py)
  local rated = person[1] and person[2] and f.match_over and given(f.match_winner)
  local after = {}
  if rated then
    local n = f.match_length
    local r, e = {}, {}
    for i = 1, 2 do
      local got = redis.call('HMGET', ukey(p[i].id, 'stats'), v .. 'rating', v .. 'experience')
      r[i] = num(got[1], START)
      e[i] = num(got[2], 0)
    end
    local w = f.match_winner + 1
    local l = 3 - w
    local d = math.abs(r[1] - r[2])
    local underdog = 1 / (math.pow(10, d * math.sqrt(n) / SCALE) + 1)
    local pw
    if r[w] > r[l] then pw = 1 - underdog elseif r[w] < r[l] then pw = underdog else pw = 0.5 end
    local stake = STAKE * math.sqrt(n) * (1 - pw)
    local function factor(x) return math.max(1, PROVISIONAL - x / STEP) end
    local delta = {}
    delta[w] = stake * factor(e[w])
    delta[l] = -stake * factor(e[l])
    for i = 1, 2 do
      after[i] = r[i] + delta[i]
      local key = ukey(p[i].id, 'stats')
      redis.call('HSET', key, v .. 'rating', fmt(after[i]))
      redis.call('HINCRBY', key, v .. 'experience', n)
      local count = redis.call('HINCRBY', key, v .. 'rated', 1)
      local points_key = ukey(p[i].id, 'rating:' .. variant)
      redis.call('RPUSH', points_key, string.format('%.0f', now) .. ' ' .. fmt(after[i]))
      redis.call('LTRIM', points_key, -POINTS, -1)
      redis.call('EXPIRE', points_key, USER_TTL)
      local change = {before = r[i], after = after[i], change = delta[i]}
      changes[i] = delta[i]
      outcome[sides[i]] = change
      -- every board the player is on follows the new rating
      local boards = ukey(p[i].id, 'boards')
      local suffix = ':' .. variant
      for _, board in ipairs(redis.call('SMEMBERS', boards)) do
        if string.sub(board, -#suffix) == suffix then
          if redis.call('ZSCORE', board, id(p[i].id)) then
            redis.call('ZADD', board, fmt(after[i]), id(p[i].id))
          else
            redis.call('SREM', boards, board)
          end
        end
      end
      local hidden = redis.call('HGET', ukey(p[i].id, 'settings'), HIDDEN_FIELD) == HIDDEN
      if count >= MIN_RATED and not hidden then
        redis.call('ZADD', 'nardy:top:' .. variant, fmt(after[i]), id(p[i].id))
        redis.call('EXPIRE', 'nardy:top:' .. variant, USER_TTL)
      end
    end
  end

  -- the counters and the history of each person
  local chat_board = nil
  if f.mode == 'group' and given(f.chat_id) then
    chat_board = 'nardy:top:chat:' .. id(f.chat_id) .. ':' .. variant
  end
  for i = 1, 2 do
    if person[i] then
      local o = 3 - i
      local me, them = p[i], p[o]
      local won = i == won_side
      local key = ukey(me.id, 'stats')
      redis.call('HSET', key, 'name', me.name)
      if computer[o] then
        local c = v .. 'cpu:' .. them.level .. ':'
        redis.call('HINCRBY', key, c .. 'games', 1)
        if won then
          redis.call('HINCRBY', key, c .. 'wins', 1)
          redis.call('HINCRBY', key, c .. 'points_won', f.points)
        else
          redis.call('HINCRBY', key, c .. 'points_lost', f.points)
        end
      else
        redis.call('HINCRBY', key, v .. 'games', 1)
        local kind = nil
        if f.kind == 'mars' then kind = 'mars' elseif f.kind == 'koks' or f.kind == 'home_mars' then kind = 'koks' end
        if won then
          redis.call('HINCRBY', key, v .. 'wins', 1)
          redis.call('HINCRBY', key, v .. 'points_won', f.points)
          if kind then redis.call('HINCRBY', key, v .. kind .. '_won', 1) end
          local streak = redis.call('HINCRBY', key, v .. 'streak', 1)
          if streak > num(redis.call('HGET', key, v .. 'best_streak'), 0) then
            redis.call('HSET', key, v .. 'best_streak', streak)
          end
        else
          redis.call('HINCRBY', key, v .. 'losses', 1)
          redis.call('HINCRBY', key, v .. 'points_lost', f.points)
          if kind then redis.call('HINCRBY', key, v .. kind .. '_lost', 1) end
          redis.call('HSET', key, v .. 'streak', 0)
        end
        if chat_board then
          local rating = redis.call('HGET', key, v .. 'rating') or fmt(START)
          redis.call('ZADD', chat_board, rating, id(me.id))
          redis.call('EXPIRE', chat_board, CHAT_TTL)
          local boards = ukey(me.id, 'boards')
          redis.call('SADD', boards, chat_board)
          redis.call('EXPIRE', boards, USER_TTL)
        end
      end
      redis.call('EXPIRE', key, USER_TTL)
      local level = null
      if computer[o] then level = them.level end
      local entry = {
        key = f.key, variant = variant, opponent = id(them.id), level = level, won = won,
        points = f.points, kind = f.kind, how = f.how, length = f.match_length,
        score = {f.match_score[i], f.match_score[o]}, at = f.ended_at, change = changes[i]
      }
      local history = ukey(me.id, 'history')
      redis.call('LPUSH', history, cjson.encode(entry))
      redis.call('LTRIM', history, 0, HISTORY - 1)
      redis.call('EXPIRE', history, USER_TTL)
    end
  end

  outcome.first = false
  redis.call('SET', marker, cjson.encode(outcome), 'EX', MARKER_TTL)
  outcome.first = true
  return cjson.encode(outcome)
end
