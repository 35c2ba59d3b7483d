-- allow: a sliding-window rate limit. A request is allowed when fewer than
-- `limit` requests were allowed in the window_ms milliseconds before it;
-- refused requests are not recorded, so a client that keeps retrying while
-- limited is let through as soon as its oldest request leaves the window.
--
-- KEYS[1] window      a sorted set: one member per allowed request, scored by
--                     its time; the window (now - window_ms, now]
-- KEYS[2] seq         a counter that makes each member unique, so requests in
--                     the same millisecond are all counted
-- ARGV[1] now_ms      the request's time, Unix ms: 1 to 15 digits, no leading zero
-- ARGV[2] window_ms   the window in milliseconds: 1 to 9 digits, no leading zero
-- ARGV[3] limit       requests allowed per window: 1 to 6 digits, no leading zero
--
-- The caller passes the time, so a retried or replayed call does exactly the
-- same (the token_bucket example shows the server-clock alternative). Give
-- every caller of one key the same clock source: skewed clocks blur the
-- window by their skew.
--
-- Replies:
--   {1, remaining, 0}       allowed and recorded; remaining requests in the window
--   {0, 0, retry_after_ms}  refused, not recorded; the oldest request leaves the
--                           window in retry_after_ms
--   error "ERR invalid now_ms", "ERR invalid window_ms", "ERR invalid limit":
--     nothing is touched
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
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, 0, tonumber(oldest[2]) + tonumber(window_ms) - now}
end

-- INCR before ZADD: if seq is not a counter INCR raises, and nothing is added.
local seq = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], now, ARGV[1] .. '-' .. seq)
redis.call('PEXPIRE', KEYS[1], window_ms)
redis.call('PEXPIRE', KEYS[2], window_ms)
return {1, limit - count - 1, 0}
