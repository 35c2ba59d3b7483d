package verify

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/crmath"
	"github.com/scriptctl/scriptctl/verify/lualib"
)

// Lua 5.1.5's library functions that take numbers (lmathlib.c, lstrlib.c,
// ltablib.c, lbaselib.c), reimplemented over luaargs.go so their arguments
// convert as in Redis: numeric strings are numbers, numbers are strings,
// integers are C casts.

// luaError is luaL_error: the message after luaL_where(L, 1), the position
// of the Lua code calling the running Go function ("" when a Go function
// such as pcall called it).
func luaError(L *lua.LState, format string, args ...any) {
	L.Error(lua.LString(luaWhere(L, 1)+fmt.Sprintf(format, args...)), 0)
}

// checkTable is luaL_checktype(L, n, LUA_TTABLE).
func checkTable(L *lua.LState, n int) *lua.LTable {
	if t, ok := L.Get(n).(*lua.LTable); ok && n <= L.GetTop() {
		return t
	}
	L.ArgError(n, "table expected, got "+argTypeName(L, n))
	return nil
}

// posrelat is lstrlib.c's posrelat over ptrdiff_t: a negative position
// counts from the end; anything still negative is 0.
func posrelat64(pos, n int64) int64 {
	if pos < 0 {
		pos += n + 1
	}
	if pos < 0 {
		return 0
	}
	return pos
}

