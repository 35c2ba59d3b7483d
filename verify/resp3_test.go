package verify

import (
	"context"
	"strings"
	"testing"
)

// show is a Lua helper that prints a value with its table keys sorted, so
// that a test does not depend on the order of next.
const showLua = `local function show(v)
  if type(v) ~= 'table' then return type(v) .. ':' .. tostring(v) end
  local ks = {}
  for k in pairs(v) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) return type(a) .. tostring(a) < type(b) .. tostring(b) end)
  local out = {}
  for _, k in ipairs(ks) do out[#out + 1] = tostring(k) .. '=' .. show(v[k]) end
  return '{' .. table.concat(out, ',') .. '}'
end
`

func TestSetresp3Replies(t *testing.T) {
	for _, tc := range []struct {
		name, target string
		setup        [][]string
		src          string
		want         string
	}{
		{"null", "", nil, "return show(redis.call('get', KEYS[1]))", "nil:nil"},
		{"null resp2", "", nil, "redis.setresp(2) return show(redis.call('get', KEYS[1]))", "boolean:false"},
		{"map", "", [][]string{{"HSET", "k", "a", "1", "b", "2"}}, "return show(redis.call('hgetall', KEYS[1]))", "{map={a=string:1,b=string:2}}"},
		{"set", "", [][]string{{"SADD", "k", "x", "y"}}, "return show(redis.call('smembers', KEYS[1]))", "{set={x=boolean:true,y=boolean:true}}"},
		{"spop count", "", [][]string{{"SADD", "k", "x"}}, "return show(redis.call('spop', KEYS[1], 3))", "{set={x=boolean:true}}"},
		{"double", "", [][]string{{"ZADD", "k", "0.1", "m"}}, "return show(redis.call('zscore', KEYS[1], 'm'))", "{double=number:0.1}"},
		{"withscores pairs", "", [][]string{{"ZADD", "k", "1", "a", "2", "b"}}, "return show(redis.call('zrange', KEYS[1], 0, -1, 'WITHSCORES'))",
			"{1={1=string:a,2={double=number:1}},2={1=string:b,2={double=number:2}}}"},
		{"zpopmin flat", "", [][]string{{"ZADD", "k", "1", "a"}}, "return show(redis.call('zpopmin', KEYS[1]))", "{1=string:a,2={double=number:1}}"},
		{"zmpop", "", [][]string{{"ZADD", "k", "1", "a"}}, "return show(redis.call('zmpop', 1, KEYS[1], 'max'))", "{1=string:k,2={1={1=string:a,2={double=number:1}}}}"},
		{"hrandfield pairs", "", [][]string{{"HSET", "k", "f", "v"}}, "return show(redis.call('hrandfield', KEYS[1], 1, 'withvalues'))", "{1={1=string:f,2=string:v}}"},
		{"xread map", "", [][]string{{"XADD", "k", "1-1", "f", "v"}}, "return show(redis.call('xread', 'streams', KEYS[1], 0))", "{map={k={1={1=string:1-1,2={1=string:f,2=string:v}}}}}"},
		{"null leaves a hole", "", [][]string{{"HSET", "k", "a", "1", "b", "2"}}, "return show(redis.call('hmget', KEYS[1], 'a', 'zz', 'b'))", "{1=string:1,3=string:2}"},
		{"error fields", "", nil, "return show(redis.pcall('nosuch'))", "{err=string:ERR Unknown Redis command called from script,ignore_error_stats_update=boolean:true}"},
		{"status", "", nil, "return show(redis.call('set', KEYS[1], 'v'))", "{ok=string:OK}"},
		{"zrank withscore", "redis-8.0", [][]string{{"ZADD", "k", "1.5", "a"}}, "return show(redis.call('zrank', KEYS[1], 'a', 'withscore'))", "{1=number:0,2={double=number:1.5}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Options{Target: tc.target})
			for _, c := range tc.setup {
				if _, err := e.Do(context.Background(), c...); err != nil {
					t.Fatal(err)
				}
			}
			src := showLua + "redis.setresp(3)\n" + tc.src
			if r := mustEval(t, e, src, []string{"k"}, nil); !r.Equal(BulkReply(tc.want)) {
				t.Errorf("got %s, want %q", r, tc.want)
			}
		})
	}
}

