package verify

import (
	"context"
	"testing"
)

// stepSrc is a queue worker's reserve step: decode a job, bump attempts,
// walk its fields, encode it back, count a list built with #t.
const stepSrc = `local job = cjson.decode(ARGV[1])
job.attempts = job.attempts + 1
local n = 0
for k, v in pairs(job) do n = n + 1 end
local out = {}
for i = 1, 20 do out[#out + 1] = i end
redis.call('SET', KEYS[1], cjson.encode(job))
return n + #out`

// BenchmarkEngineStep measures one offline call of stepSrc on a reused
// engine: the per-call cost a scenario step pays.
func BenchmarkEngineStep(b *testing.B) {
	ctx := context.Background()
	e := New(Options{})
	src := []byte(stepSrc)
	keys := []string{"job"}
	args := []string{`{"id":"job-1","queue":"default","attempts":0,"payload":"x","tries":3,"timeout":60}`}
	b.ReportAllocs()
	for b.Loop() {
		if r, err := e.Eval(ctx, src, keys, args); err != nil || !r.Equal(IntReply(26)) {
			b.Fatalf("%s %v", r, err)
		}
	}
}
