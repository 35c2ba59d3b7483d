package scenario

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/verify"
)

// DefaultClockTolerance is how far, in milliseconds, a clock-derived number
// of a live run may be from the offline run's (--clock-tolerance).
const DefaultClockTolerance = 50

// How the engine tells clock-derived numbers apart. The offline engine runs
// on a virtual clock, so a run can be repeated with the clock moved and
// every number that moves with it is clock-derived; nothing has to be
// tracked through Lua. Three probes, each run twice at 1x and 2x:
//
//   - shift: the clock starts shiftMS later. What moves is an absolute
//     time: TIME, a timestamp the script stores or returns, PEXPIRETIME.
//   - drift: the clock gains driftMS before every step, as a live run's
//     real clock does. What moves is an elapsed time or a remaining TTL.
//   - tick: the clock gains driftMS before every command a script runs
//     (verify.Engine.SetCallTick), as Redis's does inside a script. What
//     moves is a TTL read in the script that set it.
//
// A number is clock-derived when it moves by at least minMove units and
// moves twice as far at 2x (give or take 2 units for rounding): a count
// that flips when a probe crosses an expiry moves by 1, or not in
// proportion, and stays exact. How far it moves per millisecond of probe
// is its unit (about 1 for milliseconds, 0.001 for seconds, 1000 for
// microseconds), and the tolerance is converted to that unit. Only numbers
// are loosened: integer replies and bulk strings that are whole numbers or
// decimals, and only those that moved; a string that merely looks like a
// number is compared byte for byte, as is everything else.
const (
	shiftMS = 86_400_001 // a day and a millisecond: seconds move by 86400, sub-second parts move too
	driftMS = 3
	minMove = 3
)

// clockTaint is, per step of a run, the unit of every clock-derived leaf
// of the reply (by path) and of each key's contents (by key, then path).
type clockTaint struct {
	reply []map[string]float64
	keys  []map[string]map[string]float64
}

// probeRuns are the four runs of the probes, aligned with the base run.
type probeRuns struct {
	shift1, shift2, drift1, drift2, tick1, tick2 *Run
}

// taintOf compares the base run with the probes, step by step.
func taintOf(base *Run, p probeRuns) *clockTaint {
	t := &clockTaint{reply: make([]map[string]float64, len(base.Steps)), keys: make([]map[string]map[string]float64, len(base.Steps))}
	for i, st := range base.Steps {
		k := float64(i + 1) // drift gained by step i+1
		at := func(r *Run) Outcome {
			if r == nil || i >= len(r.Steps) {
				return Outcome{}
			}
			return Outcome{Reply: r.Steps[i].Reply, Keys: r.Steps[i].State}
		}
		u := ClockUnits{}
		b := Outcome{Reply: st.Reply, Keys: st.State}
		u.mark(b, at(p.shift1), at(p.shift2), shiftMS)
		u.mark(b, at(p.drift1), at(p.drift2), driftMS*k)
		u.mark(b, at(p.tick1), at(p.tick2), driftMS)
		t.reply[i], t.keys[i] = u.Reply, u.Keys
	}
	return t
}

// Outcome is what one run of a script produced: its reply and keys.
type Outcome struct {
	Reply *verify.Reply
	Keys  []Key
}

// ClockUnits is what of an Outcome is clock-derived: the unit (per ms) of
// each such number of the reply, by path, and of each key, by key then
// path. The zero value marks nothing.
type ClockUnits struct {
	Reply map[string]float64
	Keys  map[string]map[string]float64
}

// Shift and Tick are the clock probes of one script run (package evalrun):
// the clock started later by Shift ms, and ticking Tick ms before every
// command the script runs; each probe is run at 1x and 2x.
const (
	Shift = shiftMS
	Tick  = driftMS
)

// MarkProbe adds to u what moved in proportion between base and the probe
// runs a (by size ms) and b (2*size ms).
func (u *ClockUnits) MarkProbe(base, a, b Outcome, size int64) {
	u.mark(base, a, b, float64(size))
}

func (u *ClockUnits) mark(base, a, b Outcome, size float64) {
	if base.Reply != nil && a.Reply != nil && b.Reply != nil {
		mark(&u.Reply, replyLeaves(*base.Reply), replyLeaves(*a.Reply), replyLeaves(*b.Reply), size)
	}
	for _, key := range base.Keys {
		ka, aok := find(a.Keys, key.Name)
		kb, bok := find(b.Keys, key.Name)
		if !aok || !bok {
			continue
		}
		if u.Keys == nil {
			u.Keys = map[string]map[string]float64{}
		}
		m := u.Keys[key.Name]
		mark(&m, keyLeaves(key), keyLeaves(ka), keyLeaves(kb), size)
		if m != nil {
			u.Keys[key.Name] = m
		}
	}
}

