-- CONTROL, NOT FOR DEPLOYMENT: invalidation as version 1 callers do it, a
-- bare DEL of the cached value after the source changed. It neither bumps a
-- generation nor ends the refresh lease, so a loader that read the source
-- before the update still owns its lease and (with v1's publish) makes its
-- older snapshot visible. Scenarios run it to prove they can tell safe from
-- unsafe.
--
-- KEYS[1] lease, KEYS[2] value, KEYS[3] gen; ARGV[1] revision (ignored)
redis.call('DEL', KEYS[2])
return 1
