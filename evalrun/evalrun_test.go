package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/verify"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

// TestSplitArgs: each case is what redis-cli 7.0.15 --eval passed as KEYS
// and ARGV for the same words (checked with `return {KEYS, ARGV}`).
func TestSplitArgs(t *testing.T) {
	tests := []struct {
		words      []string
		keys, args []string
	}{
		{nil, []string{}, []string{}},
		{[]string{"k1", "k2"}, []string{"k1", "k2"}, []string{}},
		{[]string{",", "a", "b"}, []string{}, []string{"a", "b"}},
		{[]string{"k", ",", "a", ",", "b"}, []string{"k"}, []string{"a", ",", "b"}},
		{[]string{",", ",", ","}, []string{}, []string{",", ","}},
		{[]string{"a,b", "c"}, []string{"a,b", "c"}, []string{}},
		{[]string{"k", ",a"}, []string{"k", ",a"}, []string{}},
		{[]string{","}, []string{}, []string{}},
		{[]string{"", ",", ""}, []string{""}, []string{""}},
		{[]string{"k", ","}, []string{"k"}, []string{}},
	}
	for _, tt := range tests {
		keys, args := SplitArgs(tt.words)
		if !slices.Equal(keys, tt.keys) || !slices.Equal(args, tt.args) || keys == nil || args == nil {
			t.Errorf("SplitArgs(%q) = %q, %q; want %q, %q", tt.words, keys, args, tt.keys, tt.args)
		}
	}
}

// FuzzSplitArgs: no word is lost or invented, and only the first lone comma
// is consumed.
func FuzzSplitArgs(f *testing.F) {
	f.Add("k1 k2")
	f.Add(", a b")
	f.Add("k , a , b")
	f.Add("a,b ,a")
	f.Add(",")
	f.Fuzz(func(t *testing.T, s string) {
		words := strings.Split(s, " ")
		keys, args := SplitArgs(words)
		sep := 0
		if slices.Contains(words, ",") {
			sep = 1
		}
		if len(keys)+len(args)+sep != len(words) {
			t.Fatalf("SplitArgs(%q) = %q, %q: lost or invented words", words, keys, args)
		}
		if slices.Contains(keys, ",") {
			t.Fatalf("SplitArgs(%q): a lone comma among the keys %q", words, keys)
		}
		got := append(append([]string{}, keys...), args...)
		if sep == 1 {
			got = slices.Insert(got, len(keys), ",")
		}
		if !slices.Equal(got, words) {
			t.Fatalf("SplitArgs(%q) = %q, %q: order changed", words, keys, args)
		}
	})
}

