#!lua flags=no-writes
-- Read feature flags for a tenant, falling back to the defaults.
local names = {'beta', 'new_ui', 'fast_path'}
local out = {}
for i, name in ipairs(names) do
  local v = redis.call('HGET', KEYS[1], name)
  if not v then
    v = redis.call('HGET', KEYS[2], name)
  end
  out[i] = v or false
end
return out
