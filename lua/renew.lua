-- renew: token-safe lease extension for a long load. Set the lease's TTL
-- again only while it holds the caller's token, so a worker whose lease
-- expired never extends a successor's lease. Servers with SET ... IFEQ
-- (Valkey 8.1, Redis 8.4) can do the same without a script:
-- SET lease token IFEQ token PX lease_ttl_ms (OK extended, nil not).
--
-- KEYS[1] lease          the refresh lease key
-- ARGV[1] token          the token the caller acquired the lease with
-- ARGV[2] lease_ttl_ms   the new lease TTL in milliseconds: 1 to 15 digits, no leading zero
--
-- Replies:
--   1   extended: the lease holds the token and now expires in lease_ttl_ms
--   0   not extended: the lease is missing, expired or someone else's; it is untouched
--   error "ERR empty token", "ERR invalid lease TTL": nothing is touched
local token = ARGV[1]
local ttl = ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR empty token')
end
if ttl == nil or #ttl > 15 or not string.find(ttl, '^[1-9][0-9]*$') then
  return redis.error_reply('ERR invalid lease TTL')
end

if redis.call('GET', KEYS[1]) == token then
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
return 0
