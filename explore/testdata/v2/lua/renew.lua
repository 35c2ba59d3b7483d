local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then return redis.error_reply('ERR empty token') end
if ttl == nil or #ttl > 15 or not string.find(ttl, '^[1-9][0-9]*$') then
  return redis.error_reply('ERR invalid lease TTL')
end
if redis.call('GET', KEYS[1]) == token then
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
return 0
