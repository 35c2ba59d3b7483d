package verify

import (
	"context"
	"strings"
	"testing"
)

// pollute tries every way a run has to leave something behind in its
// engine's sandbox: writable tables behind the readonly ones, metatables,
// cjson's settings, math.random's state, a loadstring chunk, the keyspace
// and the clock. Each attempt is protected, so one refusal does not stop
// the others.
const pollute = `
local function try(f) pcall(f) end
try(function() getmetatable(getmetatable(_G)).__index.leak = 'G' end)
try(function() getmetatable(getmetatable(_G)).__newindex = nil end)
try(function() setmetatable(getmetatable(getmetatable(_G)), {__index = {leak2 = 'mt'}}) end)
try(function() getmetatable(getmetatable(getmetatable(''))).__index.leak = 'S' end)
try(function() setmetatable(cjson.null, {__tostring = function() return 'leaked null' end}) end)
try(function() cjson.encode_max_depth(1) end)
try(function() cjson.encode_number_precision(3) end)
try(function() math.randomseed(7) end)
try(function() math.random() end)
try(function() loadstring('return 1', '=leakchunk') end)
try(function() rawset(_G, 'leak', 1) end)
try(function() _G.leak = 1 end)
try(function() redis.leak = 1 end)
try(function() string.leak = 1 end)
redis.call('SET', KEYS[1], 'left behind')
return 1
`

// probe reports, as one string, everything pollute may have changed.
const probe = `
local out = {}
local function p(f)
  local ok, v = pcall(f)
  out[#out + 1] = tostring(ok) .. ':' .. tostring(v)
end
p(function() return getmetatable(getmetatable(_G)).__index.leak end)
p(function() return type(getmetatable(getmetatable(_G)).__newindex) end)
p(function() return type(getmetatable(getmetatable(getmetatable(_G)))) end)
p(function() return getmetatable(getmetatable(_G)).leak2 end)
p(function() return getmetatable(getmetatable('')).leak end)
p(function() return tostring(cjson.null) end)
p(function() return type(getmetatable(cjson.null)) end)
p(function() return cjson.encode({{{1}}}) end)
p(function() return cjson.encode(0.123456) end)
p(function() return math.random(1000000) end)
p(function() return rawget(_G, 'leak') end)
p(function() return leak end)
p(function() return redis.leak end)
p(function() return string.leak end)
p(function() return redis.call('GET', KEYS[1]) end)
p(function() return redis.call('PTTL', KEYS[1]) end)
p(function() return redis.call('TIME')[1] end)
return table.concat(out, '\n')
`

func probeEval(t *testing.T, e *Engine) string {
	t.Helper()
	r := mustEval(t, e, probe, []string{"k"}, nil)
	if r.Kind != Bulk {
		t.Fatalf("probe: %s", r)
	}
	return r.Str
}

func probeFCall(t *testing.T, e *Engine) string {
	t.Helper()
	lib := "#!lua name=probe\nredis.register_function('probe', function(KEYS, ARGV)\n" + probe + "\nend)\n"
	if r, err := e.FunctionLoad([]byte(lib), false); err != nil || r.Kind != Bulk {
		t.Fatalf("load probe: %s %v", r, err)
	}
	r, err := e.FCall(context.Background(), "probe", []string{"k"}, nil)
	if err != nil || r.Kind != Bulk {
		t.Fatalf("probe: %s %v", r, err)
	}
	return r.Str
}

// TestResetLeavesNothing runs a script that tries to leave state behind,
// then the probe: without Reset the probe sees the leftovers (so it can
// tell), after Reset it answers exactly as on a new engine.
func TestResetLeavesNothing(t *testing.T) {
	for _, once := range []bool{false, true} {
		t.Run(map[bool]string{false: "restored", true: "once"}[once], func(t *testing.T) {
			testResetLeavesNothing(t, Options{Once: once})
		})
	}
}

