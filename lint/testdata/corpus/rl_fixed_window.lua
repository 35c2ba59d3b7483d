-- Fixed-window counter: INCR, and set the window's expiry on the first hit.
local limit = tonumber(ARGV[1])
if not limit then
  return redis.error_reply('ERR limit must be a number')
end
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[2]) --! unvalidated-ttl
end
if count > limit then
  return 0
end
return 1