// installLib51 replaces gopher-lua's number-taking library functions with
// Lua 5.1's.
func (r *scriptRun) installLib51(G *lua.LTable) {
	L := r.L
	str := G.RawGetString("string").(*lua.LTable)
	mth := G.RawGetString("math").(*lua.LTable)
	tbl := G.RawGetString("table").(*lua.LTable)
	set := func(t *lua.LTable, name string, fn lua.LGFunction) { t.RawSetString(name, L.NewFunction(fn)) }

	set(str, "byte", strByte)
	set(str, "sub", strSub)
	set(str, "len", func(L *lua.LState) int {
		L.Push(lua.LNumber(len(checkStr(L, 1))))
		return 1
	})
	set(str, "char", func(L *lua.LState) int {
		n := L.GetTop()
		b := make([]byte, n)
		for i := 1; i <= n; i++ {
			c := checkInt(L, i)
			if c < 0 || c > 255 { // uchar(c) == c
				L.ArgError(i, "invalid value")
			}
			b[i-1] = byte(c)
		}
		L.Push(lua.LString(b))
		return 1
	})
	set(str, "rep", func(L *lua.LState) int {
		s := checkStr(L, 1)
		n := checkInt(L, 2)
		if n <= 0 || s == "" {
			L.Push(lua.LString(""))
			return 1
		}
		size := math.MaxInt // past any memory limit
		if n <= math.MaxInt/len(s) {
			size = len(s) * n
		}
		r.grow(L, size)
		L.Push(lua.LString(strings.Repeat(s, n)))
		return 1
	})

	r.installMath51(mth)

	set(tbl, "concat", func(L *lua.LState) int {
		sep := optStr(L, 2, "")
		t := checkTable(L, 1)
		i := optInt(L, 3, 1)
		last := r.border(t)
		if !noneOrNil(L, 4) {
			last = checkInt(L, 4)
		}
		var b strings.Builder
		built := building{r: r, L: L}
		add := func(k int) {
			s, ok := concatString(lualib.RawGetInt(t, k))
			if !ok {
				luaError(L, "invalid value (%s) at index %d in table for 'concat'", luaTypeName(lualib.RawGetInt(t, k)), k)
			}
			b.WriteString(s)
		}
		for ; i < last; i++ {
			add(i)
			b.WriteString(sep)
			built.reached(b.Len())
		}
		if i == last {
			add(i)
		}
		built.done(b.Len())
		L.Push(lua.LString(b.String()))
		return 1
	})
	set(tbl, "insert", func(L *lua.LState) int {
		t := checkTable(L, 1)
		real := r.real(t).(*lua.LTable)
		e := r.border(real) + 1
		pos := e
		switch L.GetTop() {
		case 2:
		case 3:
			pos = checkInt(L, 2)
			if pos > e {
				e = pos
			}
		default:
			luaError(L, "wrong number of arguments to 'insert'")
		}
		if real != t {
			roError(L) // the first lua_rawseti
		}
		for i := e; i > pos; i-- {
			r.rawSetInt(real, i, lualib.RawGetInt(real, i-1))
		}
		r.rawSetInt(real, pos, L.Get(L.GetTop()))
		return 0
	})
	set(tbl, "remove", func(L *lua.LState) int {
		t := checkTable(L, 1)
		real := r.real(t).(*lua.LTable)
		e := r.border(real)
		pos := optInt(L, 2, e)
		if pos < 1 || pos > e {
			return 0 // nothing to remove, nothing written
		}
		if real != t {
			roError(L)
		}
		v := lualib.RawGetInt(real, pos)
		for ; pos < e; pos++ {
			r.rawSetInt(real, pos, lualib.RawGetInt(real, pos+1))
		}
		r.rawSetInt(real, e, lua.LNil)
		L.Push(v)
		return 1
	})

	set(tbl, "maxn", func(L *lua.LState) int {
		t := checkTable(L, 1)
		max := 0.0
		t.ForEach(func(k, _ lua.LValue) {
			if f, ok := k.(lua.LNumber); ok && float64(f) > max {
				max = float64(f)
			}
		})
		L.Push(lua.LNumber(max))
		return 1
	})

	set(G, "select", func(L *lua.LState) int {
		n := L.GetTop()
		if s, ok := L.Get(1).(lua.LString); ok && n >= 1 && len(s) > 0 && s[0] == '#' {
			L.Push(lua.LNumber(n - 1))
			return 1
		}
		i := checkInt(L, 1)
		if i < 0 {
			i = n + i
		} else if i > n {
			i = n
		}
		if i < 1 {
			L.ArgError(1, "index out of range")
		}
		return n - i
	})
	// ipairs is Lua 5.1's: one iterator function, ipairsaux, for every
	// call (gopher-lua's reads only the dense array, which ends at
	// lua.MaxArrayIndex).
	ipairsaux := L.NewFunction(func(L *lua.LState) int {
		i := checkInt(L, 2) + 1 // luaL_checkint before luaL_checktype
		t := checkTable(L, 1)
		v := lualib.RawGetInt(t, i)
		if v == lua.LNil {
			return 0
		}
		L.Push(lua.LNumber(i))
		L.Push(v)
		return 2
	})
	set(G, "ipairs", func(L *lua.LState) int {
		t := checkTable(L, 1)
		L.Push(ipairsaux)
		L.Push(t)
		L.Push(lua.LNumber(0))
		return 3
	})
	set(G, "unpack", func(L *lua.LState) int {
		t := checkTable(L, 1)
		i := optInt(L, 2, 1)
		e := r.border(t)
		if !noneOrNil(L, 3) {
			e = checkInt(L, 3)
		}
		if i > e {
			return 0
		}
		n := int(int32(e - i + 1)) // int arithmetic: overflow wraps
		if n <= 0 || !checkStack(L, n) {
			luaError(L, "too many results to unpack")
		}
		for k := 0; k < n; k++ {
			L.Push(lualib.RawGetInt(t, i+k))
		}
		return n
	})
	set(G, "tonumber", func(L *lua.LState) int {
		base := optInt(L, 2, 10)
		if base == 10 {
			if f, ok := lualib.ToNumber(checkAny(L, 1)); ok {
				L.Push(lua.LNumber(f))
				return 1
			}
			L.Push(lua.LNil)
			return 1
		}
		s := checkStr(L, 1)
		if base < 2 || base > 36 {
			L.ArgError(2, "base out of range")
		}
		if i := strings.IndexByte(s, 0); i >= 0 {
			s = s[:i] // a C string
		}
		n, end := strtoul(s, base, r.e.t.strtoulBinaryPrefix)
		if end > 0 {
			for end < len(s) && isSpaceC(s[end]) {
				end++
			}
			if end == len(s) {
				L.Push(lua.LNumber(float64(n)))
				return 1
			}
		}
		L.Push(lua.LNil)
		return 1
	})
	gcPause, gcStepMul := 200, 200 // lua_gc's defaults (LUAI_GCPAUSE, LUAI_GCMUL)
	set(G, "collectgarbage", func(L *lua.LState) int {
		opt := optStr(L, 1, "collect")
		ex := optInt(L, 2, 0)
		switch opt {
		case "stop", "restart", "collect":
			if opt == "collect" {
				r.fullGC(L)
				r.sweepWeak(L)
			}
			L.Push(lua.LNumber(0))
		case "count":
			L.Push(lua.LNumber(0)) // as gcinfo: the Go heap is not Lua's
		case "step":
			L.Push(lua.LTrue)
		case "setpause":
			L.Push(lua.LNumber(gcPause))
			gcPause = ex
		case "setstepmul":
			L.Push(lua.LNumber(gcStepMul))
			gcStepMul = ex
		default:
			L.ArgError(1, "invalid option '"+opt+"'")
		}
		return 1
	})
	set(G, "assert", func(L *lua.LState) int {
		if !lua.LVAsBool(checkAny(L, 1)) {
			luaError(L, "%s", optStr(L, 2, "assertion failed!"))
		}
		return L.GetTop()
	})
	set(G, "error", func(L *lua.LState) int {
		v := L.Get(1)
		level := optInt(L, 2, 1)
		switch v.(type) {
		case lua.LString, lua.LNumber:
			if level > 0 {
				v = lua.LString(luaWhere(L, level) + luaToString(v))
			} else {
				v = lua.LString(luaToString(v))
			}
			// Its position is final: the rewording must not strip it
			// as it strips a Go function's own (see reword).
			r.raised = string(v.(lua.LString))
			r.reraised(r.raised)
		}
		L.Error(v, 0)
		return 0
	})
}

