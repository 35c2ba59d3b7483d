-- The top N, with scores; N defaults to 10 and is capped at 100.
local n = math.min(100, math.max(1, tonumber(ARGV[1]) or 10))
return redis.call('ZREVRANGE', KEYS[1], 0, n - 1, 'WITHSCORES')
