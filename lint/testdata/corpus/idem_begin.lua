-- Idempotency key: the first caller gets 1 and owns the key for the
-- given seconds; later callers get the stored result, or 0 while pending.
local seconds = tonumber(ARGV[2])
if not seconds or seconds < 1 then
  return redis.error_reply('ERR seconds must be a positive number')
end
local ok = redis.call('SET', KEYS[1], 'pending:' .. ARGV[1], 'NX', 'EX', seconds)
if ok then
  return 1
end
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, 8) == 'pending:' then
  return 0
end
return v
