-- Slide a session's expiry when it exists.
local ttl = tonumber(ARGV[1])
if not ttl or ttl <= 0 then
  return redis.error_reply('ERR ttl must be a positive number')
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], 'seen', ARGV[2])
return redis.call('EXPIRE', KEYS[1], ttl)
