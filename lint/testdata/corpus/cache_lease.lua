-- Cache refresh lease: take the lease unless the value is fresh.
local leaseMs = tonumber(ARGV[2])
if not leaseMs or leaseMs <= 0 or leaseMs ~= math.floor(leaseMs) then
  return redis.error_reply('ERR lease must be a positive integer')
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  return 0
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', leaseMs) then
  return 1
end
return -1
