-- ack: the job is done; remove it from the processing list.
--
-- KEYS[1] processing   the list of jobs claimed and not yet acked
-- ARGV[1] job          the job as claim returned it
--
-- Replies:
--   1   acked: one copy of the job left processing
--   0   the job was not in processing (acked already, or requeued by a
--       reaper that thought its worker dead); nothing changes
--   error "ERR empty job": nothing is touched
local job = ARGV[1]
if job == nil or job == '' then
  return redis.error_reply('ERR empty job')
end

return redis.call('LREM', KEYS[1], 1, job)
