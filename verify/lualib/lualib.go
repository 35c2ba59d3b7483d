// Package lualib provides the Lua libraries Redis 7 bundles with its Lua
// interpreter, reimplemented for gopher-lua: bit (LuaBitOp), cjson (lua-cjson
// 2.1.0 as Redis ships it), struct (Roberto Ierusalimschy's struct.c) and
// cmsgpack (lua-cmsgpack 0.4.0). It also owns the Lua 5.1 number formatting
// Redis's Lua uses (FormatNumber, "%.14g") and the Lua 5.1 string-to-number
// rules its libraries apply (ToNumber).
//
// Each library follows the C original byte for byte where a script can
// observe it: results, integer wrap-around, and error texts. Errors carry
// the calling Lua function's "user_script:N: " position and the name the
// function was called by, as luaL_error and luaL_argerror report them (no
// position and '?' when called through pcall). It does not own the sandbox,
// the redis.* API or the reply conversions (package verify does).
//
// cjson and cmsgpack encode a table's hash part in the order Options.Keys
// gives (the engine's Lua 5.1 order), else gopher-lua's. cjson.null is a
// userdata without a metatable, as Redis's lightuserdata NULL; the
// sandbox's tostring names it (IsNull, NullName).
package lualib

import (
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/cnum"
)

// Open registers the global tables bit, cjson, struct and cmsgpack in L.
// The engine calls it once per state, after the base libraries.
func Open(L *lua.LState) { OpenWith(L, Options{}) }

// Options configure the libraries of one state.
type Options struct {
	// Unsupported is called when a library meets input that gopher-lua
	// cannot hold the way Lua 5.1 does, so the run cannot be judged
	// offline: today, a cmsgpack map whose integer key lies far past the
	// keys before it (gopher-lua stores integer keys below 2^26 in a
	// dense array, so one such key costs up to a gigabyte). It must not
	// return (raise or panic). Nil raises a Lua error with msg.
	Unsupported func(L *lua.LState, msg string)
	// Keys returns a table's keys whose values are not nil in the order
	// the server's Lua visits them (lua_next), for cjson.encode and
	// cmsgpack.pack; nil, or a nil result, means gopher-lua's order.
	Keys KeyOrder
	// View returns the table a script's table stands for when it is a
	// view of another (the engine's readonly library tables and _G):
	// cjson.encode and cmsgpack.pack encode that table. Nil: none.
	View func(t *lua.LTable) *lua.LTable
	// Store is told of each store cmsgpack.unpack makes in a table it
	// builds (lua_settable on the server, a nil value included: Lua makes
	// the key's node), before the store, so that the caller can record the
	// table's history; cjson.decode needs none (an array's elements come
	// in order into a new table, an object's keys are strings). Nil: none.
	Store func(t *lua.LTable, k, v lua.LValue)
	// CmsgpackCopyright replaces cmsgpack._COPYRIGHT (Valkey 8.0 names
	// Redis Ltd.); empty: lua-cmsgpack's own.
	CmsgpackCopyright string
}

// viewOf is opts.View, or the table itself.
func viewOf(view func(*lua.LTable) *lua.LTable, t *lua.LTable) *lua.LTable {
	if view == nil {
		return t
	}
	return view(t)
}

// KeyOrder lists a table's keys whose values are not nil in the server's
// order (Options.Keys); nil, or a nil result, means gopher-lua's order.
type KeyOrder func(t *lua.LTable) []lua.LValue

// Pairs iterates t's keys and values in the order o gives, or gopher-lua's.
func (o KeyOrder) Pairs(t *lua.LTable) iter.Seq2[lua.LValue, lua.LValue] {
	return func(yield func(lua.LValue, lua.LValue) bool) {
		if o != nil {
			if keys := o(t); keys != nil {
				for _, k := range keys {
					if !yield(k, t.RawGet(k)) {
						return
					}
				}
				return
			}
		}
		for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
			if !yield(k, v) {
				return
			}
		}
	}
}

// OpenWith is Open with options. It returns the libraries' Go-side state,
// for an engine that reuses L for runs that must not see each other.
func OpenWith(L *lua.LState, opts Options) *State {
	if opts.Unsupported == nil {
		opts.Unsupported = func(L *lua.LState, msg string) { L.RaiseError("%s", msg) }
	}
	cjson, cfg := newCJSON(L, opts.Keys, opts.View)
	L.SetGlobal("bit", newBit(L))
	L.SetGlobal("cjson", cjson)
	L.SetGlobal("struct", newStruct(L))
	L.SetGlobal("cmsgpack", newCmsgpack(L, opts))
	return &State{cjson: cfg}
}

// State is what a script can change in the libraries outside Lua tables:
// the global cjson's settings (cjson.encode_max_depth and the like), which
// persist from script to script like in Redis's Lua state.
type State struct {
	cjson *cjsonConfig
}

// Reset restores the settings to those of a fresh Lua state.
func (s *State) Reset() { *s.cjson = *defaultCJSONConfig() }

