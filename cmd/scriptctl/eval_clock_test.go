package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// TestEvalDiffClock: eval --diff of a token bucket that stores TIME in a
// hash and sets PEXPIRE agrees with a live server, run after run, and
// says which parts were equal only within the clock tolerance; a constant
// that looks like a time stays exact.
func TestEvalDiffClock(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	srv := redistest.Standalone(t)
	dir := t.TempDir()
	bucket := filepath.Join(dir, "bucket.lua")
	writeFile(t, bucket, `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ts = tonumber(redis.call('HGET', KEYS[1], 'ts') or now)
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens') or ARGV[1])
tokens = math.min(tonumber(ARGV[1]), tokens + math.floor((now - ts) / 1000))
redis.call('HSET', KEYS[1], 'tokens', tokens - 1, 'ts', now, 'since', '1700000000000')
redis.call('PEXPIRE', KEYS[1], 60000)
return {tokens - 1, tostring(now), redis.call('PTTL', KEYS[1]), t}
`)
	state := filepath.Join(dir, "state.yaml")
	writeFile(t, state, "\"{b}bucket\":\n  hash: {tokens: \"5\", ts: \"1700000000000\"}\n  ttl_ms: 60000\n")
	url := "redis://" + srv.Addr
	for i := 0; i < 10; i++ {
		code, out, errOut := runEvalCLI(t, "eval", "--diff", "--against", url, "--state", state, bucket, "{b}bucket", ",", "5")
		if code != 0 || !strings.HasPrefix(out, "1) (integer) 4\n2) \"1") {
			t.Fatalf("run %d: exit %d\nstdout:\n%s\nstderr:\n%s", i, code, out, errOut)
		}
		// TIME's microseconds always move; the stored ts only when the
		// server's millisecond is another than offline's.
		if !strings.Contains(errOut, "equal within the clock tolerance (50ms): reply") {
			t.Errorf("run %d: stderr %q", i, errOut)
		}
	}
	code, out, errOut := runEvalCLI(t, "eval", "--diff", "--format", "json", "--against", url, "--state", state, bucket, "{b}bucket", ",", "5")
	var doc struct {
		Differ         bool `json:"differ"`
		ClockTolerated []struct {
			What string `json:"what"`
		} `json:"clock_tolerated"`
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || doc.Differ || len(doc.ClockTolerated) == 0 || doc.ClockTolerated[0].What != "reply" {
		t.Errorf("json: exit %d, %v\n%s\n%s", code, err, out, errOut)
	}
}
