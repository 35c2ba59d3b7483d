package verify

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestTargets(t *testing.T) {
	want := []string{"redis-7.0", "redis-7.2", "redis-7.4", "redis-8.0", "valkey-7.2", "valkey-8.0", "valkey-8.1", "valkey-9.1"}
	if got := Targets(); !slices.Equal(got, want) {
		t.Errorf("Targets() = %v, want %v", got, want)
	}
	for _, n := range want {
		if err := CheckTarget(n); err != nil {
			t.Errorf("CheckTarget(%q) = %v", n, err)
		}
		if got := New(Options{Target: n}).Target(); got != n {
			t.Errorf("New(Target %q).Target() = %q", n, got)
		}
	}
	if got := New(Options{}).Target(); got != DefaultTarget {
		t.Errorf("default target %q, want %q", got, DefaultTarget)
	}
}

func TestUnknownTarget(t *testing.T) {
	err := CheckTarget("redis-6.2")
	if err == nil || !strings.Contains(err.Error(), `unknown target "redis-6.2"`) || !strings.Contains(err.Error(), "valkey-8.1") {
		t.Errorf("CheckTarget(redis-6.2) = %v", err)
	}
	e := New(Options{Target: "redis-6.2"})
	ctx := context.Background()
	runs := map[string]func() (Reply, error){
		"Eval":         func() (Reply, error) { return e.Eval(ctx, []byte("return 1"), nil, nil) },
		"EvalRO":       func() (Reply, error) { return e.EvalRO(ctx, []byte("return 1"), nil, nil) },
		"Do":           func() (Reply, error) { return e.Do(ctx, "GET", "k") },
		"FCall":        func() (Reply, error) { return e.FCall(ctx, "f", nil, nil) },
		"FunctionLoad": func() (Reply, error) { return e.FunctionLoad([]byte("#!lua name=l\n"), false) },
	}
	for name, run := range runs {
		_, err := run()
		var re *RunError
		if !errors.As(err, &re) || re.Code != CodeUnknownTarget {
			t.Errorf("%s on an unknown target: %v, want a %s RunError", name, err, CodeUnknownTarget)
		}
	}
}

// evalOn runs src as EVAL on a new engine imitating target.
func evalOn(t *testing.T, target, src string, keys ...string) (Reply, error) {
	t.Helper()
	return New(Options{Now: 1_000_000, Target: target}).Eval(context.Background(), []byte(src), keys, nil)
}

func TestTargetNumberArguments(t *testing.T) {
	tests := []struct {
		target, arg, want string
	}{
		{"redis-7.0", "0.1", "0.10000000000000001"},
		{"redis-7.2", "0.1", "0.1"},
		{"valkey-7.2", "1/3", "0.3333333333333333"},
		{"redis-7.0", "-0.0", "-0"},
		{"redis-7.4", "-0.0", "0"},
		{"redis-7.0", "2^63", "9.2233720368547758e+18"},
		{"redis-8.0", "2^63", "9223372036854776000"},
		{"redis-8.0", "2^62", "4611686018427387904"},
		{"redis-8.0", "2^62 + 2048", "4611686018427390000"}, // past 2^62: fpconv_dtoa
		{"valkey-8.1", "123e20", "12300000000000001000000"}, // grisu2, not shortest
		{"valkey-8.0", "1e21", "1e+21"},
		{"redis-7.2", "1e-7", "1e-7"},
		{"redis-7.2", "1e-6", "0.000001"},
		{"redis-7.2", "-2.5e-300", "-2.5e-300"},
		{"redis-7.2", "5e-324", "5e-324"},
		{"redis-7.2", "1/0", "inf"},
		{"redis-7.2", "-1/0", "-inf"},
		{"redis-7.0", "1/0", "inf"},
	}
	for _, tt := range tests {
		got, err := evalOn(t, tt.target, "redis.call('SET', KEYS[1], "+tt.arg+") return redis.call('GET', KEYS[1])", "k")
		if err != nil || !got.Equal(BulkReply(tt.want)) {
			t.Errorf("%s: SET k %s stores %s %v, want %q", tt.target, tt.arg, got, err, tt.want)
		}
	}
}