// FormatNumber converts a Lua number to a string the way Redis's Lua 5.1
// does (tostring, .., string.format('%s')): "%.14g" from the C library, so
// 0.1+0.2 is "0.3", 1e15 is "1e+15", 3 is "3", and infinities and NaN print
// as glibc prints them: "inf", "-inf", "nan", "-nan" (0/0 is "-nan" on
// x86-64).
func FormatNumber(f float64) string { return formatG(f, 14) }

// formatG is C's "%.<prec>g" for a double, as glibc prints it.
func formatG(f float64, prec int) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', prec, 64)
}

// ToNumber converts v the way Lua 5.1's lua_tonumber does: numbers as they
// are, strings through strtod (decimal, hex, inf, nan; leading and trailing
// white space allowed; the string ends at its first NUL byte). ok is false
// for anything else.
func ToNumber(v lua.LValue) (f float64, ok bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		return cnum.Str2d(string(x))
	}
	return 0, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func hasPrefixFold(s, p string) bool {
	return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p)
}

// typeName is Lua 5.1's luaL_typename for argument n: "no value" past the
// top of the stack.
func typeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// callSite returns what Lua 5.1's luaL_where(L, 1) and luaL_argerror
// report for the running library function: the calling Lua function's
// "source:line: " (empty when the caller is not Lua code, such as
// pcall(cjson.decode, s)) and the name the function was called by (a
// field, local or global name; "?" when unknown).
func callSite(L *lua.LState, fname string) (where, name string) {
	caller, ok := L.GetStack(1)
	if !ok {
		return "", "?"
	}
	if _, err := L.GetInfo("Sl", caller, lua.LNil); err != nil || caller.What == "G" {
		return "", "?"
	}
	if caller.CurrentLine > 0 {
		where = fmt.Sprintf("%s:%d: ", caller.Source, caller.CurrentLine)
	}
	name = fname
	if self, ok := L.GetStack(0); ok {
		if _, err := L.GetInfo("n", self, lua.LNil); err == nil && self.Name != "" && self.Name[0] != '(' && self.Name[0] != '<' {
			name = self.Name
		}
	}
	return where, name
}

// raise is luaL_error: the message prefixed with the caller's position.
func raise(L *lua.LState, format string, args ...any) {
	where, _ := callSite(L, "")
	L.Error(lua.LString(where+fmt.Sprintf(format, args...)), 0)
}

// argError raises Lua 5.1's luaL_argerror text.
func argError(L *lua.LState, n int, fname, msg string) {
	where, name := callSite(L, fname)
	L.Error(lua.LString(fmt.Sprintf("%sbad argument #%d to '%s' (%s)", where, n, name, msg)), 0)
}

func typeError(L *lua.LState, n int, fname, want string) {
	argError(L, n, fname, fmt.Sprintf("%s expected, got %s", want, typeName(L, n)))
}

// checkNumber is luaL_checknumber.
func checkNumber(L *lua.LState, n int, fname string) float64 {
	if n <= L.GetTop() {
		if f, ok := ToNumber(L.Get(n)); ok {
			return f
		}
	}
	typeError(L, n, fname, "number")
	return 0
}

// checkInteger is luaL_checkinteger on x86-64: the number truncated to a
// 64-bit integer.
func checkInteger(L *lua.LState, n int, fname string) int64 {
	return truncInt64(checkNumber(L, n, fname))
}

// optInteger is luaL_optinteger.
func optInteger(L *lua.LState, n int, fname string, def int64) int64 {
	if v := L.Get(n); n > L.GetTop() || v == lua.LNil {
		return def
	}
	return checkInteger(L, n, fname)
}

// checkString is luaL_checklstring: strings, and numbers converted with
// FormatNumber.
func checkString(L *lua.LState, n int, fname string) string {
	if n <= L.GetTop() {
		switch v := L.Get(n).(type) {
		case lua.LString:
			return string(v)
		case lua.LNumber:
			return FormatNumber(float64(v))
		}
	}
	typeError(L, n, fname, "string")
	return ""
}

// truncInt64 is a C cast from double to int64 on x86-64: truncation toward
// zero, and the "integer indefinite" value for NaN and out-of-range input.
func truncInt64(f float64) int64 {
	if f != f || f >= 9.223372036854775807e18 || f < -9.223372036854775808e18 {
		return math.MinInt64
	}
	return int64(f)
}

// truncUint64 is a C cast from double to uint64 as gcc compiles it on
// x86-64: below 2^63 the signed conversion (NaN too: the comparison is
// unordered, so NaN gives 0x8000000000000000), from 2^63 on the signed
// conversion of f - 2^63 with the top bit flipped (0 from 2^64 on).
func truncUint64(f float64) uint64 {
	if !(f >= 9.223372036854775808e18) {
		return uint64(truncInt64(f))
	}
	return uint64(truncInt64(f-9.223372036854775808e18)) ^ (1 << 63)
}
