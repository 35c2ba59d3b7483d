-- release: token-safe lease release. Delete the lease only while it holds the
-- caller's token, so a late worker never removes a successor's lease.
--
-- KEYS[1] lease   the refresh lease key
-- ARGV[1] token   the token the caller acquired the lease with
--
-- Replies:
--   1   released: the lease held the token and is deleted
--   0   not released: the lease is missing or someone else's; it is untouched
--   error "ERR empty token": nothing is touched
local token = ARGV[1]
if token == nil or token == '' then
  return redis.error_reply('ERR empty token')
end

if redis.call('GET', KEYS[1]) == token then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
