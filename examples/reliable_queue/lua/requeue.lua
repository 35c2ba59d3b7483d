-- requeue: give a claimed job back, so it is claimed again next (a worker
-- that cannot finish it, or a reaper returning the jobs of a dead worker).
-- The job is pushed back only if it was still in processing: a reaper with a
-- stale view must not revive a job that was acked meanwhile, or requeue the
-- same job twice.
--
-- KEYS[1] processing     the list of jobs claimed and not yet acked
-- KEYS[2] pending        the list of jobs waiting (the next claimed at the tail)
-- ARGV[1] job            the job as claim returned it
-- ARGV[2] retention_ms   as for enqueue: 1 to 15 digits, no leading zero
--
-- Replies:
--   1   requeued: the job left processing and is the next to be claimed
--   0   the job was not in processing; nothing changes
--   error "ERR empty job", "ERR invalid retention": nothing is touched
local job = ARGV[1]
local retention = ARGV[2]
if job == nil or job == '' then
  return redis.error_reply('ERR empty job')
end
if retention == nil or #retention > 15 or not string.find(retention, '^[1-9][0-9]*$') then
  return redis.error_reply('ERR invalid retention')
end

if not redis.call('LPOS', KEYS[1], job) then
  return 0
end
-- Push before removing: a script is not rolled back, so if pending is not a
-- list RPUSH raises here and the job is still safe in processing.
redis.call('RPUSH', KEYS[2], job)
redis.call('PEXPIRE', KEYS[2], retention)
redis.call('LREM', KEYS[1], 1, job)
return 1
