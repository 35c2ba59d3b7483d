local token, candidate, ttl, gen, rev = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
if token == nil or token == '' then return redis.error_reply('ERR empty token') end
if ttl == nil or #ttl > 15 or not string.find(ttl, '^[1-9][0-9]*$') then
  return redis.error_reply('ERR invalid cache TTL')
end
if gen == nil or #gen > 15 or not string.find(gen, '^0$') and not string.find(gen, '^[1-9][0-9]*$') then
  return redis.error_reply('ERR invalid generation')
end
if rev == nil or rev ~= '' and (#rev > 15 or not string.find(rev, '^0$') and not string.find(rev, '^[1-9][0-9]*$')) then
  return redis.error_reply('ERR invalid revision')
end
if redis.call('GET', KEYS[1]) ~= token then return 0 end
if (redis.call('HGET', KEYS[3], 'gen') or '0') ~= gen then
  redis.call('DEL', KEYS[1])
  return -1
end
if rev ~= '' then
  local seen = redis.call('HGET', KEYS[3], 'rev')
  if seen and tonumber(rev) < tonumber(seen) then
    redis.call('DEL', KEYS[1])
    return -2
  end
  redis.call('HSET', KEYS[3], 'rev', rev)
end
redis.call('SET', KEYS[2], candidate, 'PX', ttl)
redis.call('DEL', KEYS[1])
return 1
