-- Find active jobs whose lock expired and move them back to wait.
local maxStalled = tonumber(ARGV[1]) or 1
local active = redis.call('LRANGE', KEYS[1], 0, -1) --! unbounded-command
local moved = 0
for _, jobId in ipairs(active) do
  -- the lock key is derived from the job id, not passed in KEYS
  if redis.call('EXISTS', ARGV[2] .. jobId .. ':lock') == 0 then --! dynamic-key
    local n = redis.call('HINCRBY', KEYS[3], jobId, 1)
    if n <= maxStalled then
      redis.call('LREM', KEYS[1], 1, jobId)
      redis.call('RPUSH', KEYS[2], jobId)
      moved = moved + 1
    end
  end
end
return moved
