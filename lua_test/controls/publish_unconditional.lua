-- CONTROL, NOT FOR DEPLOYMENT: the unsafe publish that the seed incident
-- describes. It validates its input like version 1's publish
-- (lua/v1/publish.lua) and releases the lease token-safely, but writes the
-- candidate whether or not the caller still owns the lease, so a paused
-- worker whose lease expired overwrites a newer value. Scenarios run it to
-- prove they can tell safe from unsafe.
--
-- KEYS[1] lease, KEYS[2] value (KEYS[3] gen unused); ARGV[1] token,
-- ARGV[2] candidate, ARGV[3] cache_ttl_ms (ARGV[4] gen, ARGV[5] revision
-- unused)
local token = ARGV[1]
local candidate = ARGV[2]
local ttl = ARGV[3]
if token == nil or token == '' then
  return redis.error_reply('ERR empty token')
end
if ttl == nil or #ttl > 15 or not string.find(ttl, '^[1-9][0-9]*$') then
  return redis.error_reply('ERR invalid cache TTL')
end

redis.call('SET', KEYS[2], candidate, 'PX', ttl)
if redis.call('GET', KEYS[1]) == token then
  redis.call('DEL', KEYS[1])
end
return 1
