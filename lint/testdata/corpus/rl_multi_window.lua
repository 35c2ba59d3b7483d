-- Several windows at once: KEYS[i] is the counter of window i, ARGV holds
-- limit, seconds pairs in the same order.
local function hit(key, limit, seconds)
  local n = redis.call('INCR', key)
  if n == 1 then
    redis.call('EXPIRE', key, seconds)
  end
  return n <= limit
end

for i = 1, #ARGV do
  if not tonumber(ARGV[i]) then
    return redis.error_reply('ERR limits and windows must be numbers')
  end
end
local ok = true
for i = 1, #KEYS do
  local limit, seconds = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  if not hit(KEYS[i], limit, seconds) then
    ok = false
  end
end
return ok and 1 or 0
