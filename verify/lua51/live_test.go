package lua51

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// op is one step of a generated table history.
type op struct {
	key  Key
	lua  string // the key as a Lua expression
	live bool   // false: t[k] = nil
}

func keyName(k Key) string {
	switch k.Kind {
	case KindString:
		return "s:" + k.S
	case KindNumber:
		return "n:" + strconv.FormatFloat(k.N, 'g', 17, 64)
	case KindBool:
		return "b:" + strconv.FormatBool(k.B)
	}
	return "?"
}

// randomHistory builds a constructor and a sequence of stores over a pool
// of keys chosen to collide: short and long (over 32 bytes) strings,
// integers inside and outside the array part, fractions, negatives,
// booleans.
func randomHistory(r *rand.Rand) (na, nh int, ctor []op, ops []op) {
	var pool []op
	prefix := strings.Repeat("p", r.IntN(40))
	for i := 0; i < 12+r.IntN(30); i++ {
		s := fmt.Sprintf("%sf%d", prefix, r.IntN(60))
		pool = append(pool, op{key: Str(s), lua: strconv.Quote(s)})
	}
	for i := 0; i < r.IntN(20); i++ {
		n := float64(1 + r.IntN(70))
		switch r.IntN(6) {
		case 0:
			n = -n
		case 1:
			n += 0.5
		case 2:
			n = 0
		}
		pool = append(pool, op{key: Num(n), lua: "(" + strconv.FormatFloat(n, 'g', 17, 64) + ")"})
	}
	if r.IntN(4) == 0 {
		pool = append(pool, op{key: Bool(true), lua: "true"}, op{key: Bool(false), lua: "false"})
	}
	pick := func() op { return pool[r.IntN(len(pool))] }
	if r.IntN(2) == 0 {
		na = r.IntN(6)
		nh = r.IntN(10)
		for i := 0; i < nh; i++ {
			o := pick()
			o.live = true
			ctor = append(ctor, o)
		}
	}
	for i := 0; i < r.IntN(60); i++ {
		o := pick()
		o.live = r.IntN(5) != 0
		ops = append(ops, o)
	}
	return na, nh, ctor, ops
}

// script renders the history as Lua: a constructor with na list items and
// the record fields, then the stores; it returns #t and the keys in pairs
// order.
func script(na int, ctor, ops []op) string {
	var b strings.Builder
	b.WriteString("local t = {")
	for _, o := range ctor {
		fmt.Fprintf(&b, "[%s]=1, ", o.lua)
	}
	for i := 0; i < na; i++ {
		b.WriteString("'a', ")
	}
	b.WriteString("}\n")
	for _, o := range ops {
		v := "1"
		if !o.live {
			v = "nil"
		}
		fmt.Fprintf(&b, "t[%s] = %s\n", o.lua, v)
	}
	b.WriteString(`local out = {tostring(#t)}
for k in pairs(t) do out[#out+1] = (type(k) == 'string' and 's:' .. k) or (type(k) == 'number' and 'n:' .. string.format('%.17g', k)) or ('b:' .. tostring(k)) end
return out`)
	return b.String()
}

// model replays the same history on the layout model.
func model(h StringHash, na, nh int, ctor, ops []op) []string {
	t := New(h, na, nh)
	for _, o := range ctor {
		t.Set(o.key, true)
	}
	// OP_SETLIST stores the list items last, into the presized array.
	for i := na; i >= 1; i-- {
		t.Set(Num(float64(i)), true)
	}
	for _, o := range ops {
		t.Set(o.key, o.live)
	}
	out := []string{strconv.Itoa(t.Border())}
	for _, k := range t.Keys() {
		out = append(out, keyName(k))
	}
	return out
}

// TestLayoutLive replays random table histories on the model and on a
// real server, and compares #t and the pairs order.
func TestLayoutLive(t *testing.T) {
	srv := redistest.Standalone(t)
	h := HashLua51All
	if strings.HasPrefix(redistest.DefaultKind(t).Target(), "valkey-") && redistest.DefaultKind(t).Target() >= "valkey-8.1" {
		h = HashMurmur3
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	const cases = 400
	for i := 0; i < cases; i++ {
		na, nh, ctor, ops := randomHistory(r)
		// the constructor's record fields count even when they repeat
		src := script(na, ctor, ops)
		res := srv.Do(ctx, "EVAL", src, "0")
		msg, err := res.ToMessage()
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, src)
		}
		arr, err := msg.AsStrSlice()
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		want := model(h, na, nh, ctor, ops)
		if !slices.Equal(arr, want) {
			t.Errorf("case %d differs\nserver %v\nmodel  %v\n%s", i, arr, want, src)
			if t.Failed() && i > 20 {
				break
			}
		}
	}
}
