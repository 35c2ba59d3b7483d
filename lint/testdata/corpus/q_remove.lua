-- Remove a job unless it is locked.
local jobId = ARGV[1]
if redis.call('EXISTS', KEYS[4]) == 1 then
  return redis.error_reply('job ' .. jobId .. ' is locked') --! reply-injection
end
redis.call('LREM', KEYS[1], 0, jobId)
redis.call('ZREM', KEYS[2], jobId)
redis.call('DEL', KEYS[3], KEYS[4])
return 1
