-- Reentrant lock: a hash of owner -> hold count.
local owner = ARGV[1]
local ttl = tonumber(ARGV[2])
if not ttl then
  return redis.error_reply('ERR ttl must be a number')
end
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], owner) == 1 then
  redis.call('HINCRBY', KEYS[1], owner, 1)
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
return redis.call('PTTL', KEYS[1])
