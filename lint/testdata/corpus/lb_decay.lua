-- Decay every score by a factor: a whole-set read and rewrite.
local factor = tonumber(ARGV[1])
if not factor or factor <= 0 or factor > 1 then
  return redis.error_reply('ERR factor must be in (0, 1]')
end
local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES') --! unbounded-command
for i = 1, #all, 2 do
  redis.call('ZADD', KEYS[1], tonumber(all[i + 1]) * factor, all[i])
end
return #all / 2