// strByte is Lua 5.1's string.byte.
func strByte(L *lua.LState) int {
	s := checkStr(L, 1)
	l := int64(len(s))
	posi := posrelat64(optInteger(L, 2, 1), l)
	pose := posrelat64(optInteger(L, 3, posi), l)
	if posi <= 0 {
		posi = 1
	}
	if pose > l {
		pose = l
	}
	if posi > pose {
		return 0
	}
	n := int(int32(pose - posi + 1))
	if posi+int64(n) <= pose { // overflow
		luaError(L, "string slice too long")
	}
	if !checkStack(L, n) {
		luaError(L, "stack overflow (string slice too long)")
	}
	for i := 0; i < n; i++ {
		L.Push(lua.LNumber(s[posi-1+int64(i)]))
	}
	return n
}

// strSub is Lua 5.1's string.sub.
func strSub(L *lua.LState) int {
	s := checkStr(L, 1)
	l := int64(len(s))
	start := posrelat64(checkInteger(L, 2), l)
	end := posrelat64(optInteger(L, 3, -1), l)
	if start < 1 {
		start = 1
	}
	if end > l {
		end = l
	}
	if start <= end {
		L.Push(lua.LString(s[start-1 : end]))
	} else {
		L.Push(lua.LString(""))
	}
	return 1
}

