-- CONTROL, NOT FOR DEPLOYMENT: a release that deletes the lease without
-- comparing the token, so a worker whose lease expired removes its
-- successor's lease. Scenarios run it to prove they can tell safe from
-- unsafe.
--
-- KEYS[1] lease; ARGV[1] token
local token = ARGV[1]
if token == nil or token == '' then
  return redis.error_reply('ERR empty token')
end
return redis.call('DEL', KEYS[1])