func TestTargetScriptFacts(t *testing.T) {
	tests := []struct {
		target, src string
		want        Reply
	}{
		{"redis-7.0", "return type(rawget(_G, 'os'))", BulkReply("nil")},
		{"redis-7.2", "return type(rawget(_G, 'os'))", BulkReply("nil")},
		{"valkey-7.2", "return type(rawget(_G, 'os'))", BulkReply("nil")},
		{"redis-7.4", "return {type(os.clock()), type(os.time)}", ArrayReply(BulkReply("number"), BulkReply("nil"))},
		{"valkey-8.0", "return type(os.clock())", BulkReply("number")},
		{"redis-7.0", "local ok, e = pcall(redis.log, 99, 'x') return e", BulkReply("ERR Invalid debug level.")},
		{"redis-7.2", "local ok, e = pcall(redis.log, 99, 'x') return e", BulkReply("ERR Invalid debug level.")},
		{"redis-7.4", "local ok, e = pcall(redis.log, 99, 'x') return e", BulkReply("ERR Invalid log level.")},
		{"valkey-8.0", "local ok, e = pcall(redis.log, 99, 'x') return e", BulkReply("ERR Invalid log level.")},
		{"redis-7.0", "local ok, e = pcall(redis.set_repl) return e", BulkReply("ERR redis.set_repl() requires two arguments.")},
		{"redis-7.2", "local ok, e = pcall(redis.set_repl) return e", BulkReply("ERR redis.set_repl() requires one argument.")},
		{"valkey-7.2", "local ok, e = pcall(redis.set_repl) return e", BulkReply("ERR redis.set_repl() requires one argument.")},
		{"valkey-8.1", "local ok, e = pcall(redis.set_repl) return e", BulkReply("ERR server.set_repl() requires one argument.")},
		// Commands of later releases are known there: not "unknown".
		{"redis-7.0", "return redis.pcall('HPERSIST', 'h', 'FIELDS', 1, 'a')", ErrorReply("ERR Unknown Redis command called from script")},
		{"valkey-8.1", "return redis.pcall('HPERSIST', 'h', 'FIELDS', 1, 'a')", ErrorReply("ERR Unknown command called from script")},
		{"redis-7.4", "return redis.pcall('HPERSIST', 'h')", ErrorReply("ERR Wrong number of args calling Redis command from script")},
		{"redis-7.2", "return redis.pcall('WAITAOF', 0, 0, 0)", ErrorReply("ERR This Redis command is not allowed from script")},
		{"valkey-7.2", "return redis.pcall('WAITAOF', 0, 0, 0)", ErrorReply("ERR This Redis command is not allowed from script")},
		{"redis-7.0", "return redis.pcall('WAITAOF', 0, 0, 0)", ErrorReply("ERR Unknown Redis command called from script")},
		{"redis-8.0", "return redis.acl_check_cmd('hgetdel', 'h', 'FIELDS', 1, 'a')", IntReply(1)},
	}
	for _, tt := range tests {
		got, err := evalOn(t, tt.target, tt.src, "h")
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("%s: %s = %s %v, want %s", tt.target, tt.src, got, err, tt.want)
		}
	}
}

func TestTargetNotImplementedCommands(t *testing.T) {
	for _, target := range []string{"redis-7.4", "redis-8.0"} {
		_, err := evalOn(t, target, "return redis.call('COMMAND', 'DOCS')", "h")
		var re *RunError
		if !errors.As(err, &re) || re.Code != CodeNotImplemented || !strings.Contains(re.Msg, "COMMAND DOCS") {
			t.Errorf("%s: COMMAND DOCS gives %v, want not implemented offline", target, err)
		}
	}
}

