-- Reserve stock for an order; KEYS[i] is the stock counter of item i and
-- ARGV[i] the quantity. Every quantity is checked before any write.
for i = 1, #KEYS do
  local q = tonumber(ARGV[i])
  if not q or q <= 0 then
    return redis.error_reply('ERR quantities must be positive numbers')
  end
  local have = tonumber(redis.call('GET', KEYS[i])) or 0
  if have < q then
    return {0, i}
  end
end
for i = 1, #KEYS do
  redis.call('DECRBY', KEYS[i], ARGV[i])
end
return {1, 0}
