-- The entries around a member: its rank, then a window of 5 on each side.
local rank = redis.call('ZREVRANK', KEYS[1], ARGV[1])
if not rank then
  return {}
end
local from = math.max(0, rank - 5)
return redis.call('ZREVRANGE', KEYS[1], from, rank + 5, 'WITHSCORES')