// A function whose last redis.call had a non-string argument crashes Redis
// 7.4+ at the next FUNCTION FLUSH; another call after it repairs the state.
// The FCALL itself replies as the server does, with a warning; the
// FUNCTION FLUSH is the server-crash.
func TestTargetFunctionArgvCrash(t *testing.T) {
	lib := func(body string) []byte {
		return []byte("#!lua name=l\nredis.register_function('f', function(KEYS, ARGV)\n" + body + "\nend)\n")
	}
	tests := []struct {
		target, body string
		crash        bool
	}{
		{"redis-8.0", "return redis.pcall('SET', KEYS[1], {})", true},
		{"redis-7.4", "return redis.pcall('SET', KEYS[1], true)", true},
		{"redis-8.0", "redis.pcall('SET', KEYS[1], {}) return redis.call('GET', KEYS[1])", false},
		{"redis-8.0", "return redis.pcall()", false},
		{"redis-7.2", "return redis.pcall('SET', KEYS[1], {})", false},
		{"valkey-8.1", "return redis.pcall('SET', KEYS[1], {})", false},
	}
	for _, tt := range tests {
		e := New(Options{Target: tt.target})
		if r, err := e.FunctionLoad(lib(tt.body), false); err != nil || r.Kind == Error {
			t.Fatalf("load %q: %s %v", tt.body, r, err)
		}
		r, err := e.FCall(context.Background(), "f", []string{"k"}, nil)
		if err != nil {
			t.Errorf("%s: %s: %s %v, want the server's reply", tt.target, tt.body, r, err)
		}
		if warned := len(e.Warnings()) == 1; warned != tt.crash {
			t.Errorf("%s: %s: warnings %q, want crash %v", tt.target, tt.body, e.Warnings(), tt.crash)
		}
		// EVAL never crashes this way, nor repairs the functions' client.
		if _, err := e.Eval(context.Background(), []byte(tt.body), []string{"k"}, nil); err != nil {
			t.Errorf("%s: EVAL %s: %v", tt.target, tt.body, err)
		}
		_, err = e.Do(context.Background(), "FUNCTION", "FLUSH")
		var re *RunError
		if crashed := errors.As(err, &re) && re.Code == CodeServerCrash; crashed != tt.crash {
			t.Errorf("%s: %s: FUNCTION FLUSH: %v, want crash %v", tt.target, tt.body, err, tt.crash)
		}
	}
}

func TestValkeyScriptingEngines(t *testing.T) {
	ctx := context.Background()
	evals := []struct {
		target, src string
		want        Reply
	}{
		{"valkey-8.1", "#!LUA\nreturn 1", IntReply(1)},
		{"valkey-8.0", "#!LUA\nreturn 1", ErrorReply("ERR Unexpected engine in script shebang: #!LUA")},
		{"valkey-8.1", "#!python\nreturn 1", ErrorReply("ERR Could not find scripting engine 'python'")},
		{"valkey-8.1", "#!\nreturn 1", ErrorReply("ERR Could not find scripting engine ''")},
		{"valkey-8.1", "#!pyth on\nreturn 1", ErrorReply("ERR Unknown lua shebang option: on")},
		{"valkey-8.1", "#!lua flags=bogus\nreturn 1", ErrorReply("ERR Unexpected flag in script shebang: bogus")},
	}
	for _, tt := range evals {
		got, err := New(Options{Target: tt.target}).Eval(ctx, []byte(tt.src), nil, nil)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("%s: EVAL %q = %s %v, want %s", tt.target, tt.src, got, err, tt.want)
		}
	}
	const bad = "redis.register_function('bad-name', function() return 1 end)\n"
	const dup = "redis.register_function('a', function() return 1 end)\nredis.register_function('a', function() return 2 end)\n"
	loads := []struct {
		target, body string
		want         Reply
	}{
		{"valkey-8.1", bad + dup, ErrorReply("ERR Function names can only contain letters, numbers, or underscores(_) and must be at least one character long")},
		{"valkey-8.1", dup + bad, ErrorReply("ERR Function already exists in the library")},
		{"valkey-8.1", bad + "local x = {} .. 1\n", ErrorReply("ERR Error registering functions: ERR user_function:3: attempt to concatenate a table value")},
		{"valkey-8.0", bad + dup, ErrorReply("ERR Error registering functions: ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long")},
		{"redis-7.0", dup + bad, ErrorReply("ERR Error registering functions: ERR Function already exists in the library")},
	}
	for _, tt := range loads {
		got, err := New(Options{Target: tt.target}).FunctionLoad([]byte("#!lua name=mylib\n"+tt.body), false)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("%s: FUNCTION LOAD %q = %s %v, want %s", tt.target, tt.body, got, err, tt.want)
		}
	}
}