// testResetLeavesNothing is TestResetLeavesNothing on engines made with
// opts: an engine made with Once builds its sandboxes again instead of
// restoring them, and answers the same.
func testResetLeavesNothing(t *testing.T, opts Options) {
	ctx := context.Background()
	fresh := probeEval(t, New(Options{}))

	e := New(opts)
	mustEval(t, e, pollute, []string{"k"}, nil)
	e.Advance(1000)
	polluted := probeEval(t, e)
	// (getmetatable(getmetatable(_G)) and of the string metatable are nil,
	// as on the servers: those first attempts leave nothing.)
	// (cjson.null has no metatable, as on the servers: setmetatable
	// refuses a userdata.)
	if want := "true:left behind"; !strings.Contains(polluted, want) {
		t.Errorf("without Reset the probe does not see %q:\n%s", want, polluted)
	}
	if polluted == fresh {
		t.Fatalf("the polluting run changed nothing the probe sees:\n%s", fresh)
	}

	e.Reset()
	if got := probeEval(t, e); got != fresh {
		t.Errorf("EVAL after Reset:\n%s\nwant (new engine):\n%s", got, fresh)
	}

	// Functions: the shared Functions state, polluted by a library.
	freshF := probeFCall(t, New(Options{}))
	lib := "#!lua name=dirty\nredis.register_function('dirty', function(KEYS, ARGV)\n" + pollute + "\nend)\n"
	if r, err := e.FunctionLoad([]byte(lib), false); err != nil || r.Kind != Bulk {
		t.Fatalf("load: %s %v", r, err)
	}
	if r, err := e.FCall(ctx, "dirty", []string{"k"}, nil); err != nil || !r.Equal(IntReply(1)) {
		t.Fatalf("dirty: %s %v", r, err)
	}
	if got := probeFCall(t, e); got == freshF {
		t.Fatalf("the polluting function changed nothing the probe sees:\n%s", got)
	}
	e.Reset()
	if r, err := e.FCall(ctx, "dirty", nil, nil); err != nil || r.Str != "ERR Function not found" {
		t.Errorf("a library survived Reset: %s %v", r, err)
	}
	if got := probeFCall(t, e); got != freshF {
		t.Errorf("FCALL after Reset:\n%s\nwant (new engine):\n%s", got, freshF)
	}
	if r, _ := e.Do(ctx, "SCRIPT", "EXISTS", SHA1([]byte(pollute))); !r.Equal(ArrayReply(IntReply(0))) {
		t.Errorf("the EVALSHA cache survived Reset: %s", r)
	}

	// SCRIPT FLUSH gives EVAL a new state too (math.random's state is
	// the engine's: the flush keeps it, so its line is left out).
	mustEval(t, e, pollute, []string{"k"}, nil)
	if r, err := e.Do(ctx, "SCRIPT", "FLUSH"); err != nil || !r.Equal(okReply) {
		t.Fatalf("SCRIPT FLUSH: %s %v", r, err)
	}
	if r, err := e.Do(ctx, "DEL", "k"); err != nil || !r.Equal(IntReply(1)) {
		t.Fatalf("DEL: %s %v", r, err)
	}
	noRandom := func(s string) string {
		lines := strings.Split(s, "\n")
		return strings.Join(append(lines[:9:9], lines[10:]...), "\n")
	}
	if got, want := noRandom(probeEval(t, e)), noRandom(probeEval(t, New(opts))); got != want {
		t.Errorf("EVAL after SCRIPT FLUSH:\n%s\nwant (new engine):\n%s", got, want)
	}
}

// TestResetAfterStoppedRun: a run stopped by the time limit drops its
// sandbox; the engine still runs scripts after Reset.
func TestResetAfterStoppedRun(t *testing.T) {
	e := New(Options{StepLimit: 1000})
	if _, err := evalT(t, e, "while true do end", nil, nil); runErrCode(t, err) != CodeStepLimit {
		t.Fatalf("want a step-limit stop, got %v", err)
	}
	e.Reset()
	if r := mustEval(t, e, "return 7", nil, nil); !r.Equal(IntReply(7)) {
		t.Errorf("after Reset: %s", r)
	}
}
