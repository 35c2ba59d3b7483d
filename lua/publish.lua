-- publish: compare-and-publish with an invalidation generation and optional
-- source revisions. Write the candidate only while the caller's token still
-- owns the lease, the entity has not been invalidated since the caller's
-- acquire, and the candidate is not older than the newest revision recorded;
-- a late writer and a writer that read the source before an invalidation
-- are both rejected, and the reply tells why.
--
-- KEYS[1] lease          the refresh lease key
-- KEYS[2] value          the cache value key
-- KEYS[3] gen            the entity's generation hash (fields gen, rev)
-- ARGV[1] token          the token the caller acquired the lease with
-- ARGV[2] candidate      the serialized value to publish
-- ARGV[3] cache_ttl_ms   cache TTL in milliseconds: 1 to 15 digits, no leading zero
-- ARGV[4] gen            the generation acquire replied: 0 or 1 to 15 digits, no leading zero
-- ARGV[5] revision       the candidate's source revision, same form, or "" when
--                        revisions are not used
--
-- Replies:
--    1   published: the value is the candidate (PX cache_ttl_ms), the
--        revision is recorded when given, and the lease is deleted
--    0   lease lost: the lease is missing, expired or someone else's; nothing changes
--   -1   invalidated: the generation is no longer ARGV[4]; nothing is written,
--        and the caller's lease (if it still holds it) is deleted
--   -2   older revision: ARGV[5] is below the revision recorded for the
--        entity; nothing is written, and the caller's lease is deleted
--   error "ERR empty token", "ERR invalid cache TTL", "ERR invalid generation",
--   "ERR invalid revision": nothing is touched
--
-- The generation is compared first: a candidate read before an invalidation
-- is reported invalidated even though the invalidation also ended its lease.
local token = ARGV[1]
local candidate = ARGV[2]
local ttl = ARGV[3]
local gen = ARGV[4]
local rev = ARGV[5]
if token == nil or token == '' then
  return redis.error_reply('ERR empty token')
end
if ttl == nil or #ttl > 15 or not string.find(ttl, '^[1-9][0-9]*$') then
  return redis.error_reply('ERR invalid cache TTL')
end
if gen == nil or #gen > 15 or not string.find(gen, '^[0-9]+$') or (#gen > 1 and string.sub(gen, 1, 1) == '0') then
  return redis.error_reply('ERR invalid generation')
end
if rev == nil then
  rev = ''
end
if rev ~= '' and (#rev > 15 or not string.find(rev, '^[0-9]+$') or (#rev > 1 and string.sub(rev, 1, 1) == '0')) then
  return redis.error_reply('ERR invalid revision')
end

local state = redis.call('HMGET', KEYS[3], 'gen', 'rev')
local owned = redis.call('GET', KEYS[1]) == token
if (state[1] or '0') ~= gen then
  if owned then
    redis.call('DEL', KEYS[1])
  end
  return -1
end
if not owned then
  return 0
end
if rev ~= '' and state[2] and tonumber(rev) < tonumber(state[2]) then
  redis.call('DEL', KEYS[1])
  return -2
end
redis.call('SET', KEYS[2], candidate, 'PX', ttl)
if rev ~= '' then
  redis.call('HSET', KEYS[3], 'rev', rev)
end
redis.call('DEL', KEYS[1])
return 1
