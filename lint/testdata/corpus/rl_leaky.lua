-- Leaky bucket: level drains with time; the caller passes now.
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not rate or not capacity or not now then
  return redis.error_reply('ERR rate, capacity and now must be numbers')
end
local level = tonumber(redis.call('HGET', KEYS[1], 'level')) or 0
local last = tonumber(redis.call('HGET', KEYS[1], 'last')) or now
level = math.max(0, level - (now - last) * rate)
if level + 1 > capacity then
  return 0
end
redis.call('HSET', KEYS[1], 'level', level + 1, 'last', now)
return 1
