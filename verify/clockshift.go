package verify

// SetCallTick makes the virtual clock move ms milliseconds forward before
// every command a script runs (redis.call and redis.pcall), until Reset.
// It is a probe, not an imitation: Redis's clock runs on inside a script
// (a PTTL read right after PEXPIRE can be a few ms short on a loaded
// server), and running a script with the clock ticking shows which of its
// replies and stored values depend on that. Scenario live comparisons use
// it to tell clock-derived numbers apart (verify/scenario/clock.go).
func (e *Engine) SetCallTick(ms int64) { e.callTick = max(ms, 0) }
