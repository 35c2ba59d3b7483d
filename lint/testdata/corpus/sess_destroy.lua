-- Destroy a session and drop it from the user's index.
local user = redis.call('HGET', KEYS[1], 'user')
redis.call('DEL', KEYS[1])
if user then
  redis.call('SREM', KEYS[2], ARGV[1])
end
return user and 1 or 0
