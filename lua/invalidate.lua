-- invalidate: an authoritative writer changed the entity's source. Bump the
-- entity's invalidation generation and delete the cached value and any
-- refresh lease, atomically: every outstanding lease is dead, and its
-- publish replies -1 (invalidated) because the generation it carries is
-- gone. With a revision, record it as the entity's revision tombstone, so a
-- later publish of an older revision is refused (-2) too.
--
-- KEYS[1] lease      the refresh lease key
-- KEYS[2] value      the cache value key
-- KEYS[3] gen        the entity's generation hash (fields gen, rev; no TTL)
-- ARGV[1] revision   the source revision the update produced: 0 or 1 to 15
--                    digits, no leading zero; "" (or absent) when revisions
--                    are not used
--
-- Replies:
--   <n>   the new generation (integer)
--   error "ERR invalid revision": nothing is touched
local rev = ARGV[1]
if rev == nil then
  rev = ''
end
if rev ~= '' and (#rev > 15 or not string.find(rev, '^[0-9]+$') or (#rev > 1 and string.sub(rev, 1, 1) == '0')) then
  return redis.error_reply('ERR invalid revision')
end

local stored = redis.call('HGET', KEYS[3], 'rev')
local gen = redis.call('HINCRBY', KEYS[3], 'gen', 1)
if rev ~= '' and (not stored or tonumber(rev) > tonumber(stored)) then
  redis.call('HSET', KEYS[3], 'rev', rev)
end
redis.call('DEL', KEYS[2], KEYS[1])
return gen
