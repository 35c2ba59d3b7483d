-- Promote due delayed jobs to the wait list, at most 1000 per call.
local now = tonumber(ARGV[1])
if not now then
  return redis.error_reply('ERR now must be a number')
end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], 0, now, 'LIMIT', 0, 1000)
for _, jobId in ipairs(due) do
  redis.call('ZREM', KEYS[1], jobId)
  redis.call('LPUSH', KEYS[2], jobId)
end
return #due
