-- GCRA: the theoretical arrival time is stored; the caller passes now.
local period = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not period or not burst or not now or period <= 0 then
  return redis.error_reply('ERR period, burst and now must be numbers')
end
local interval = period / burst
local tat = tonumber(redis.call('GET', KEYS[1])) or now
tat = math.max(tat, now)
local allow_at = tat - period + interval
if now < allow_at then
  return {0, allow_at - now}
end
local new_tat = tat + interval
local reset_after = new_tat - now
if reset_after > 0 then
  redis.call('SET', KEYS[1], new_tat, 'PX', math.ceil(reset_after))
end
return {1, 0}