// SameReply compares a live reply l with the offline o: equal, or equal
// but for clock-derived numbers within tol+drift ms (tolerated).
func (u ClockUnits) SameReply(o, l verify.Reply, tol, drift int64) (ok, tolerated bool) {
	if o.Equal(l) {
		return true, false
	}
	return (&clockCompare{tol: tol}).leavesMatch(replyLeaves(o), replyLeaves(l), u.Reply, drift)
}

// SameContents compares a live key's contents with the offline key's, as
// SameReply does.
func (u ClockUnits) SameContents(o, l Key, tol, drift int64) (ok, tolerated bool) {
	if SameContents(o, l) {
		return true, false
	}
	return (&clockCompare{tol: tol}).leavesMatch(keyLeaves(o), keyLeaves(l), u.Keys[o.Name], drift)
}

// mark records in *m the unit of every numeric leaf of base that moves in
// proportion from a (probe at 1x) to b (2x).
func mark(m *map[string]float64, base, a, b map[string]string, size float64) {
	for path, bv := range base {
		x, ok := number(bv)
		if !ok {
			continue
		}
		y, yok := number(a[path])
		z, zok := number(b[path])
		if !yok || !zok {
			continue
		}
		d1, d2 := y-x, z-x
		if inSecond(x) && inSecond(y) && inSecond(z) {
			// Microseconds of a second (TIME's second element) wrap.
			d1, d2 = aroundSecond(d1), aroundSecond(d2)
		}
		if math.Abs(d1) < minMove || math.Abs(d2-2*d1) > 2+1e-9*math.Abs(d1) {
			continue
		}
		u := unit(math.Abs(d1) / size)
		if *m == nil {
			*m = map[string]float64{}
		}
		(*m)[path] = max((*m)[path], u)
	}
}

func inSecond(v float64) bool { return v >= 0 && v < 1e6 }

// aroundSecond maps a difference of microseconds within a second to
// (-500000, 500000].
func aroundSecond(d float64) float64 {
	d = math.Mod(d, 1e6)
	switch {
	case d > 5e5:
		d -= 1e6
	case d <= -5e5:
		d += 1e6
	}
	return d
}

// unit snaps a measured rate (units per ms) to milliseconds, seconds or
// microseconds when it is within a factor of 30 of one, so that a TTL
// read a few steps after it was set (which moved by part of the drift)
// still counts in milliseconds.
func unit(rate float64) float64 {
	for _, u := range []float64{1, 0.001, 1000} {
		if rate >= u/30 && rate <= u*30 {
			return u
		}
	}
	return rate
}

