package difftest

import (
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

var (
	randomSeed  = flag.Int64("difftest.seed", 1, "seed of TestRandomReplies")
	randomCount = flag.Int("difftest.n", 150, "number of generated scripts in TestRandomReplies")
)

// replyGen writes random Lua expressions whose values exercise the Lua to
// Redis reply conversion and Lua's number and string formatting.
type replyGen struct{ r *rand.Rand }

var genNumbers = []string{
	"0", "1", "-1", "3.5", "-3.5", "0.1", "1e15", "1e14", "2^53", "2^63", "-2^63",
	"1/3", "1e300", "-0", "0.5", "123456789012", "1e-5", "0x7fffffff", "255/256",
}

var genStrings = []string{
	"''", "'a'", "'hello world'", "'\\0'", "'\\255\\254'", "'line\\nbreak'", "'tab\\t'",
	"'quote\"'", "'back\\\\slash'", "'\\r\\n'", "'caf\\195\\169'", "'\\127'", "' spaced '",
}

func (g replyGen) pick(xs []string) string { return xs[g.r.Intn(len(xs))] }

// scalar is a number, string, boolean or a formatted number.
func (g replyGen) scalar() string {
	switch g.r.Intn(9) {
	case 0, 1:
		return g.pick(genNumbers)
	case 2, 3:
		return g.pick(genStrings)
	case 4:
		return g.pick([]string{"true", "false"})
	case 5:
		return "tostring(" + g.pick(genNumbers) + ")"
	case 6:
		return g.pick(genNumbers) + " .. ''"
	case 7:
		return "string.format('%s|%d', " + g.pick(genNumbers[:8]) + ", " + g.pick(genNumbers[:8]) + ")"
	default:
		return "redis.sha1hex(" + g.pick(genStrings) + ")"
	}
}

// value is a scalar, nil, a status or error table, or a table of values
// (with holes) up to depth levels deep.
func (g replyGen) value(depth int) string {
	n := g.r.Intn(12)
	switch {
	case n < 5 || depth == 0:
		return g.scalar()
	case n == 5:
		return "nil"
	case n == 6:
		return "{ok = " + g.pick(genStrings) + "}"
	case n == 7:
		return "{err = " + g.pick(genStrings) + "}"
	case n == 8:
		return "redis.status_reply(" + g.pick(genStrings) + ")"
	}
	k := g.r.Intn(5)
	elems := make([]string, k)
	for i := range elems {
		elems[i] = g.value(depth - 1)
	}
	return "{" + strings.Join(elems, ", ") + "}"
}

// TestRandomReplies generates scripts returning random nested values and
// requires redis-cli's output and the engine's to match, as EVAL. Vary
// -difftest.seed to explore; a failure prints the script to add to the
// corpus.
func TestRandomReplies(t *testing.T) {
	g := replyGen{r: rand.New(rand.NewSource(*randomSeed))}
	l := startLive(t)
	for i := 0; i < *randomCount; i++ {
		s := Snippet{Name: fmt.Sprintf("random-%d", i), Script: "return " + g.value(3)}
		t.Run(s.Name, func(t *testing.T) {
			live, off := transcripts(t, l, s, false)
			if live != off {
				t.Errorf("seed %d, script %d differs\n--- redis-cli (live)\n%s--- offline\n%s--- script\n%s", *randomSeed, i, visible(live), visible(off), s.Script)
			}
		})
	}
}

// TestRandomArguments passes random numbers and strings to redis.call
// (number to argument conversion, integer parsing, error texts) and
// requires both sides to agree, as EVAL.
func TestRandomArguments(t *testing.T) {
	g := replyGen{r: rand.New(rand.NewSource(*randomSeed))}
	arg := func() string {
		if g.r.Intn(2) == 0 {
			return g.pick(genNumbers)
		}
		return g.pick(append(genStrings, "'12'", "' 12'", "'-0'", "'9223372036854775807'", "'1e3'", "'0x10'"))
	}
	l := startLive(t)
	for i := 0; i < *randomCount/3; i++ {
		script := fmt.Sprintf("redis.call('SET', KEYS[1], %s)\nreturn {redis.call('GET', KEYS[1]), redis.pcall('INCRBY', KEYS[1], %s), redis.pcall('EXPIRE', KEYS[1], %s), redis.call('TTL', KEYS[1])}", arg(), arg(), arg())
		s := Snippet{Name: fmt.Sprintf("args-%d", i), Script: script, Keys: []string{"k"}}
		t.Run(s.Name, func(t *testing.T) {
			live, off := transcripts(t, l, s, false)
			if live != off {
				t.Errorf("seed %d, script %d differs\n--- redis-cli (live)\n%s--- offline\n%s--- script\n%s", *randomSeed, i, visible(live), visible(off), s.Script)
			}
		})
	}
}

// TestRandomFormats runs string.format with random flags, widths,
// precisions and conversions on random numbers, as EVAL: the engine's C
// printf against glibc's.
func TestRandomFormats(t *testing.T) {
	g := replyGen{r: rand.New(rand.NewSource(*randomSeed))}
	spec := func() string {
		var b strings.Builder
		b.WriteByte('%')
		for i := g.r.Intn(3); i > 0; i-- {
			b.WriteByte("-+ #0"[g.r.Intn(5)])
		}
		if g.r.Intn(2) == 0 {
			fmt.Fprintf(&b, "%d", g.r.Intn(25))
		}
		if g.r.Intn(2) == 0 {
			fmt.Fprintf(&b, ".%d", g.r.Intn(20))
		}
		b.WriteByte("diouxXeEfgGc"[g.r.Intn(12)])
		return b.String()
	}
	nums := append([]string{"0.5", "-0.5", "1.5", "2.5", "99.995", "1e-300", "123456.789", "-7", "255", "65", "1e20"}, genNumbers...)
	l := startLive(t)
	for i := 0; i < *randomCount/3; i++ {
		var specs, args []string
		for j := 0; j < 4; j++ {
			specs = append(specs, spec())
			args = append(args, g.pick(nums))
		}
		script := fmt.Sprintf("return string.format('[%s]', %s)", strings.Join(specs, "]["), strings.Join(args, ", "))
		s := Snippet{Name: fmt.Sprintf("format-%d", i), Script: script}
		t.Run(s.Name, func(t *testing.T) {
			live, off := transcripts(t, l, s, false)
			if live != off {
				t.Errorf("seed %d, script %d differs\n--- redis-cli (live)\n%s--- offline\n%s--- script\n%s", *randomSeed, i, visible(live), visible(off), s.Script)
			}
		})
	}
}
