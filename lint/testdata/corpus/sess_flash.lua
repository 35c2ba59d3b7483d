-- A flash message in the session hash that expires on its own.
redis.call('HSET', KEYS[1], 'flash', ARGV[1])
return redis.call('HEXPIRE', KEYS[1], 30, 'FIELDS', 1, 'flash') --! target-command
