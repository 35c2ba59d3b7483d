-- List a user's sessions as one comma-separated string.
local ids = redis.call('SMEMBERS', KEYS[1]) --! unbounded-command
return table.concat(ids, ',') --! nondeterministic-order
