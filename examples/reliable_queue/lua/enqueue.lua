-- enqueue: add a job at the back of the queue.
--
-- KEYS[1] pending        the list of jobs waiting to be claimed (newest at the head)
-- ARGV[1] job            the job: a unique id (or a payload carrying one), not empty
-- ARGV[2] retention_ms   how long an idle queue is kept, in milliseconds: 1 to 15
--                        digits, no leading zero; every enqueue restarts it
--
-- Replies:
--   <n>   the number of jobs now pending
--   error "ERR empty job", "ERR invalid retention": nothing is touched
local job = ARGV[1]
local retention = ARGV[2]
if job == nil or job == '' then
  return redis.error_reply('ERR empty job')
end
if retention == nil or #retention > 15 or not string.find(retention, '^[1-9][0-9]*$') then
  return redis.error_reply('ERR invalid retention')
end

local n = redis.call('LPUSH', KEYS[1], job)
redis.call('PEXPIRE', KEYS[1], retention)
return n