// strtoul is glibc's strtoul(s, &end, base) for 2 <= base <= 36: white
// space, a sign, "0x" for base 16, then digits; on overflow ULONG_MAX; a
// minus sign negates in unsigned arithmetic. end is 0 when no digit was
// read (strtoul's end == s).
func strtoul(s string, base int, binaryPrefix bool) (uint64, int) {
	i := 0
	for i < len(s) && isSpaceC(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if base == 16 && i+1 < len(s) && s[i] == '0' && s[i+1]|0x20 == 'x' && i+2 < len(s) && digitValue(s[i+2]) < 16 {
		i += 2
	}
	if binaryPrefix && base == 2 && i+1 < len(s) && s[i] == '0' && s[i+1]|0x20 == 'b' && i+2 < len(s) && digitValue(s[i+2]) < 2 {
		i += 2
	}
	var n uint64
	overflow := false
	start := i
	for ; i < len(s); i++ {
		d := digitValue(s[i])
		if d >= base {
			break
		}
		hi, lo := bits.Mul64(n, uint64(base))
		lo, carry := bits.Add64(lo, uint64(d), 0)
		if hi != 0 || carry != 0 {
			overflow = true
		}
		n = lo
	}
	if i == start {
		return 0, 0
	}
	switch {
	case overflow:
		n = math.MaxUint64
	case neg:
		n = -n
	}
	return n, i
}

// digitValue is a digit's value in bases up to 36; 99 for anything else.
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'z':
		return int(c|0x20-'a') + 10
	}
	return 99
}

// radPerDeg is lmathlib.c's RADIANS_PER_DEGREE, PI/180.0 in double
// arithmetic (a Go constant expression would round only once).
var radPerDeg = func() float64 { pi := float64(math.Pi); return pi / 180.0 }()

// invalidNaN is the NaN glibc's functions return for an invalid operation
// on numbers (sqrt(-1), log(-1), fmod(1, 0), cos(inf)): x86-64's default
// NaN, sign bit set ("-nan"). acos, asin and log10 return a positive one.
var invalidNaN = math.Copysign(math.NaN(), -1)

// cMath gives a libm function's NaN the sign glibc's has on x86-64: a NaN
// argument comes back as it is (the first, for two), a NaN made from
// numbers is invalid. Go's functions return a positive NaN.
func cMath(v, invalid float64, args ...float64) float64 {
	if !math.IsNaN(v) {
		return v
	}
	for _, a := range args {
		if math.IsNaN(a) {
			return a
		}
	}
	return invalid
}

// cPow is glibc's pow (sysdeps/ieee754/dbl-64/e_pow.c) where its NaNs
// differ from Go's: y == 0 or x == 1 is 1; a NaN y returns x + y (the
// first NaN operand); a NaN x is x*x, negated when x's sign bit is set and
// y is an odd integer; a negative x with a non-integral y is invalid.
func cPow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case math.IsNaN(x) && (math.IsNaN(y) || math.IsInf(y, 0)):
		return x
	case math.IsNaN(y):
		return y
	case math.IsNaN(x):
		if math.Signbit(x) && y == math.Trunc(y) && math.Abs(y) < 1<<53 && int64(y)%2 != 0 {
			return math.Copysign(x, 1)
		}
		return x
	}
	return cMath(crmath.Pow(x, y), invalidNaN)
}

