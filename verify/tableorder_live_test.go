package verify

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// randomTableScript writes a script that builds a table the ways scripts
// do (a constructor with list items and record fields, stores, t[k] = nil,
// keys set to nil through a variable, a call or a multiple assignment,
// table.insert, re-sets of removed keys after the table grew, cjson.decode) and returns #t, the
// keys in pairs order and its cjson encoding.
func randomTableScript(r *rand.Rand) string {
	var b strings.Builder
	key := func() string {
		switch r.IntN(6) {
		case 0:
			return fmt.Sprintf("[%d]", 1+r.IntN(12))
		case 1:
			return fmt.Sprintf("[%d.5]", r.IntN(5))
		case 2:
			return fmt.Sprintf("[%q]", strings.Repeat("long-prefix-", 3)+fmt.Sprint(r.IntN(30)))
		default:
			return fmt.Sprintf(".f%d", r.IntN(30))
		}
	}
	b.WriteString("local t = ")
	switch r.IntN(3) {
	case 0:
		b.WriteString("{}\n")
	case 1:
		b.WriteString("{")
		for i := 0; i < r.IntN(8); i++ {
			fmt.Fprintf(&b, "f%d = %d, ", r.IntN(30), i)
		}
		for i := 0; i < r.IntN(5); i++ {
			fmt.Fprintf(&b, "'l%d', ", i)
		}
		b.WriteString("}\n")
	default:
		b.WriteString(`cjson.decode('{"id":"j","queue":"q","attempts":0,"payload":"p","tries":3}')` + "\n")
	}
	b.WriteString("local none\nlocal function nothing() end\n")
	if r.IntN(2) == 0 {
		fmt.Fprintf(&b, "for i = 1, %d do t['f' .. i] = i end\n", r.IntN(30))
	}
	for i, n := 0, r.IntN(60); i < n; i++ {
		k := key()
		lhs := "t" + k
		switch r.IntN(14) {
		case 0, 1:
			fmt.Fprintf(&b, "%s = nil\n", lhs)
		case 2:
			b.WriteString("table.insert(t, 'x')\n")
		case 3:
			// set to nil through a variable, a call, a field
			fmt.Fprintf(&b, "%s = %s\n", lhs, [...]string{"none", "nothing()", "t.absent", "none or none"}[r.IntN(4)])
		case 4:
			// a multiple assignment, one target nil
			fmt.Fprintf(&b, "%s, t%s = none, %d\n", lhs, key(), i)
		case 5:
			// a key removed, the table grown past a rehash, the key set again
			fmt.Fprintf(&b, "%s = none\nfor j = 1, %d do t['g%d_' .. j] = j end\n%s = %d\n", lhs, 1+r.IntN(20), i, lhs, i)
		default:
			fmt.Fprintf(&b, "%s = %d\n", lhs, i)
		}
	}
	b.WriteString(`local out = {#t}
for k in pairs(t) do out[#out + 1] = type(k) .. ':' .. tostring(k) end
out[#out + 1] = cjson.encode(t)
return out`)
	return b.String()
}

// TestTableOrderLive runs random table histories through the engine and a
// real server and compares #t, the pairs order and cjson.encode.
func TestTableOrderLive(t *testing.T) {
	ctx, srv, e := liveEngine(t)
	r := rand.New(rand.NewPCG(21, 5))
	for i := 0; i < 300; i++ {
		evalBoth(t, ctx, srv, e, i, randomTableScript(r))
	}
}

// liveEngine starts a standalone server of the suite's kind
// (redistest.DefaultKind) and an engine imitating its target, for tests
// that run the same scripts on both (evalBoth).
func liveEngine(t *testing.T) (context.Context, *redistest.Server, *Engine) {
	t.Helper()
	srv := redistest.Standalone(t)
	return context.Background(), srv, New(Options{Target: redistest.DefaultKind(t).Target()})
}

// evalBoth runs src as EVAL with args on the live server and in e (reset
// first) and requires the same reply, and no guessed key order: every
// history the random scripts make is recorded whole.
func evalBoth(t *testing.T, ctx context.Context, srv *redistest.Server, e *Engine, i int, src string, args ...string) {
	t.Helper()
	evalBothKeys(t, ctx, srv, e, i, src, nil, args...)
}

// evalBothKeys is evalBoth with KEYS, both keyspaces empty first.
func evalBothKeys(t *testing.T, ctx context.Context, srv *redistest.Server, e *Engine, i int, src string, keys []string, args ...string) {
	t.Helper()
	if len(keys) > 0 {
		if err := srv.Do(ctx, "FLUSHALL").Error(); err != nil {
			t.Fatal(err)
		}
	}
	cmd := append([]string{"EVAL", src, strconv.Itoa(len(keys))}, keys...)
	msg, err := srv.Do(ctx, append(cmd, args...)...).ToMessage()
	var want Reply
	if err != nil {
		want = ErrorReply(err.Error()) // an error reply: cjson's refusals
	} else if want, err = FromMessage(msg); err != nil {
		t.Fatal(err)
	}
	e.Reset()
	got, rerr := e.Eval(ctx, []byte(src), keys, args)
	if rerr != nil {
		t.Fatalf("case %d: %v\nargs %q\n%s", i, rerr, args, src)
	}
	off := got.String()
	if got.Kind == Error {
		off = strings.Replace(off, "ERR ", "", 1) // rueidis drops an error reply's "ERR " code
	}
	if live := want.String(); live != off {
		t.Errorf("case %d differs\nlive:\n%s\noffline:\n%s\nwarnings: %q\nargs %q\n%s", i, live, off, e.Warnings(), args, src)
	}
	for _, w := range e.Warnings() {
		if strings.Contains(w, "key order") {
			t.Errorf("case %d: warned %q\nargs %q\n%s", i, w, args, src)
		}
	}
}
