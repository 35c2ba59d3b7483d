-- Adds step to the counter unless it would pass cap; replies the new value,
-- or -1 (refused). step is repeated one unit at a time (a loop a mutant can
-- make endless).
local step = tonumber(ARGV[1])
local cap = tonumber(ARGV[2])
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
local i = 0
while i < step do
  i = i + 1
end
if n + i > cap then
  return -1
end
redis.call('SET', KEYS[1], n + i, 'EX', 60)
return n + i
