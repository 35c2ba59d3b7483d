-- Create a session: the session hash with a TTL, and the user's index.
local ttl = tonumber(ARGV[3])
if not ttl or ttl <= 0 or ttl > 2592000 then
  return redis.error_reply('ERR ttl must be 1..2592000 seconds')
end
local fields = {'user', ARGV[2], 'created', ARGV[4]}
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('SADD', KEYS[2], ARGV[1])
return 1
