-- Admit attempts under their tags' throughput and concurrency limits
-- (docs/api/tag-policies.md), atomically for a batch.
--
-- Per project and tag, two keys:
--   KEY_PREFIX .. "<project>:<tag>:log"  ZSET execution id -> start time (ms);
--                                        the tag's most recent starts, capped
--                                        by rank, so "is there room in this
--                                        window" needs only the n-th newest.
--                                        The cap is ARGV[3], or a limited
--                                        tag's largest whole rate if higher:
--                                        the n-th newest must still be there.
--   KEY_PREFIX .. "<project>:<tag>:run"  SET of attempts admitted and not ended
--   KEY_PREFIX .. "<project>:<tag>:wait" SET of attempts admitted, not started
-- Every admitted attempt is recorded on every tag it carries, limited or not,
-- so a policy created later counts the starts made before it (Throughput 9).
--
-- ARGV[1] key prefix, ARGV[2] now (ms), ARGV[3] cap of a log, ARGV[4] the
-- oldest start worth keeping (ms), ARGV[5] JSON:
--   { "limits": { "<project>:<tag>": { "max": n|null, "windows": [[ms, rate], ...] } },
--     "candidates": [ [executionId, project, [tags...]], ... ] }   oldest first
-- Returns a flat list: admitted execution ids, then "|", then the
-- "<project>:<tag>" pairs that held something back.
local prefix = ARGV[1]
local now = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
local oldest = tonumber(ARGV[4])
local input = cjson.decode(ARGV[5])
local limits = input.limits

local blocked = {}
local pendingBefore = {}

-- The most starts a log can hold (a sorted set's limit). A larger rate can
-- never be reached, so its window never holds anything back; and Lua would
-- write its rank as `1e+17`, which Redis refuses, failing the whole batch.
local MAX_LOG = 4294967295

-- How many starts a tag's log keeps: enough for its largest rate.
local function capOf(pt)
  local limit = limits[pt]
  local keep = cap
  if limit ~= nil then
    for _, w in ipairs(limit.windows) do
      if w[2] > keep then keep = math.floor(math.min(w[2], MAX_LOG)) end
    end
  end
  return keep
end

local function hasRoom(pt, limit)
  if blocked[pt] then return false end
  local base = prefix .. pt
  if limit.max ~= cjson.null and limit.max ~= nil then
    if redis.call("SCARD", base .. ":run") >= limit.max then return false end
    -- With maxConcurrent the throughput check is strict (Throughput 11): an
    -- attempt admitted earlier whose real start is not known yet holds back.
    if pendingBefore[pt] == nil then pendingBefore[pt] = redis.call("SCARD", base .. ":wait") > 0 end
  end
  for _, w in ipairs(limit.windows) do
    local span, rate = w[1], w[2]
    if rate <= 0 then return false end
    if rate > MAX_LOG then
      -- more starts than any log holds: this window cannot be full
    elseif rate >= 1 then
      local n = math.floor(rate)
      -- the n-th most recent start must be at least a window old
      local nth = redis.call("ZREVRANGE", base .. ":log", n - 1, n - 1, "WITHSCORES")
      if nth[2] ~= nil and tonumber(nth[2]) > now - span then return false end
    else
      -- one start per window / rate, evenly spaced
      local last = redis.call("ZREVRANGE", base .. ":log", 0, 0, "WITHSCORES")
      if last[2] ~= nil and tonumber(last[2]) > now - span / rate then return false end
    end
    if pendingBefore[pt] then return false end
  end
  return true
end

local admitted = {}
for _, c in ipairs(input.candidates) do
  local id, project, tags = c[1], c[2], c[3]
  local ok = true
  for _, tag in ipairs(tags) do
    local pt = project .. ":" .. tag
    local limit = limits[pt]
    if limit ~= nil and not hasRoom(pt, limit) then
      blocked[pt] = true
      ok = false
    end
  end
  if ok then
    admitted[#admitted + 1] = id
    for _, tag in ipairs(tags) do
      local base = prefix .. project .. ":" .. tag
      redis.call("ZADD", base .. ":log", now, id)
      redis.call("ZREMRANGEBYRANK", base .. ":log", 0, -(capOf(project .. ":" .. tag) + 1))
      redis.call("ZREMRANGEBYSCORE", base .. ":log", "-inf", "(" .. oldest)
      redis.call("SADD", base .. ":run", id)
      redis.call("SADD", base .. ":wait", id)
    end
  end
end

admitted[#admitted + 1] = "|"
for pt, _ in pairs(blocked) do admitted[#admitted + 1] = pt end
return admitted
