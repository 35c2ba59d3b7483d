-- claim: take the oldest pending job and record it as in flight, in one
-- atomic step. The job is never only in the worker's memory: until it is
-- acked (or requeued) it stays in the processing list, where a reaper can
-- find the jobs of a worker that died.
--
-- KEYS[1] pending        the list of jobs waiting (the oldest at the tail)
-- KEYS[2] processing     the list of jobs claimed and not yet acked
-- ARGV[1] retention_ms   how long an idle processing list is kept, in
--                        milliseconds: 1 to 15 digits, no leading zero; every
--                        claim restarts it (make it longer than any job runs)
--
-- Replies:
--   <job>   the claimed job, now at the head of processing
--   nil     nothing pending; nothing is touched
--   error "ERR invalid retention": nothing is touched
local retention = ARGV[1]
if retention == nil or #retention > 15 or not string.find(retention, '^[1-9][0-9]*$') then
  return redis.error_reply('ERR invalid retention')
end

local job = redis.call('LMOVE', KEYS[1], KEYS[2], 'RIGHT', 'LEFT')
if not job then
  return nil
end
redis.call('PEXPIRE', KEYS[2], retention)
return job
