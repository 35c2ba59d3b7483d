-- Retry a failed job: back to wait, or to the delayed set with a backoff.
local jobId = ARGV[1]
local backoff = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not backoff or backoff < 0 or not now then
  return redis.error_reply('ERR backoff and timestamp must be numbers')
end

local function attempts(jobKey)
  return redis.call('HINCRBY', jobKey, 'attemptsMade', 1)
end

redis.call('LREM', KEYS[1], 0, jobId)
local made = attempts(KEYS[4])
if backoff > 0 then
  redis.call('ZADD', KEYS[3], now + backoff, jobId)
else
  redis.call('LPUSH', KEYS[2], jobId)
end
return made
