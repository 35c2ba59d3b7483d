package verify

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/lualib"
)

// strFormat is Lua 5.1's string.format (lstrlib.c str_format) on top of C
// printf semantics: numbers print as Redis's Lua prints them, %q quotes like
// Lua 5.1, and the errors are Lua 5.1's.
func strFormat(L *lua.LState) int {
	fs := L.CheckString(1)
	arg := 1
	var b strings.Builder
	for i := 0; i < len(fs); i++ {
		c := fs[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i < len(fs) && fs[i] == '%' {
			b.WriteByte('%')
			continue
		}
		// scanformat: flags, width (2 digits), precision (2 digits).
		start := i
		for i < len(fs) && strings.IndexByte("-+ #0", fs[i]) >= 0 {
			i++
		}
		if i-start >= len("-+ #0")+1 {
			L.RaiseError("invalid format (repeated flags)")
		}
		flags := fs[start:i]
		wStart := i
		for n := 0; n < 2 && i < len(fs) && isDigit(fs[i]); n++ {
			i++
		}
		width := fs[wStart:i]
		prec, hasPrec := "", false
		if i < len(fs) && fs[i] == '.' {
			i++
			hasPrec = true
			pStart := i
			for n := 0; n < 2 && i < len(fs) && isDigit(fs[i]); n++ {
				i++
			}
			prec = fs[pStart:i]
		}
		if i < len(fs) && isDigit(fs[i]) {
			L.RaiseError("invalid format (width or precision too long)")
		}
		arg++
		if arg > L.GetTop() {
			L.ArgError(arg, "no value")
		}
		if i >= len(fs) {
			L.RaiseError("invalid option '%%%s' to 'format'", "")
		}
		conv := fs[i]
		spec := spec{flags: flags, width: atoiOr(width, -1), prec: atoiOr(prec, 0), hasPrec: hasPrec}
		switch conv {
		case 'c':
			// The argument is cast to int (INT_MIN, low byte 0, when out of
			// range), and C's sprintf output is read back with strlen: a
			// NUL ends it.
			n := checkNumber(L, arg)
			b.WriteString(cString(spec.pad(string([]byte{byte(cInt32(n))}), false)))
		case 'd', 'i':
			n := cInt(checkNumber(L, arg))
			b.WriteString(spec.integer(uint64(n), 'd'))
		case 'o', 'u', 'x', 'X':
			// Lua 5.1 casts to unsigned long, not long.
			n := cUint(checkNumber(L, arg))
			b.WriteString(spec.integer(n, conv))
		case 'e', 'E', 'f', 'g', 'G':
			n := checkNumber(L, arg)
			b.WriteString(spec.float(n, conv))
		case 'q':
			b.WriteString(luaQuote(checkString(L, arg)))
		case 's':
			s := checkString(L, arg)
			if !hasPrec && len(s) >= 100 {
				b.WriteString(s) // Lua keeps a long string whole
				continue
			}
			if k := strings.IndexByte(s, 0); k >= 0 {
				s = s[:k]
			}
			if hasPrec && spec.prec < len(s) {
				s = s[:spec.prec]
			}
			b.WriteString(spec.pad(s, false))
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", conv)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func atoiOr(s string, def int) int {
	if s == "" {
		return def
	}
	n, _ := strconv.Atoi(s)
	return n
}

// checkNumber is luaL_checknumber: a number, or a string Lua converts.
func checkNumber(L *lua.LState, n int) float64 {
	v := L.Get(n)
	if f, ok := lualib.ToNumber(v); ok {
		return f
	}
	if v == lua.LNil && n > L.GetTop() {
		L.ArgError(n, "no value")
	}
	L.ArgError(n, fmt.Sprintf("number expected, got %s", luaTypeName(v)))
	return 0
}

// checkString is luaL_checklstring: a string, or a number as %.14g.
func checkString(L *lua.LState, n int) string {
	v := L.Get(n)
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return luaNumber(float64(x))
	}
	if n > L.GetTop() {
		L.ArgError(n, "no value")
	}
	L.ArgError(n, fmt.Sprintf("string expected, got %s", luaTypeName(v)))
	return ""
}

func luaTypeName(v lua.LValue) string {
	if v == lua.LNil {
		return "nil"
	}
	return v.Type().String()
}

// luaQuote is %q in Lua 5.1: quotes, backslash, newline (as backslash
// newline), \r and \0 escaped; every other byte as is.
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString("\\\n")
		case '\r':
			b.WriteString("\\r")
		case 0:
			b.WriteString("\\000")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// spec is one parsed conversion's flags, width and precision.
type spec struct {
	flags   string
	width   int // -1: none
	prec    int
	hasPrec bool
}

func (s spec) has(f byte) bool { return strings.IndexByte(s.flags, f) >= 0 }

// pad applies the width: left-justified with '-', zero-padded after the
// sign with '0' when zero is allowed.
func (s spec) pad(body string, zero bool) string {
	if s.width <= len(body) {
		return body
	}
	n := s.width - len(body)
	switch {
	case s.has('-'):
		return body + strings.Repeat(" ", n)
	case zero && s.has('0'):
		sign := ""
		if body != "" && strings.IndexByte("+- ", body[0]) >= 0 {
			sign, body = body[:1], body[1:]
		}
		if strings.HasPrefix(body, "0x") || strings.HasPrefix(body, "0X") {
			sign, body = sign+body[:2], body[2:]
		}
		return sign + strings.Repeat("0", n) + body
	}
	return strings.Repeat(" ", n) + body
}

// integer formats a C long (%d, its bits in u) or unsigned long (%o, %u,
// %x, %X).
func (s spec) integer(u uint64, conv byte) string {
	var digits, sign string
	switch conv {
	case 'd':
		if n := int64(u); n < 0 {
			sign = "-"
			digits = strconv.FormatUint(uint64(-n), 10)
			if n == -n { // MinInt64
				digits = "9223372036854775808"
			}
		} else {
			digits = strconv.FormatInt(n, 10)
			if s.has('+') {
				sign = "+"
			} else if s.has(' ') {
				sign = " "
			}
		}
	case 'u':
		digits = strconv.FormatUint(u, 10)
	case 'o':
		digits = strconv.FormatUint(u, 8)
	case 'x':
		digits = strconv.FormatUint(u, 16)
	case 'X':
		digits = strings.ToUpper(strconv.FormatUint(u, 16))
	}
	if s.hasPrec {
		if s.prec == 0 && u == 0 {
			digits = ""
		}
		for len(digits) < s.prec {
			digits = "0" + digits
		}
	}
	if s.has('#') && u != 0 {
		switch conv {
		case 'x':
			digits = "0x" + digits
		case 'X':
			digits = "0X" + digits
		case 'o':
			if !strings.HasPrefix(digits, "0") {
				digits = "0" + digits
			}
		}
	} else if s.has('#') && conv == 'o' && digits == "" {
		digits = "0"
	}
	return s.pad(sign+digits, !s.hasPrec)
}

// float formats a double for %e, %E, %f, %g or %G.
func (s spec) float(f float64, conv byte) string {
	prec := 6
	if s.hasPrec {
		prec = s.prec
	}
	body := cFloat(f, conv, prec, s.has('#'))
	finite := !strings.Contains(strings.ToLower(body), "inf") && !strings.Contains(strings.ToLower(body), "nan")
	if body[0] != '-' {
		if s.has('+') {
			body = "+" + body
		} else if s.has(' ') {
			body = " " + body
		}
	}
	return s.pad(body, finite)
}
