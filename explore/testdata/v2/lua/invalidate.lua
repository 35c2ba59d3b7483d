local rev = ARGV[1]
if rev == nil or rev ~= '' and (#rev > 15 or not string.find(rev, '^0$') and not string.find(rev, '^[1-9][0-9]*$')) then
  return redis.error_reply('ERR invalid revision')
end
local gen = redis.call('HINCRBY', KEYS[3], 'gen', 1)
if rev ~= '' then
  local seen = redis.call('HGET', KEYS[3], 'rev')
  if not seen or tonumber(rev) > tonumber(seen) then
    redis.call('HSET', KEYS[3], 'rev', rev)
  end
end
redis.call('DEL', KEYS[2], KEYS[1])
return gen
