-- Push a job onto a tenant's wait list, FIFO unless asked. --! unused-key
-- The list name is built here from the tenant id in ARGV, as some
-- multi-tenant queues do. An older archive helper is kept but no longer
-- called (it read KEYS[3], now unread). The stats key is built by the
-- caller around the queue's hash tag, and the helper's ignore comment
-- covers every caller.
local id = ARGV[1]
local mode = ARGV[2]
local ttl = ARGV[3]

local function push(cmd, tenant, jobId)
  return redis.call(cmd, 'q:' .. tenant .. ':wait', jobId) --! dynamic-key
end

local function archive(jobId)
  lastArchived = jobId
  return redis.call('LPUSH', KEYS[3], jobId, ARGV[9])
end

local function count(key, field)
  -- scriptctl:ignore dynamic-key the stats key carries the queue's hash tag, set by the caller
  return redis.call('HINCRBY', key, field, 1)
end

if redis.call('SISMEMBER', KEYS[1], id) == 1 then
  return 0
end
redis.call('SADD', KEYS[1], id)
if ARGV[5] == '1' then
  push('LPUSH', ARGV[4], id)
else
  push(mode == 'lifo' and 'RPUSH' or 'LPUSH', ARGV[4], id)
end
count(KEYS[2] .. ':{' .. ARGV[4] .. '}', 'pushed')
count(KEYS[2] .. ':{' .. ARGV[4] .. '}:' .. mode, 'pushed')
-- Day-long stats only: the TTL is one fixed value.
if ttl == '86400' and redis.call('TTL', KEYS[2]) < 0 then
  redis.call('EXPIRE', KEYS[2], ttl)
end
return 1