// installMath51 is Lua 5.1's math library (lmathlib.c) over C's libm as
// glibc computes it on x86-64, with Redis's rand48 behind math.random.
func (r *scriptRun) installMath51(mth *lua.LTable) {
	L := r.L
	set := func(name string, fn lua.LGFunction) { mth.RawSetString(name, L.NewFunction(fn)) }
	unary := func(name string, f func(float64) float64, invalid float64) {
		set(name, func(L *lua.LState) int {
			x := checkNum(L, 1)
			L.Push(lua.LNumber(cMath(f(x), invalid, x)))
			return 1
		})
	}
	binary := func(name string, f func(float64, float64) float64) {
		set(name, func(L *lua.LState) int {
			x, y := checkNum(L, 1), checkNum(L, 2)
			L.Push(lua.LNumber(f(x, y)))
			return 1
		})
	}
	posNaN := math.NaN()
	set("abs", func(L *lua.LState) int { // fabs clears a NaN's sign too
		L.Push(lua.LNumber(math.Abs(checkNum(L, 1))))
		return 1
	})
	unary("acos", crmath.Acos, posNaN)
	unary("asin", crmath.Asin, posNaN)
	atan := crmath.Atan
	if r.e.t.atanFused {
		atan = crmath.AtanFused
	}
	unary("atan", atan, invalidNaN)
	binary("atan2", func(y, x float64) float64 {
		switch { // glibc returns x + y: x's NaN when both are
		case math.IsNaN(x):
			return x
		case math.IsNaN(y):
			return y
		}
		return crmath.Atan2(y, x)
	})
	unary("ceil", math.Ceil, invalidNaN)
	unary("cos", crmath.Cos, invalidNaN)
	unary("cosh", crmath.Cosh, invalidNaN)
	unary("deg", func(x float64) float64 { return x / radPerDeg }, invalidNaN)
	unary("exp", crmath.Exp, invalidNaN)
	unary("floor", math.Floor, invalidNaN)
	binary("fmod", func(x, y float64) float64 { return cMath(math.Mod(x, y), invalidNaN, x, y) })
	unary("log", crmath.Log, invalidNaN)
	unary("log10", crmath.Log10, posNaN)
	binary("pow", cPow)
	unary("rad", func(x float64) float64 { return x * radPerDeg }, invalidNaN)
	unary("sin", crmath.Sin, invalidNaN)
	unary("sinh", crmath.Sinh, invalidNaN)
	unary("sqrt", math.Sqrt, invalidNaN)
	unary("tan", crmath.Tan, invalidNaN)
	unary("tanh", crmath.Tanh, invalidNaN)
	mth.RawSetString("mod", mth.RawGetString("fmod"))
	set("frexp", func(L *lua.LState) int {
		f, e := math.Frexp(checkNum(L, 1))
		L.Push(lua.LNumber(f))
		L.Push(lua.LNumber(e))
		return 2
	})
	set("ldexp", func(L *lua.LState) int {
		x := checkNum(L, 1)
		L.Push(lua.LNumber(math.Ldexp(x, checkInt(L, 2))))
		return 1
	})
	set("modf", func(L *lua.LState) int {
		x := checkNum(L, 1)
		ip, fp := math.Modf(x)
		if math.IsInf(x, 0) { // C: the fraction of an infinity is a signed 0
			fp = math.Copysign(0, x)
		}
		L.Push(lua.LNumber(ip))
		L.Push(lua.LNumber(fp))
		return 2
	})
	minmax := func(better func(d, best float64) bool) lua.LGFunction {
		return func(L *lua.LState) int {
			best := checkNum(L, 1)
			for i := 2; i <= L.GetTop(); i++ {
				if d := checkNum(L, i); better(d, best) {
					best = d
				}
			}
			L.Push(lua.LNumber(best))
			return 1
		}
	}
	set("min", minmax(func(d, best float64) bool { return d < best }))
	set("max", minmax(func(d, best float64) bool { return d > best }))
	mth.RawSetString("huge", lua.LNumber(math.Inf(1)))
	mth.RawSetString("pi", lua.LNumber(math.Pi))

	e := r.e
	set("random", func(L *lua.LState) int {
		rv := float64(e.rand.next()%math.MaxInt32) / float64(math.MaxInt32)
		switch L.GetTop() {
		case 0:
			L.Push(lua.LNumber(rv))
		case 1:
			u := checkInt(L, 1)
			if u < 1 {
				L.ArgError(1, "interval is empty")
			}
			L.Push(lua.LNumber(math.Floor(rv*float64(u)) + 1))
		case 2:
			l := checkInt(L, 1)
			u := checkInt(L, 2)
			if l > u {
				L.ArgError(2, "interval is empty")
			}
			L.Push(lua.LNumber(math.Floor(rv*float64(int32(u-l+1))) + float64(l)))
		default:
			luaError(L, "wrong number of arguments")
		}
		return 1
	})
	set("randomseed", func(L *lua.LState) int {
		e.rand.seed(int32(checkInt(L, 1)))
		return 0
	})
}