func TestResp3TablesToRESP2(t *testing.T) {
	for _, tc := range []struct {
		target, src string
		want        Reply
	}{
		{"", "return {double=3.14}", BulkReply("3.1400000000000001")},
		{"redis-8.0", "return {double=3.14}", BulkReply("3.14")},
		{"", "return {double=1/0}", BulkReply("inf")},
		{"", "return {big_number='1\\r\\n2'}", BulkReply("1  2")},
		{"", "return {verbatim_string={format='txt', string='v'}}", BulkReply("v")},
		{"", "return {verbatim_string={format='txt'}}", ArrayReply()},
		{"", "return {map={a='1'}}", ArrayReply(BulkReply("a"), BulkReply("1"))},
		{"", "return {set={'x'}}", ArrayReply(IntReply(1))},
		{"", "return {1, double=2}", BulkReply("2")},
		{"", "return {err=1, ok='S', double=2}", StatusReply("S")},
		{"", "return {map={true, false}}", ArrayReply(IntReply(1), IntReply(1), IntReply(2), NilReply())},
		{"", "redis.setresp(3) return {map={true, false}}", ArrayReply(IntReply(1), IntReply(1), IntReply(2), IntReply(0))},
		{"", "redis.setresp(3) return false", IntReply(0)},
		{"", "redis.setresp(3) redis.setresp(2) return false", NilReply()},
		{"", "redis.setresp('3') return false", IntReply(0)},
		{"", "redis.setresp(3.9) return false", IntReply(0)},
	} {
		e := New(Options{Target: tc.target})
		if r := mustEval(t, e, tc.src, nil, nil); !r.Equal(tc.want) {
			t.Errorf("%s %s: got %s, want %s", tc.target, tc.src, r, tc.want)
		}
	}
}

// A run starts in RESP2 whatever the previous run of the engine chose, in
// EVAL and in FCALL.
func TestSetrespResetsPerRun(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	mustEval(t, e, "redis.setresp(3) return 1", nil, nil)
	if r := mustEval(t, e, "return false", nil, nil); !r.Equal(NilReply()) {
		t.Errorf("EVAL after setresp(3): got %s, want nil", r)
	}
	lib := "#!lua name=l\nredis.register_function('f', function() redis.setresp(3) return false end)\nredis.register_function('g', function() return false end)"
	if r, err := e.FunctionLoad([]byte(lib), false); err != nil || r.IsError() {
		t.Fatal(r, err)
	}
	for name, want := range map[string]Reply{"f": IntReply(0), "g": NilReply()} {
		if r, err := e.FCall(ctx, name, nil, nil); err != nil || !r.Equal(want) {
			t.Errorf("FCALL %s: got %s %v, want %s", name, r, err, want)
		}
	}
	if r, err := e.FCall(ctx, "g", nil, nil); err != nil || !r.Equal(NilReply()) {
		t.Errorf("FCALL g after f: got %s %v, want nil", r, err)
	}
}

func TestSetrespArguments(t *testing.T) {
	for src, want := range map[string]string{
		"redis.setresp(4)":    "ERR RESP version must be 2 or 3.",
		"redis.setresp('x')":  "ERR RESP version must be 2 or 3.",
		"redis.setresp()":     "ERR redis.setresp() requires one argument.",
		"redis.setresp(3, 3)": "ERR redis.setresp() requires one argument.",
	} {
		r := mustEval(t, New(Options{}), src, nil, nil)
		if !r.IsError() || !strings.HasPrefix(r.Str, want+" script: ") {
			t.Errorf("%s: got %s, want %q", src, r, want)
		}
	}
}

// A returned map or set is flattened in Lua 5.1's order, the target's:
// read from Redis 7.0.15 and Valkey 8.1.1, without a warning.
func TestResp3TableOrder(t *testing.T) {
	for _, c := range []struct{ target, src, want string }{
		{"redis-7.0", "return {map={x=1, y=2}}", `["y", 2, "x", 1]`},
		{"valkey-8.1", "return {map={x=1, y=2}}", `["x", 1, "y", 2]`},
	} {
		e := New(Options{Target: c.target})
		r := mustEval(t, e, c.src, nil, nil)
		if got := r.String(); got != c.want {
			t.Errorf("%s: %s: got %s, want %s", c.target, c.src, got, c.want)
		}
		if w := e.Warnings(); len(w) != 0 {
			t.Errorf("%s: %s: warned %q", c.target, c.src, w)
		}
	}
}
