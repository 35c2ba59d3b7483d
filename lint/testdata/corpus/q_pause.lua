-- Pause or resume: rename the wait list and flag the meta hash.
local function setPaused(meta, paused)
  if paused then
    return redis.call('HSET', meta, 'paused', 1)
  end
  return redis.call('HDEL', meta, 'paused')
end

if ARGV[1] == 'pause' then
  if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('RENAME', KEYS[1], KEYS[2])
  end
  setPaused(KEYS[3], true)
else
  if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('RENAME', KEYS[2], KEYS[1])
  end
  setPaused(KEYS[3], false)
end
return 1
