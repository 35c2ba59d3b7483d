-- Fold a day's leaderboard into the all-time one, then drop the day.
redis.call('ZUNIONSTORE', KEYS[2], 2, KEYS[2], KEYS[1], 'AGGREGATE', 'MAX')
redis.call('DEL', KEYS[1])
return redis.call('ZCARD', KEYS[2])
