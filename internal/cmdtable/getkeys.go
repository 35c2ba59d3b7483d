package cmdtable

import (
	"math"
	"strings"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// getkeysProc is a command's own key-finding procedure (its getkeys_proc
// in Redis's source, the same in every target: redis 7.0 to 8.0, valkey 7.2
// to 8.1). n is the argument count, lit gives argument i's text when known.
type getkeysProc func(n int, lit func(int) (string, bool)) []int

// getkeysProcs are the commands that have one. COMMAND INFO does not say
// which do, so the list is Redis's (src/commands.def). Built on first use,
// not at process start.
var getkeysProcs = lazy.Value[map[string]getkeysProc]{New: newGetkeysProcs}

func newGetkeysProcs() map[string]getkeysProc {
	procs := map[string]getkeysProc{}
	numkeys := func(store, count, first int) getkeysProc {
		return func(n int, lit func(int) (string, bool)) []int { return genericKeys(store, count, first, n, lit) }
	}
	for _, name := range []string{"sintercard", "zunion", "zinter", "zdiff", "zintercard", "lmpop", "zmpop"} {
		procs[name] = numkeys(0, 1, 2)
	}
	for _, name := range []string{"zunionstore", "zinterstore", "zdiffstore"} {
		procs[name] = numkeys(1, 2, 3)
	}
	for _, name := range []string{"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro", "blmpop", "bzmpop"} {
		procs[name] = numkeys(0, 2, 3)
	}
	// SORT_RO's BY and GET patterns name keys no argument holds; SET and
	// BITFIELD only vary the key's flags.
	for _, name := range []string{"sort_ro", "set", "bitfield"} {
		procs[name] = func(int, func(int) (string, bool)) []int { return []int{1} }
	}
	procs["sort"] = sortKeys
	procs["migrate"] = migrateKeys
	procs["georadius"] = georadiusKeys
	procs["georadiusbymember"] = georadiusKeys
	procs["xread"] = xreadKeys
	procs["xreadgroup"] = xreadKeys
	return procs
}

// is reports whether argument i is the literal word (case-insensitive).
func is(lit func(int) (string, bool), i int, word string) bool {
	s, ok := lit(i)
	return ok && strings.EqualFold(s, word)
}

// genericKeys is Redis's genericGetKeys: numkeys at count (read with C's
// atoi), the keys from first on, and a destination key at store (0: none),
// listed last. A count below 1 or beyond the arguments yields no key.
func genericKeys(store, count, first, n int, lit func(int) (string, bool)) []int {
	if count >= n {
		return nil
	}
	s, _ := lit(count)
	num := cAtoi(s)
	if num < 1 || num > n-first {
		return nil
	}
	var out []int
	for i := 0; i < num; i++ {
		out = append(out, first+i)
	}
	if store != 0 {
		out = append(out, store)
	}
	return out
}

// sortKeys is sortGetKeys: the sorted key, and the argument after the last
// STORE, skipping the arguments of LIMIT, GET and BY.
func sortKeys(n int, lit func(int) (string, bool)) []int {
	out := []int{1}
	store := 0
	for i := 2; i < n; i++ {
		switch {
		case is(lit, i, "limit"):
			i += 2
		case is(lit, i, "store") && i+1 < n:
			store = i + 1
		case is(lit, i, "get"), is(lit, i, "by"):
			i++
		}
	}
	if store != 0 {
		out = append(out, store)
	}
	return out
}

// migrateKeys is migrateGetKeys: the key at 3, or with KEYS (and an empty
// key argument) every argument after it.
func migrateKeys(n int, lit func(int) (string, bool)) []int {
	first, num := 3, 1
	if n > 6 {
		for i := 6; i < n; i++ {
			if is(lit, i, "keys") {
				if s, ok := lit(3); !ok || s != "" {
					num = 0 // a syntax error MIGRATE reports itself
				} else {
					first, num = i+1, n-i-1
				}
				break
			}
			switch {
			case is(lit, i, "auth"):
				i++
			case is(lit, i, "auth2"):
				i += 2
			}
		}
	}
	var out []int
	for i := 0; i < num; i++ {
		out = append(out, first+i)
	}
	return out
}

// georadiusKeys is georadiusGetKeys: the key, and the argument after the
// last STORE or STOREDIST from position 5 on.
func georadiusKeys(n int, lit func(int) (string, bool)) []int {
	stored := -1
	for i := 5; i < n; i++ {
		if (is(lit, i, "store") || is(lit, i, "storedist")) && i+1 < n {
			stored = i + 1
			i++
		}
	}
	if stored == -1 {
		return []int{1}
	}
	return []int{1, stored}
}

// xreadKeys is xreadGetKeys: the options up to STREAMS are skipped with
// their arguments; the first half of what follows STREAMS are the keys.
func xreadKeys(n int, lit func(int) (string, bool)) []int {
	streams := -1
loop:
	for i := 1; i < n; i++ {
		switch {
		case is(lit, i, "block"), is(lit, i, "count"):
			i++
		case is(lit, i, "group"):
			i += 2
		case is(lit, i, "noack"):
		case is(lit, i, "streams"):
			streams = i
			break loop
		default:
			break loop
		}
	}
	if streams == -1 {
		return nil
	}
	num := n - streams - 1
	if num == 0 || num%2 != 0 {
		return nil
	}
	var out []int
	for i := streams + 1; i < n-num/2; i++ {
		out = append(out, i)
	}
	return out
}

// cAtoi is glibc's atoi: (int)strtol(s, NULL, 10), which skips leading
// white space, takes a sign, stops at the first non-digit, saturates at the
// long range and then keeps the low 32 bits.
func cAtoi(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var v uint64
	over := false
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			over = true
			continue
		}
		v = v*10 + d
	}
	var l int64
	switch {
	case neg && (over || v > 1<<63):
		l = math.MinInt64
	case neg:
		l = -int64(v)
	case over || v > math.MaxInt64:
		l = math.MaxInt64
	default:
		l = int64(v)
	}
	return int(int32(l))
}
