-- CONTROL, NOT FOR DEPLOYMENT: the classic token bucket slip. It refills
-- whole tokens and then restarts the clock at now, on every call, refused
-- ones included, dropping the part of a token already refilled. A client
-- that retries faster than refill_ms restarts the clock each time and never
-- gets a token. Scenarios run it to prove they can tell safe from unsafe.
--
-- KEYS[1] bucket; ARGV[1] capacity, ARGV[2] refill_ms, ARGV[3] cost
local function positive(arg, digits)
  return arg ~= nil and #arg <= digits and string.find(arg, '^[1-9][0-9]*$') ~= nil
end

if not positive(ARGV[1], 6) then
  return redis.error_reply('ERR invalid capacity')
end
if not positive(ARGV[2], 9) then
  return redis.error_reply('ERR invalid refill_ms')
end
if not positive(ARGV[3], 6) then
  return redis.error_reply('ERR invalid cost')
end
local capacity = tonumber(ARGV[1])
local refill_ms = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
if cost > capacity then
  return redis.error_reply('ERR cost exceeds capacity')
end

-- scriptctl:ignore nondeterministic the bucket runs on the server clock
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local tokens = capacity
local full_at = redis.call('PEXPIRETIME', KEYS[1])
if full_at ~= -2 then
  local stored = tonumber(redis.call('HGET', KEYS[1], 'tokens'))
  if full_at == -1 or stored == nil or stored < 0 or stored % 1 ~= 0 then
    return redis.error_reply('ERR not a token bucket')
  end
  local last = math.min(now, full_at - (capacity - stored) * refill_ms)
  tokens = math.min(capacity, stored + math.floor((now - last) / refill_ms))
end

local taken = 0
if tokens >= cost then
  tokens = tokens - cost
  taken = 1
end
if tokens < capacity then
  redis.call('HSET', KEYS[1], 'tokens', tokens)
  redis.call('PEXPIREAT', KEYS[1], now + (capacity - tokens) * refill_ms)
end
if taken == 1 then
  return {1, tokens}
end
return {0, tokens, (cost - tokens) * refill_ms}
