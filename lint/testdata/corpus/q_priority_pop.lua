-- Pop the highest-priority job and record when it started.
local popped = redis.call('ZPOPMAX', KEYS[1])
if #popped == 0 then
  return false
end
local jobId = popped[1]
redis.call('HSET', KEYS[2], jobId, ARGV[1])
return jobId
