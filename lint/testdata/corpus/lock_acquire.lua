-- Acquire a lock with a token and a TTL in milliseconds.
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) --! unvalidated-ttl
