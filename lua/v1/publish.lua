-- publish: compare-and-publish. Write the candidate only while the caller's
-- token still owns the lease, then end the lease; a late writer is rejected.
--
-- KEYS[1] lease          the refresh lease key
-- KEYS[2] value          the cache value key
-- ARGV[1] token          the token the caller acquired the lease with
-- ARGV[2] candidate      the serialized value to publish
-- ARGV[3] cache_ttl_ms   cache TTL in milliseconds: 1 to 15 digits, no leading zero
--
-- Replies:
--   1   published: the value is the candidate and the lease is deleted
--   0   rejected: the lease is missing, expired or someone else's; nothing changes
--   error "ERR empty token", "ERR invalid cache TTL": nothing is touched
local token = ARGV[1]
local candidate = ARGV[2]
local ttl = ARGV[3]
if token == nil or token == '' then
  return redis.error_reply('ERR empty token')
end
if ttl == nil or #ttl > 15 or not string.find(ttl, '^[1-9][0-9]*$') then
  return redis.error_reply('ERR invalid cache TTL')
end

if redis.call('GET', KEYS[1]) ~= token then
  return 0
end
redis.call('SET', KEYS[2], candidate, 'PX', ttl)
redis.call('DEL', KEYS[1])
return 1
