-- Complete a job: check the lock token, move it to the completed set and
-- trim that set to the number of jobs to keep.
local token, jobId, finishedOn, keep = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('GET', KEYS[3]) ~= token then
  return -2
end
redis.call('LREM', KEYS[1], -1, jobId) --! write-before-validation
redis.call('ZADD', KEYS[2], finishedOn, jobId)
redis.call('DEL', KEYS[3])
-- keep is compared as a number only now, after the writes above
if tonumber(keep) > 0 then
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(keep) + 1))
end
return 1
