-- Drop duplicate events: the event id is remembered for a while.
local window = ARGV[2]
local seen = redis.call('SET', KEYS[1], '1', 'NX', 'EX', window) --! unvalidated-ttl
if not seen then
  return 0
end
redis.call('XADD', KEYS[2], '*', 'id', ARGV[1])
return 1
