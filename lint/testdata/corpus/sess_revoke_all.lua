-- Revoke every session of a user: the session keys are named after the
-- ids in the user's index, so they cannot be declared.
local ids = redis.call('SMEMBERS', KEYS[1]) --! unbounded-command
for _, id in ipairs(ids) do
  redis.call('DEL', ARGV[1] .. id) --! dynamic-key
end
redis.call('DEL', KEYS[1])
return #ids