// TestTargetDataFacts runs one client command per data fact on the targets
// before and after the release that changed it (the corpus proves each
// against the servers).
func TestTargetDataFacts(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("x", 65)
	tests := []struct {
		targets []string
		setup   [][]string
		cmd     []string
		want    Reply
	}{
		{[]string{"redis-7.0"}, [][]string{{"SADD", "s", "a", "b"}}, []string{"OBJECT", "ENCODING", "s"}, BulkReply("hashtable")},
		{[]string{"redis-7.2", "valkey-7.2", "redis-8.0", "valkey-8.1"}, [][]string{{"SADD", "s", "a", "b"}}, []string{"OBJECT", "ENCODING", "s"}, BulkReply("listpack")},
		{[]string{"redis-7.2", "valkey-8.1"}, [][]string{{"SADD", "s", "a"}, {"SADD", "s", long}}, []string{"OBJECT", "ENCODING", "s"}, BulkReply("hashtable")},
		{[]string{"redis-7.2", "redis-8.0"}, [][]string{{"SADD", "s", "1", "2"}, {"SADD", "s", "a"}}, []string{"OBJECT", "ENCODING", "s"}, BulkReply("listpack")},
		{[]string{"redis-7.0"}, [][]string{{"RPUSH", "l", "a"}}, []string{"OBJECT", "ENCODING", "l"}, BulkReply("quicklist")},
		{[]string{"redis-7.4", "valkey-8.0"}, [][]string{{"RPUSH", "l", "a"}}, []string{"OBJECT", "ENCODING", "l"}, BulkReply("listpack")},
		{[]string{"redis-8.0"}, [][]string{{"RPUSH", "l", strings.Repeat("y", 9000)}}, []string{"OBJECT", "ENCODING", "l"}, BulkReply("quicklist")},
		{[]string{"redis-7.0", "redis-7.2"}, nil, []string{"SCAN", " 1"}, ErrorReply("ERR invalid cursor")},
		{[]string{"redis-7.4", "valkey-8.0"}, nil, []string{"SCAN", ""}, ErrorReply("ERR invalid cursor")},
		{[]string{"redis-7.0", "redis-7.2"}, nil, []string{"BITCOUNT", "k", "x", "y", "z"}, IntReply(0)},
		{[]string{"redis-7.4"}, nil, []string{"BITCOUNT", "k", "0"}, ErrorReply("ERR syntax error")},
		{[]string{"valkey-8.0", "valkey-8.1"}, [][]string{{"SET", "k", "foobar"}}, []string{"BITCOUNT", "k", "0"}, IntReply(26)},
		{[]string{"redis-7.0"}, nil, []string{"BLMPOP", "inf", "1", "l", "LEFT"}, ErrorReply("ERR timeout is negative")},
		{[]string{"redis-7.2", "valkey-8.1"}, nil, []string{"BLMPOP", "inf", "1", "l", "LEFT"}, ErrorReply("ERR timeout is out of range")},
		{[]string{"redis-7.0", "redis-7.4"}, [][]string{{"ZADD", "z", "1", "a"}}, []string{"ZCOUNT", "z", "0x0", "0x2"}, IntReply(1)},
		{[]string{"redis-8.0"}, [][]string{{"ZADD", "z", "1", "a"}}, []string{"ZCOUNT", "z", "0x0", "0x2"}, ErrorReply("ERR min or max is not a float")},
		{[]string{"redis-7.2", "redis-8.0"}, [][]string{{"ZADD", "z", "1.5", "a"}}, []string{"ZRANK", "z", "a", "WITHSCORE"}, ArrayReply(IntReply(0), BulkReply("1.5"))},
		{[]string{"redis-7.0", "valkey-8.0"}, [][]string{{"SET", "k", "5"}}, []string{"OBJECT", "REFCOUNT", "k"}, IntReply(2147483647)},
		{[]string{"valkey-8.1"}, [][]string{{"SET", "k", "5"}}, []string{"OBJECT", "REFCOUNT", "k"}, IntReply(1)},
		{[]string{"valkey-8.0"}, [][]string{{"SET", "{t}e44", strings.Repeat("1", 44) + "x"}}, []string{"OBJECT", "ENCODING", "{t}e44"}, BulkReply("raw")},
		{[]string{"valkey-8.1"}, [][]string{{"SET", "{t}e44", strings.Repeat("x", 44)}}, []string{"OBJECT", "ENCODING", "{t}e44"}, BulkReply("raw")},
		{[]string{"redis-8.0"}, [][]string{{"SET", "{t}e44", strings.Repeat("x", 44)}}, []string{"OBJECT", "ENCODING", "{t}e44"}, BulkReply("embstr")},
	}
	for _, tt := range tests {
		for _, target := range tt.targets {
			e := New(Options{Target: target})
			for _, c := range tt.setup {
				if _, err := e.Do(ctx, c...); err != nil {
					t.Fatalf("%s: %q: %v", target, c, err)
				}
			}
			got, err := e.Do(ctx, tt.cmd...)
			if err != nil || !got.Equal(tt.want) {
				t.Errorf("%s: %q = %s %v, want %s", target, tt.cmd, got, err, tt.want)
			}
		}
	}
}
