-- Move the next job from wait to active and take its lock.
local lockTtl = tonumber(ARGV[2])
if not lockTtl or lockTtl <= 0 then
  return redis.error_reply('ERR lock duration must be a positive number')
end
local jobId = redis.call('RPOPLPUSH', KEYS[1], KEYS[2])
if not jobId then
  return false
end
-- the job's own keys are not declared: they are named after the job id
redis.call('SET', KEYS[3] .. jobId .. ':lock', ARGV[1], 'PX', lockTtl) --! dynamic-key
redis.call('HSET', KEYS[3] .. jobId, 'processedOn', ARGV[3]) --! dynamic-key
return jobId