func TestLibrary(t *testing.T) {
	lib, err := Library([]byte("#!lua flags=no-writes\nreturn 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := "#!lua name=scriptctl_eval\nredis.register_function{function_name='scriptctl_eval', callback=function(KEYS, ARGV)\n\nreturn 1\nend, flags={'no-writes'}}\n"
	if string(lib) != want {
		t.Errorf("Library =\n%s\nwant\n%s", lib, want)
	}
	if _, err := Library([]byte("#!python\nreturn 1")); err == nil || !strings.Contains(err.Error(), "function mode") {
		t.Errorf("Library(python shebang) err = %v, want a function mode error", err)
	}
}

var lease = []scenario.Key{{Name: "{p}lease", Type: "string", Value: "tok-old", PTTL: 100}}

const publish = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
redis.call('DEL', KEYS[1])
return 1`

func TestOffline(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []Mode{ModeEval, ModeFunction} {
		t.Run(string(mode), func(t *testing.T) {
			req := Request{Source: []byte(publish), Keys: []string{"{p}lease", "{p}value"}, Args: []string{"tok-old", "v1", "60000"}, Mode: mode, State: lease}
			side, err := Offline(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if !side.Reply.Equal(verify.IntReply(1)) || side.RunErr != nil {
				t.Fatalf("reply = %v, %v; want 1", side.Reply, side.RunErr)
			}
			wantStep := map[Mode]string{ModeEval: StepEval, ModeFunction: StepFCall}[mode]
			if side.Step != wantStep {
				t.Errorf("step = %q, want %q", side.Step, wantStep)
			}
			// The lease is gone, the value stored with its TTL.
			want := []scenario.Key{{Name: "{p}value", Type: "string", Value: "v1", PTTL: 60000}}
			if !sameKeys(side.Keys, want) || !sameKeys(side.Keyspace, want) {
				t.Errorf("keys = %+v, keyspace %+v; want %+v", side.Keys, side.Keyspace, want)
			}
		})
	}
}

func TestOfflineStepsAndRunErrors(t *testing.T) {
	ctx := context.Background()
	// A library that does not load: the FUNCTION LOAD error is the reply.
	side, err := Offline(ctx, Request{Source: []byte("return +"), Mode: ModeFunction})
	if err != nil {
		t.Fatal(err)
	}
	if side.Step != StepFunctionLoad || side.Reply.Kind != verify.Error || !strings.Contains(side.Reply.Str, "Error compiling function") {
		t.Errorf("bad library: step %q reply %v", side.Step, side.Reply)
	}
	// An undeclared key under StrictKeys is no reply: a RunError, and
	// nothing was written.
	side, err = Offline(ctx, Request{Source: []byte("redis.call('SET', 'x', 1) return 1"), StrictKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	if side.RunErr == nil || side.RunErr.Code != verify.CodeUndeclaredKey || side.HasReply() {
		t.Errorf("undeclared key: RunErr = %v", side.RunErr)
	}
	if len(side.Keyspace) != 0 {
		t.Errorf("undeclared key: keyspace = %+v, want empty", side.Keyspace)
	}
	// Without it the run goes on: a finding, a reply and the key written;
	// in function mode the finding's line is the library's.
	for _, mode := range []Mode{ModeEval, ModeFunction} {
		side, err = Offline(ctx, Request{Source: []byte("local a = 1\nredis.call('SET', 'x', 1) return 1"), Mode: mode, Topology: verify.TopologyStandalone})
		if err != nil {
			t.Fatal(err)
		}
		want := verify.Finding{Code: verify.CodeUndeclaredKey, Key: "x", Command: "SET", Chunk: "user_script", Line: 2}
		if mode == ModeFunction {
			want.Chunk, want.Line = "user_function", 2+libraryHeader
		}
		if side.RunErr != nil || !side.Reply.Equal(verify.IntReply(1)) || len(side.Findings) != 1 || side.Findings[0] != want || len(side.Keyspace) != 1 {
			t.Errorf("%s: undeclared key: %+v %+v %+v", mode, side.RunErr, side.Findings, side.Keyspace)
		}
		res := &Result{File: "f.lua", Mode: mode, Offline: side}
		ds := res.Diagnostics()
		if len(ds) != 1 || ds[0].Line != 2 || ds[0].Code != verify.CodeUndeclaredKey || ds[0].Severity != "warning" {
			t.Errorf("%s: diagnostics %+v", mode, ds)
		}
	}
	// The clock: --now.
	side, err = Offline(ctx, Request{Source: []byte("return redis.call('TIME')"), Now: 1_700_000_001_234})
	if err != nil {
		t.Fatal(err)
	}
	if got := side.Reply.String(); got != `["1700000001", "234000"]` {
		t.Errorf("TIME = %s", got)
	}
}

func sameKeys(a, b []scenario.Key) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].PTTL != b[i].PTTL || !scenario.SameContents(a[i], b[i]) {
			return false
		}
	}
	return true
}

func TestReplyJSON(t *testing.T) {
	r := verify.ArrayReply(verify.IntReply(0), verify.BulkReply("a\nb"), verify.BulkReply("\xff\x00"),
		verify.StatusReply("OK"), verify.ErrorReply("ERR x"), verify.NilReply(), verify.ArrayReply(), verify.BulkReply(""))
	b, err := json.Marshal(ReplyJSON(r))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"array","elements":[{"type":"integer","value":0},{"type":"bulk","value":"a\nb"},{"type":"bulk","base64":"/wA="},` +
		`{"type":"status","value":"OK"},{"type":"error","value":"ERR x"},{"type":"nil"},{"type":"array","elements":[]},{"type":"bulk","value":""}]}`
	if string(b) != want {
		t.Errorf("ReplyJSON =\n%s\nwant\n%s", b, want)
	}
}

func TestCompareAndText(t *testing.T) {
	off := &Side{Name: "offline", Step: StepEval, Reply: verify.IntReply(1),
		Keys: []scenario.Key{{Name: "v", Type: "string", Value: "new", PTTL: 1000}, {Name: "l", Type: "string", Value: "t", PTTL: -1}}}
	lv := &Side{Name: "live", Addr: "127.0.0.1:7", Step: StepEval, Reply: verify.IntReply(1),
		Keys: []scenario.Key{{Name: "v", Type: "string", Value: "new", PTTL: 990}, {Name: "l", Type: "string", Value: "t", PTTL: -1}}}
	r := &Result{Offline: off, Live: lv}
	r.Compare(25)
	if r.Differ() {
		t.Fatalf("TTL within drift: differences %+v", r.Differences)
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil || buf.String() != "(integer) 1\n" {
		t.Errorf("same: text %q, %v", buf.String(), err)
	}
	lv.Keys[0].PTTL = 900 // beyond the drift
	lv.Keys = lv.Keys[:1] // l is gone live
	lv.Reply = verify.IntReply(0)
	r.Compare(25)
	buf.Reset()
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	want := `offline:
(integer) 1
live 127.0.0.1:7:
(integer) 0
differences:
  reply (above)
  key "l": offline "t" (no ttl), live absent
  key "v": offline "new" (ttl 1000ms), live "new" (ttl 900ms)
`
	if buf.String() != want {
		t.Errorf("differ: text\n%s\nwant\n%s", buf.String(), want)
	}
	// A run the engine cannot judge differs from any reply.
	off.RunErr = &verify.RunError{Code: verify.CodeNotImplemented, Msg: "not implemented offline: ZADD"}
	lv.Keys = off.Keys
	lv.Reply = off.Reply
	r.Compare(25)
	if len(r.Differences) != 1 || r.Differences[0].What != "reply" || r.Differences[0].Offline != "no reply offline: not implemented offline: ZADD" {
		t.Errorf("run error: differences %+v", r.Differences)
	}
}

func TestSaveKeys(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.yaml")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	keys := []scenario.Key{
		{Name: "b", Type: "hash", Hash: []verify.Field{{Name: "f", Value: "1"}}, PTTL: -1},
		{Name: "a", Type: "string", Value: "007", PTTL: 250},
	}
	if err := SaveKeys(path, keys); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "a:\n  value: \"007\"\n  ttl_ms: 250\nb:\n  hash:\n    f: \"1\"\n"
	if string(data) != want {
		t.Errorf("saved\n%s\nwant\n%s", data, want)
	}
	// It reads back as the same keys.
	back, err := scenario.ParseKeys(path, data)
	if err != nil || len(back) != 2 || back[0].Value != "007" || back[0].PTTL != 250 || back[1].Hash[0] != (verify.Field{Name: "f", Value: "1"}) {
		t.Errorf("ParseKeys(saved) = %+v, %v", back, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	// An empty keyspace is "{}", and a missing folder fails without a file.
	if err := SaveKeys(path, nil); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "{}\n" {
		t.Errorf("empty keyspace saved as %q", data)
	}
	if err := SaveKeys(filepath.Join(dir, "no", "state.yaml"), keys); err == nil {
		t.Error("SaveKeys into a missing folder: no error")
	}
}

// TestLive runs both sides on a real server: state written, declared keys
// cleared, the function library deleted afterwards, replies and keys equal.
func TestLive(t *testing.T) {
	srv := redistest.Standalone(t)
	conn := RueidisConn(srv.Client(), 0)
	ctx := context.Background()
	// A leftover value the offline side does not have: ClearKeys removes it.
	srv.MustDo("SET", "{p}value", "stale")
	for _, mode := range []Mode{ModeEval, ModeFunction} {
		t.Run(string(mode), func(t *testing.T) {
			res, err := Run(ctx, Options{
				Request: Request{Source: []byte(publish), Keys: []string{"{p}lease", "{p}value"}, Args: []string{"tok-old", "v1", "60000"},
					Mode: mode, State: lease, ClearKeys: true},
				Offline: true, Live: conn, Addr: srv.Addr,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Differ() {
				t.Fatalf("differences: %+v", res.Differences)
			}
			if !res.Live.Reply.Equal(verify.IntReply(1)) {
				t.Errorf("live reply %v", res.Live.Reply)
			}
			if v, _ := srv.Do(ctx, "GET", "{p}value").ToString(); v != "v1" {
				t.Errorf("live value = %q, want v1", v)
			}
			if n, _ := srv.Do(ctx, "EXISTS", "{p}lease").AsInt64(); n != 0 {
				t.Errorf("live lease still exists")
			}
			libs, _ := srv.Do(ctx, "FUNCTION", "LIST").ToArray()
			if len(libs) != 0 {
				t.Errorf("FUNCTION LIST after the run: %d libraries, want 0", len(libs))
			}
		})
	}
	// A live difference: the server's reply differs from the offline one
	// when the live keyspace is not cleared.
	srv.MustDo("SET", "{p}lease", "tok-other")
	res, err := Run(ctx, Options{
		Request: Request{Source: []byte(publish), Keys: []string{"{p}lease", "{p}value"}, Args: []string{"tok-other", "v2", "60000"}},
		Offline: true, Live: conn, Addr: srv.Addr,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Differ() || res.Differences[0].What != "reply" || res.Differences[0].Offline != "(integer) 0" || res.Differences[0].Live != "(integer) 1" {
		t.Errorf("differences = %+v", res.Differences)
	}
}

func TestLiveStateError(t *testing.T) {
	srv := redistest.Standalone(t)
	conn := RueidisConn(srv.Client(), 0)
	// A server that goes away fails the run before the script, naming
	// what was being done and where.
	srv.Stop()
	_, err := Live(context.Background(), conn, srv.Addr, Request{Source: []byte("return 1"), State: lease})
	var le *LiveError
	if err == nil || !strings.Contains(err.Error(), srv.Addr) || !errors.As(err, &le) || !strings.Contains(le.Op, "--state") {
		t.Errorf("Live on a stopped server: %v", err)
	}
}

// FuzzEval: any script and words run offline in both modes without a panic,
// and the report writes in text and JSON, the JSON valid.
func FuzzEval(f *testing.F) {
	f.Add("return {1, 'a', {ok='OK'}}", "k , a")
	f.Add("#!lua flags=no-writes\nreturn redis.call('SET', KEYS[1], 'v')", "k")
	f.Add("#!python\nreturn 1", "")
	f.Add("return redis.call('GET', 'x')", ",")
	f.Add("error({})", "")
	f.Fuzz(func(t *testing.T, src, words string) {
		keys, args := SplitArgs(strings.Fields(words))
		for _, mode := range []Mode{ModeEval, ModeFunction} {
			res, err := Run(context.Background(), Options{
				Request: Request{Source: []byte(src), Keys: keys, Args: args, Mode: mode, State: lease, Timeout: 50 * time.Millisecond},
				Offline: true,
			})
			if err != nil {
				var ie *InputError
				if !errors.As(err, &ie) {
					t.Fatalf("Run: %v", err)
				}
				continue
			}
			var text, js bytes.Buffer
			if err := res.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if err := res.WriteJSON(&js); err != nil || !json.Valid(js.Bytes()) {
				t.Fatalf("WriteJSON: %v\n%s", err, js.String())
			}
		}
	})
}

// TestDiagnostics: warnings first, then the run error at the file's line
// (from the engine, else from a position in its text; function mode's
// library lines shifted back to the file's), or the live difference.
func TestDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode Mode
		re   *verify.RunError
		want string
	}{
		{"engine line", ModeEval, &verify.RunError{Code: verify.CodeUndeclaredKey, Msg: "m", Chunk: "user_script", Line: 4}, "s.lua:4: error undeclared-key: no reply offline: m"},
		{"function line", ModeFunction, &verify.RunError{Code: verify.CodeUndeclaredKey, Msg: "m", Chunk: "user_function", Line: 6}, "s.lua:4: error undeclared-key: no reply offline: m"},
		{"line in text", ModeEval, &verify.RunError{Code: verify.CodeMemory, Msg: "user_script:7: too big"}, "s.lua:7: error memory: no reply offline: user_script:7: too big"},
		{"other mode's chunk", ModeEval, &verify.RunError{Code: verify.CodeMemory, Msg: "m", Chunk: "user_function", Line: 7}, "s.lua: error memory: no reply offline: m"},
		{"no line", ModeEval, &verify.RunError{Code: verify.CodeTimeout, Msg: "slow"}, "s.lua: error timeout: no reply offline: slow"},
	} {
		r := &Result{File: "s.lua", Mode: tc.mode, Offline: &Side{Warnings: []string{"approx"}, RunErr: tc.re}}
		ds := r.Diagnostics()
		if len(ds) != 2 || ds[0].String() != "s.lua: warning offline-approximation: approx" || ds[1].String() != tc.want {
			t.Errorf("%s: %q, want the warning then %q", tc.name, ds, tc.want)
		}
	}
	r := &Result{File: "s.lua", Offline: &Side{Reply: verify.Reply{Kind: verify.Int, Int: 1}}, Live: &Side{Addr: "h:1", Reply: verify.Reply{Kind: verify.Int, Int: 2}}}
	r.Compare(0)
	if ds := r.Diagnostics(); len(ds) != 1 || ds[0].String() != "s.lua: error live-differs: offline and h:1 differ" {
		t.Errorf("differ: %q", ds)
	}
	r.Live.Reply = r.Offline.Reply
	r.Compare(0)
	if ds := r.Diagnostics(); len(ds) != 0 {
		t.Errorf("same: %q", ds)
	}
}
