-- CONTROL, NOT FOR DEPLOYMENT: a requeue that pushes the job back whether
-- or not it was still in processing. A reaper with a stale view revives a job
-- that its worker already acked, so the job runs twice. Scenarios run it to
-- prove they can tell safe from unsafe.
--
-- KEYS[1] processing, KEYS[2] pending; ARGV[1] job, ARGV[2] retention_ms
local job = ARGV[1]
local retention = ARGV[2]
if job == nil or job == '' then
  return redis.error_reply('ERR empty job')
end
if retention == nil or #retention > 15 or not string.find(retention, '^[1-9][0-9]*$') then
  return redis.error_reply('ERR invalid retention')
end

redis.call('RPUSH', KEYS[2], job)
redis.call('PEXPIRE', KEYS[2], retention)
redis.call('LREM', KEYS[1], 1, job)
return 1
