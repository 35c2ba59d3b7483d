-- Counting semaphore: holders in a sorted set scored by acquire time,
-- with a counter for fairness.
local limit = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local timeout = tonumber(ARGV[3])
if not limit or not now or not timeout then
  return redis.error_reply('ERR limit, now and timeout must be numbers')
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - timeout)
local ticket = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], now, ARGV[4])
if redis.call('ZCARD', KEYS[1]) > limit then
  redis.call('ZREM', KEYS[1], ARGV[4])
  return false
end
return ticket
