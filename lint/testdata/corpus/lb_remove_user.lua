-- Remove a user from every board given in KEYS.
local removed = 0
for _, board in ipairs(KEYS) do
  removed = removed + redis.call('ZREM', board, ARGV[1])
end
return removed
