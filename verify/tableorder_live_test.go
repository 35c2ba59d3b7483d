package verify

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// randomTableScript writes a script that builds a table the ways scripts
// do (a constructor with list items and record fields, stores, t[k] = nil,
// table.insert, re-sets of removed keys, cjson.decode) and returns #t, the
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
	for i := 0; i < r.IntN(40); i++ {
		k := key()
		lhs := "t" + k
		switch r.IntN(8) {
		case 0, 1:
			fmt.Fprintf(&b, "%s = nil\n", lhs)
		case 2:
			b.WriteString("table.insert(t, 'x')\n")
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
	srv := redistest.Standalone(t)
	target := redistest.DefaultKind(t).Target()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(21, 5))
	e := New(Options{Target: target})
	for i := 0; i < 300; i++ {
		src := randomTableScript(r)
		msg, err := srv.Do(ctx, "EVAL", src, "0").ToMessage()
		var want Reply
		if err != nil {
			want = ErrorReply(err.Error()) // an error reply: cjson's refusals
		} else if want, err = FromMessage(msg); err != nil {
			t.Fatal(err)
		}
		e.Reset()
		got, rerr := e.Eval(ctx, []byte(src), nil, nil)
		if rerr != nil {
			t.Fatalf("case %d: %v\n%s", i, rerr, src)
		}
		// rueidis drops an error reply's "ERR " code
		if live, off := want.String(), strings.Replace(got.String(), "ERR ", "", 1); live != off {
			t.Errorf("case %d differs\nlive:\n%s\noffline:\n%s\nwarnings: %q\n%s", i, live, off, e.Warnings(), src)
		}
	}
}
