-- acquire: take the refresh lease for one cache entry, unless the entry is
-- already cached (the double-check after a handoff), and report the entity's
-- invalidation generation so the loader can carry it to publish.
--
-- KEYS[1] lease          the refresh lease key
-- KEYS[2] value          the cache value key
-- KEYS[3] gen            the entity's generation hash (fields gen, rev)
-- ARGV[1] token          a fresh random ownership token, new for every acquisition
-- ARGV[2] lease_ttl_ms   lease TTL in milliseconds: 1 to 15 digits, no leading zero
--
-- Replies (<gen> is the generation as a decimal string, "0" when never
-- invalidated):
--   {"cached", <value>, <gen>}   the value exists; the lease is not taken
--   {"acquired", <gen>}          the lease is now held with ARGV[1]
--   {"busy", <pttl>}             someone else holds the lease; <pttl> is its remaining TTL in ms
--   error "ERR empty token", "ERR invalid lease TTL": nothing is touched
local token = ARGV[1]
local ttl = ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR empty token')
end
if ttl == nil or #ttl > 15 or not string.find(ttl, '^[1-9][0-9]*$') then
  return redis.error_reply('ERR invalid lease TTL')
end

local gen = redis.call('HGET', KEYS[3], 'gen') or '0'
local cached = redis.call('GET', KEYS[2])
if cached then
  return {'cached', cached, gen}
end
if redis.call('SET', KEYS[1], token, 'NX', 'PX', ttl) then
  return {'acquired', gen}
end
return {'busy', redis.call('PTTL', KEYS[1])}
