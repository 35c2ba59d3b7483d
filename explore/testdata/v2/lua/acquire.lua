local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then return redis.error_reply('ERR empty token') end
if ttl == nil or #ttl > 15 or not string.find(ttl, '^[1-9][0-9]*$') then
  return redis.error_reply('ERR invalid lease TTL')
end
local gen = redis.call('HGET', KEYS[3], 'gen') or '0'
local cached = redis.call('GET', KEYS[2])
if cached then return {'cached', cached, gen} end
if redis.call('SET', KEYS[1], token, 'NX', 'PX', ttl) then return {'acquired', gen} end
return {'busy', redis.call('PTTL', KEYS[1])}
