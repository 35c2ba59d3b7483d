-- acquire: take the refresh lease for one cache entry, unless the entry is
-- already cached (the double-check after a handoff).
--
-- KEYS[1] lease          the refresh lease key
-- KEYS[2] value          the cache value key
-- ARGV[1] token          a fresh random ownership token, new for every acquisition
-- ARGV[2] lease_ttl_ms   lease TTL in milliseconds: 1 to 15 digits, no leading zero
--
-- Replies:
--   {"cached", <value>}   the value exists; the lease is not taken
--   {"acquired"}          the lease is now held with ARGV[1]
--   {"busy", <pttl>}      someone else holds the lease; <pttl> is its remaining TTL in ms
--   error "ERR empty token", "ERR invalid lease TTL": nothing is touched
local token = ARGV[1]
local ttl = ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR empty token')
end
if ttl == nil or #ttl > 15 or not string.find(ttl, '^[1-9][0-9]*$') then
  return redis.error_reply('ERR invalid lease TTL')
end

local cached = redis.call('GET', KEYS[2])
if cached then
  return {'cached', cached}
end
if redis.call('SET', KEYS[1], token, 'NX', 'PX', ttl) then
  return {'acquired'}
end
return {'busy', redis.call('PTTL', KEYS[1])}
