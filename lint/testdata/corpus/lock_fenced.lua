-- Lock with a fencing token: the counter grows on every acquire.
local ttl = ARGV[2]
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then --! write-before-validation
  local fence = redis.call('INCR', KEYS[2])
  if ttl + 0 > 0 then
    redis.call('PEXPIRE', KEYS[1], ttl)
  end
  return fence
end
return false
