-- Concurrency limiter: a sorted set of holders scored by expiry.
local holder, now, ttl, max = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if not now or not ttl or not max then
  return redis.error_reply('ERR now, ttl and max must be numbers')
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= max then
  return 0
end
redis.call('ZADD', KEYS[1], now + ttl, holder)
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
