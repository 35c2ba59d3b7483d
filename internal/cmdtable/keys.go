package cmdtable

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Keys returns the positions in argv (argv[0] is the command name) of the
// arguments that are keys, in the order COMMAND GETKEYS lists them, and nil
// where COMMAND GETKEYS finds none or refuses the argv (wrong arity, unknown
// subcommand, invalid numkeys). It follows Redis's
// getKeysFromCommandWithSpecs: the key specs first, and the command's own
// key-finding procedure where a spec cannot tell (SORT ... STORE, MIGRATE
// ... KEYS, a numkeys that is not a number) or the key flags vary (SET,
// BITFIELD).
func (c *Command) Keys(argv []string) []int {
	lit := func(i int) (string, bool) { return argv[i], true }
	cmd := c.resolve(len(argv), lit)
	if cmd == nil || !cmd.ArityOK(len(argv)) || !cmd.hasKeys() {
		return nil
	}
	return cmd.keys(len(argv), lit)
}

// KeysPartial is Keys for an argv only partly known, as a linter sees a
// call: n arguments (the name included), lit(i) giving argument i's text
// when it is a literal. An argument of unknown text never matches a
// keyword and is not a valid numkeys. Unlike Keys it keeps what every
// valid spec yields even when another spec fails (Redis's
// GET_KEYSPEC_RETURN_PARTIAL), adds what the command's own procedure finds,
// and does not check the arity: the result is every position known to hold
// a key, ascending. includeNotKeys adds what specs flagged not_key name
// (SPUBLISH's shard channel, which routes like a key), as Redis's
// GET_KEYSPEC_INCLUDE_NOT_KEYS does.
func (c *Command) KeysPartial(n int, lit func(i int) (string, bool), includeNotKeys bool) []int {
	get := func(i int) (string, bool) {
		if i < 0 || i >= n {
			return "", false
		}
		return lit(i)
	}
	cmd := c.resolve(n, get)
	if cmd == nil {
		return nil
	}
	pos, _ := cmd.specKeys(n, get, true, includeNotKeys)
	if proc, ok := getkeysProcs.Get()[cmd.Name]; ok {
		pos = append(pos, proc(n, get)...)
	}
	slices.Sort(pos)
	return slices.Compact(pos)
}

// resolve picks the subcommand argv names, as Redis's lookupCommand does:
// a container called with at least one argument needs a known subcommand.
func (c *Command) resolve(n int, lit func(int) (string, bool)) *Command {
	if c.parent != nil || len(c.Subcommands) == 0 || n < 2 {
		return c
	}
	name, ok := lit(1)
	if !ok {
		return nil
	}
	sub, ok := c.Sub(name)
	if !ok {
		return nil
	}
	return sub
}

// hasKeys is Redis's doesCommandHaveKeys: COMMAND GETKEYS refuses a command
// without a key-finding procedure or a spec for real keys.
// HasKeys reports whether the command names keys at all (doesCommandHaveKeys:
// a key-finding procedure, or a key spec not flagged not_key).
func (c *Command) HasKeys() bool { return c.hasKeys() }

func (c *Command) hasKeys() bool {
	if _, ok := getkeysProcs.Get()[c.Name]; ok {
		return true
	}
	for _, s := range c.Specs {
		if !slices.Contains(s.Flags, "not_key") {
			return true
		}
	}
	return false
}

// keys is getKeysFromCommandWithSpecs: specs when they describe real keys
// with fixed flags and succeed, else the command's procedure.
func (c *Command) keys(n int, lit func(int) (string, bool)) []int {
	hasSpec, varFlags := false, false
	for _, s := range c.Specs {
		if !slices.Contains(s.Flags, "not_key") {
			hasSpec = true
		}
		if slices.Contains(s.Flags, "variable_flags") {
			varFlags = true
		}
	}
	if hasSpec && !varFlags {
		if pos, ok := c.specKeys(n, lit, false, false); ok {
			return pos
		}
	}
	if proc, ok := getkeysProcs.Get()[c.Name]; ok {
		return proc(n, lit)
	}
	return nil
}

