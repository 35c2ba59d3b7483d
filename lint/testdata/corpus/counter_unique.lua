-- Count unique visitors per day and keep the day for a week.
local added = redis.call('PFADD', KEYS[1], ARGV[1])
if added == 1 then
  redis.call('EXPIRE', KEYS[1], 604800)
end
return redis.call('PFCOUNT', KEYS[1])
