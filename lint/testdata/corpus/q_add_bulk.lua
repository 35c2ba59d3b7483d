-- Add several jobs: ARGV holds id, data pairs.
if #ARGV % 2 ~= 0 then
  return redis.error_reply('ERR want id, data pairs')
end
local added = 0
for i = 1, #ARGV, 2 do
  local id, data = ARGV[i], ARGV[i + 1]
  if redis.call('HSETNX', KEYS[1], id, data) == 1 then
    redis.call('LPUSH', KEYS[2], id)
    added = added + 1
  end
end
return added
