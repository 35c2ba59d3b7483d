-- CONTROL, NOT FOR DEPLOYMENT: the classic sliding-window slip. It records
-- every request before counting, refused ones included, so a client that
-- keeps retrying while limited fills its own window and stays locked out
-- after its old requests have left it. Scenarios run it to prove they can
-- tell safe from unsafe.
--
-- KEYS[1] window, KEYS[2] seq; ARGV[1] now_ms, ARGV[2] window_ms, ARGV[3] limit
local function positive(arg, digits)
  return arg ~= nil and #arg <= digits and string.find(arg, '^[1-9][0-9]*$') ~= nil
end

if not positive(ARGV[1], 15) then
  return redis.error_reply('ERR invalid now_ms')
end
if not positive(ARGV[2], 9) then
  return redis.error_reply('ERR invalid window_ms')
end
if not positive(ARGV[3], 6) then
  return redis.error_reply('ERR invalid limit')
end
local now = tonumber(ARGV[1])
local window_ms = ARGV[2]
local limit = tonumber(ARGV[3])

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(window_ms))
local seq = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], now, ARGV[1] .. '-' .. seq)
redis.call('PEXPIRE', KEYS[1], window_ms)
redis.call('PEXPIRE', KEYS[2], window_ms)
local count = redis.call('ZCARD', KEYS[1])
if count > limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, 0, tonumber(oldest[2]) + tonumber(window_ms) - now}
end
return {1, limit - count, 0}
