-- Count and expire: the counter is written before the TTL is looked at. --! unused-arg
local ttl = tonumber(ARGV[2])
local n = redis.call('INCRBY', KEYS[1], 1) --! write-before-validation
if n == 1 and ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
end
return n
