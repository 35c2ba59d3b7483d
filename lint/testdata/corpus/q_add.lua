-- Add a job: the job hash, then the wait list (LIFO or FIFO) or the
-- delayed set. The queue's key prefix comes from ARGV, as some queue
-- libraries do: every key built from it is unknown to a cluster.
local prefix = ARGV[1]
local id = ARGV[2]
local opts = {
  lifo = ARGV[4] == '1',
  delay = tonumber(ARGV[5]) or 0,
  timestamp = tonumber(ARGV[6]) or 0,
}

local function addToWait(waitKey, jobId, lifo)
  local pushCmd = lifo and 'RPUSH' or 'LPUSH'
  return redis.call(pushCmd, waitKey, jobId)
end

local function addToDelayed(delayedKey, jobId, ts)
  return redis.call('ZADD', delayedKey, ts, jobId)
end

if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'data', ARGV[3], 'ts', opts.timestamp)
if opts.delay > 0 then
  addToDelayed(prefix .. 'delayed', id, opts.timestamp + opts.delay) --! dynamic-key
else
  addToWait(KEYS[2], id, opts.lifo)
end
redis.call('PUBLISH', prefix .. 'events', 'added:' .. id)
return 1
