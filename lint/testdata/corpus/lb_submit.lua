-- Submit a score: keep the best one, and count submissions per user.
local score = tonumber(ARGV[2])
if not score then
  return redis.error_reply('ERR score must be a number')
end
local best = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
if not best or score > best then
  redis.call('ZADD', KEYS[1], score, ARGV[1])
end
redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
return redis.call('ZREVRANK', KEYS[1], ARGV[1])