// specKeys is getKeysUsingKeySpecs. ok is false when a spec is invalid for
// this argv (unknown type, bad numkeys, keys out of bounds, an incomplete
// spec); with partial it goes on with the next spec instead.
func (c *Command) specKeys(n int, lit func(int) (string, bool), partial, notKeys bool) (pos []int, ok bool) {
	for _, s := range c.Specs {
		if !notKeys && slices.Contains(s.Flags, "not_key") {
			continue
		}
		keys, st := s.find(n, lit, c.strictNumkeys, c.keynumStep)
		pos = append(pos, keys...)
		// An incomplete spec fails only once it found its begin: a
		// keyword that is absent lets the other specs decide.
		if st == specInvalid || (st == specFound && slices.Contains(s.Flags, "incomplete")) {
			if !partial {
				return nil, false
			}
		}
	}
	return pos, true
}

// specStatus is what one spec made of an argv.
type specStatus int

const (
	specFound   specStatus = iota // keys found
	specAbsent                    // its keyword is absent: no keys, validly
	specInvalid                   // unknown type, bad numkeys, keys out of bounds
)

// find applies one spec. strictNumkeys rejects a numkeys beyond a C int
// (Redis 7.4 on, Valkey 9.1 on; older servers let it wrap); keynumStep
// spaces numkeys keys keystep apart.
func (s *KeySpec) find(n int, lit func(int) (string, bool), strictNumkeys, keynumStep bool) (pos []int, st specStatus) {
	first := 0
	switch s.BeginSearch {
	case "index":
		first = s.Index
	case "keyword":
		first = s.keywordBegin(n, lit)
		if first == 0 {
			return nil, specAbsent
		}
	default:
		return nil, specInvalid
	}
	var last, step int
	switch s.FindKeys {
	case "range":
		step = s.KeyStep
		switch {
		case s.LastKey >= 0:
			last = first + s.LastKey
		case s.Limit == 0:
			last = n + s.LastKey
		default:
			last = first + ((n-first)/s.Limit + s.LastKey)
		}
	case "keynum":
		step = s.KeyStep
		if s.KeyNumIdx >= n || first+s.KeyNumIdx >= n {
			return nil, specInvalid
		}
		text, known := lit(first + s.KeyNumIdx)
		if !known {
			return nil, specInvalid
		}
		numkeys, err := strconv.ParseInt(text, 10, 64)
		if err != nil || numkeys < 0 || !strictInt(text) || (strictNumkeys && numkeys > math.MaxInt32) {
			return nil, specInvalid
		}
		first += s.FirstKey
		// Redis stores numkeys in a C int: a huge count wraps.
		last = first + int(int32(numkeys)) - 1
		if keynumStep && step > 1 {
			last = first + (int(int32(numkeys))-1)*step
		}
	default:
		return nil, specInvalid
	}
	if last >= n || last < first || first >= n || step <= 0 {
		return nil, specInvalid
	}
	for i := first; i <= last; i += step {
		pos = append(pos, i)
	}
	return pos, specFound
}

// keywordBegin finds the keyword as Redis does: from startfrom towards the
// end (or, when negative, from the end towards the start), never looking at
// the last argument (forwards) or the first (backwards). It returns the
// position after the keyword, 0 when absent.
func (s *KeySpec) keywordBegin(n int, lit func(int) (string, bool)) int {
	start, end := s.StartFrom, n-1
	if s.StartFrom <= 0 {
		start, end = n+s.StartFrom, 1
	}
	for i := start; i != end; {
		if i >= n || i < 1 {
			break
		}
		if t, ok := lit(i); ok && strings.EqualFold(t, s.Keyword) {
			return i + 1
		}
		if start <= end {
			i++
		} else {
			i--
		}
	}
	return 0
}

// strictInt reports whether s is how Redis's string2ll wants an integer:
// no sign but '-', no leading zero, no spaces.
func strictInt(s string) bool {
	if s == "" {
		return false
	}
	d := s
	if d[0] == '-' {
		d = d[1:]
	}
	if d == "" || (d[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}
