-- take: take `cost` tokens from a token bucket, on the server's clock (TIME),
-- so every caller sees one clock however skewed their own are.
--
-- KEYS[1] bucket      a hash; field tokens: the tokens left after the last take
-- ARGV[1] capacity    tokens in a full bucket: 1 to 6 digits, no leading zero
-- ARGV[2] refill_ms   milliseconds per token: 1 to 9 digits, no leading zero
-- ARGV[3] cost        tokens to take: 1 to 6 digits, no leading zero, at most capacity
--
-- The bucket stores no clock reading. Its key expires at the moment the
-- bucket is full again (so a missing bucket is a full one, and an idle client
-- costs no memory), and the last take happened (capacity - tokens) *
-- refill_ms before that expiry. Keeping the state relative also keeps it
-- independent of the clock, so 'scriptctl verify --against' can compare it
-- with the offline run. Keep capacity and refill_ms fixed per key: a change
-- is applied from the next refill on.
--
-- Replies:
--   {1, tokens}            taken; tokens left
--   {0, tokens, wait_ms}   refused, nothing changes; the cost is there in wait_ms
--   error "ERR invalid capacity", "ERR invalid refill_ms", "ERR invalid cost",
--     "ERR cost exceeds capacity": nothing is touched
--   error "ERR not a token bucket": the key holds a hash this script did not
--     write (no TTL, or no integer tokens field); nothing is touched
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
local last = now -- when the bucket last held exactly `tokens`
local full_at = redis.call('PEXPIRETIME', KEYS[1])
if full_at ~= -2 then
  local stored = tonumber(redis.call('HGET', KEYS[1], 'tokens'))
  if full_at == -1 or stored == nil or stored < 0 or stored % 1 ~= 0 then
    return redis.error_reply('ERR not a token bucket')
  end
  last = math.min(now, full_at - (capacity - stored) * refill_ms)
  local refilled = math.floor((now - last) / refill_ms)
  tokens = math.min(capacity, stored + refilled)
  -- Keep the part of a token already refilled: restarting the clock at now
  -- would starve a client that retries faster than refill_ms.
  last = last + refilled * refill_ms
  if tokens == capacity then
    last = now
  end
end

if tokens < cost then
  return {0, tokens, last + (cost - tokens) * refill_ms - now}
end
tokens = tokens - cost
redis.call('HSET', KEYS[1], 'tokens', tokens)
redis.call('PEXPIREAT', KEYS[1], last + (capacity - tokens) * refill_ms)
return {1, tokens}