// number reads a leaf as a number: an integer reply, or a bulk string that
// is a decimal number (digits, an optional sign and point, an optional
// exponent: 1.796427678095e+12 as a score may print).
func number(leaf string) (float64, bool) {
	kind, text, ok := strings.Cut(leaf, ":")
	if !ok || (kind != "i" && kind != "b") || text == "" || len(text) > 40 {
		return 0, false
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(text), "e")
	if mant == "" || mant == "-" || hasExp && (exp == "" || exp == "-" || exp == "+") {
		return 0, false
	}
	for i, c := range mant {
		if !(c >= '0' && c <= '9' || c == '.' || (i == 0 && c == '-')) {
			return 0, false
		}
	}
	for i, c := range exp {
		if !(c >= '0' && c <= '9' || (i == 0 && (c == '-' || c == '+'))) {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	return f, err == nil
}

// replyLeaves flattens a reply: path -> kind and text ("i:5", "b:x",
// "n", "s:OK", "e:ERR ...", "a:2" for an array of two).
func replyLeaves(r verify.Reply) map[string]string {
	out := map[string]string{}
	var walk func(r verify.Reply, path string)
	walk = func(r verify.Reply, path string) {
		switch r.Kind {
		case verify.Int:
			out[path] = "i:" + strconv.FormatInt(r.Int, 10)
		case verify.Bulk:
			out[path] = "b:" + r.Str
		case verify.Status:
			out[path] = "s:" + r.Str
		case verify.Error:
			out[path] = "e:" + r.Str
		case verify.Array:
			out[path] = "a:" + strconv.Itoa(len(r.Elems))
			for i, e := range r.Elems {
				walk(e, path+"."+strconv.Itoa(i))
			}
		default:
			out[path] = "n:" + r.String()
		}
	}
	walk(r, "")
	return out
}

// keyLeaves flattens a key's type and contents (not its TTL): a string's
// value, a hash's fields in order and their values, a list's elements, a
// sorted set's members and scores in order. A set and a stream are one
// leaf each, compared exactly.
func keyLeaves(k Key) map[string]string {
	out := map[string]string{"type": "t:" + k.Type}
	switch k.Type {
	case "string":
		out["value"] = "b:" + k.Value
	case "hash":
		for i, f := range k.Hash {
			out["field."+strconv.Itoa(i)] = "f:" + f.Name
			out["hash."+f.Name] = "b:" + f.Value
		}
	case "list":
		for i, e := range k.List {
			out["list."+strconv.Itoa(i)] = "b:" + e
		}
	case "zset":
		for i, m := range k.ZSet {
			out["member."+strconv.Itoa(i)] = "b:" + m.Member
			out["score."+strconv.Itoa(i)] = "b:" + FormatScore(m.Score)
		}
	case "set":
		s := append([]string(nil), k.Set...)
		sort.Strings(s)
		out["set"] = "x:" + strings.Join(s, "\x00")
	default:
		out["contents"] = "x:" + contentsString(k)
	}
	return out
}

// clockCompare compares a live run with the offline run aligned to its
// clock: exactly, except the leaves the taint marks.
type clockCompare struct {
	taint *clockTaint
	tol   int64 // ms
}

// leavesMatch reports whether live leaves l match offline leaves o: the
// same paths, each equal, or clock-derived and within the tolerance (then
// tolerated is true).
func (c *clockCompare) leavesMatch(o, l map[string]string, units map[string]float64, drift int64) (ok, tolerated bool) {
	if len(o) != len(l) {
		return false, false
	}
	for path, ov := range o {
		lv, present := l[path]
		if !present {
			return false, false
		}
		if ov == lv {
			continue
		}
		u := units[path]
		if u == 0 || !c.within(ov, lv, u, drift) {
			return false, false
		}
		tolerated = true
	}
	return true, tolerated
}

// within reports whether two numeric leaves of unit u (per ms) are within
// the tolerance plus the run's drift, converted to that unit, with one
// unit of rounding. Microseconds below one second on both sides (TIME's
// second element) are compared around the second.
func (c *clockCompare) within(ov, lv string, u float64, drift int64) bool {
	x, ok1 := number(ov)
	y, ok2 := number(lv)
	if !ok1 || !ok2 {
		return false
	}
	allowed := math.Ceil(float64(c.tol+drift)*u) + 1
	d := math.Abs(x - y)
	if u == 1000 && inSecond(x) && inSecond(y) {
		d = math.Abs(aroundSecond(x - y))
	}
	return d <= allowed
}

// reply compares step i's replies.
func (c *clockCompare) reply(i int, o, l verify.Reply, drift int64) (ok, tolerated bool) {
	if o.Equal(l) {
		return true, false
	}
	if c == nil || c.taint == nil || i >= len(c.taint.reply) {
		return false, false
	}
	return c.leavesMatch(replyLeaves(o), replyLeaves(l), c.taint.reply[i], drift)
}

// contents compares a key's contents after step i.
func (c *clockCompare) contents(i int, o, l Key, drift int64) (ok, tolerated bool) {
	if SameContents(o, l) {
		return true, false
	}
	if c == nil || c.taint == nil || i >= len(c.taint.keys) || c.taint.keys[i] == nil {
		return false, false
	}
	return c.leavesMatch(keyLeaves(o), keyLeaves(l), c.taint.keys[i][o.Name], drift)
}

// markDeclared adds what the scenario's expectations declare clock-dependent
// (clock: [reply, key...]) to t: every number of that step's reply or key
// in base, in milliseconds unless a probe found another unit.
func (s *Scenario) markDeclared(t *clockTaint, base *Run) {
	if s.bound == nil {
		return
	}
	for i, st := range base.Steps {
		if i >= len(s.bound.steps) {
			break
		}
		bs := s.bound.steps[i]
		for _, e := range []*boundExpect{bs.expect, bs.regression} {
			if e == nil {
				continue
			}
			if e.clockReply && st.Reply != nil {
				markAll(&t.reply[i], replyLeaves(*st.Reply))
			}
			for _, name := range e.clockKeys {
				k, ok := find(st.State, name)
				if !ok {
					continue
				}
				if t.keys[i] == nil {
					t.keys[i] = map[string]map[string]float64{}
				}
				m := t.keys[i][name]
				markAll(&m, keyLeaves(k))
				t.keys[i][name] = m
			}
		}
	}
}

func markAll(m *map[string]float64, leaves map[string]string) {
	for path, v := range leaves {
		if _, ok := number(v); !ok {
			continue
		}
		if *m == nil {
			*m = map[string]float64{}
		}
		if (*m)[path] == 0 {
			(*m)[path] = 1
		}
	}
}
