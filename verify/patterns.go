package verify

import (
	"bytes"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1's pattern matching (lstrlib.c), byte for byte: string.find,
// string.match, string.gmatch and string.gsub. gopher-lua's own engine
// lacks %f, words its errors differently and decodes UTF-8.

const (
	maxCaptures   = 32
	capUnfinished = -1
	capPosition   = -2
)

type matchState struct {
	r      *scriptRun
	L      *lua.LState
	src    string
	pat    string
	level  int
	capt   [maxCaptures]struct{ init, len int }
	steps  int
	maxRec int
}

// at returns the pattern byte at i, 0 past its end (C's terminator).
func (ms *matchState) p(i int) byte {
	if i < len(ms.pat) {
		return ms.pat[i]
	}
	return 0
}

// s returns the subject byte at i, 0 past its end.
func (ms *matchState) s(i int) byte {
	if i < len(ms.src) {
		return ms.src[i]
	}
	return 0
}

func (ms *matchState) tick() {
	ms.steps++
	if ms.steps&0xfff == 0 && ms.r.ctx.step(0x1000) {
		ms.r.fail(ms.L, ms.r.e.stopError(ms.r.ctx.Err(), ms.r.ctx.limit))
	}
}

func (ms *matchState) checkCapture(l int) int {
	l -= '1'
	if l < 0 || l >= ms.level || ms.capt[l].len == capUnfinished {
		ms.L.RaiseError("invalid capture index")
	}
	return l
}

func (ms *matchState) captureToClose() int {
	for level := ms.level - 1; level >= 0; level-- {
		if ms.capt[level].len == capUnfinished {
			return level
		}
	}
	ms.L.RaiseError("invalid pattern capture")
	return 0
}

func (ms *matchState) classEnd(p int) int {
	c := ms.p(p)
	p++
	switch c {
	case '%':
		if ms.p(p) == 0 {
			ms.L.RaiseError("%s", "malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		if ms.p(p) == '^' {
			p++
		}
		for {
			if ms.p(p) == 0 {
				ms.L.RaiseError("malformed pattern (missing ']')")
			}
			c := ms.p(p)
			p++
			if c == '%' && ms.p(p) != 0 {
				p++
			}
			if ms.p(p) == ']' {
				break
			}
		}
		return p + 1
	}
	return p
}

func isLower(c byte) bool  { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool  { return c >= 'A' && c <= 'Z' }
func isAlphaC(c byte) bool { return isLower(c) || isUpper(c) }
func isDigitC(c byte) bool { return c >= '0' && c <= '9' }
func isSpaceC(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }
func isCntrl(c byte) bool  { return c < 32 || c == 127 }
func isPunct(c byte) bool {
	return c > 32 && c < 127 && !isAlphaC(c) && !isDigitC(c)
}
func isXDigit(c byte) bool {
	return isDigitC(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func matchClass(c, cl byte) bool {
	var res bool
	lower := cl
	if isUpper(cl) {
		lower = cl + 32
	}
	switch lower {
	case 'a':
		res = isAlphaC(c)
	case 'c':
		res = isCntrl(c)
	case 'd':
		res = isDigitC(c)
	case 'l':
		res = isLower(c)
	case 'p':
		res = isPunct(c)
	case 's':
		res = isSpaceC(c)
	case 'u':
		res = isUpper(c)
	case 'w':
		res = isAlphaC(c) || isDigitC(c)
	case 'x':
		res = isXDigit(c)
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if isUpper(cl) {
		return !res
	}
	return res
}

// matchBracketClass: p at '[', ec at the closing ']'.
func (ms *matchState) matchBracketClass(c byte, p, ec int) bool {
	sig := true
	if ms.p(p+1) == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case ms.p(p) == '%':
			p++
			if matchClass(c, ms.p(p)) {
				return sig
			}
		case ms.p(p+1) == '-' && p+2 < ec:
			p += 2
			if ms.p(p-2) <= c && c <= ms.p(p) {
				return sig
			}
		case ms.p(p) == c:
			return sig
		}
	}
	return !sig
}

func (ms *matchState) singleMatch(c byte, p, ep int) bool {
	switch ms.p(p) {
	case '.':
		return true
	case '%':
		return matchClass(c, ms.p(p+1))
	case '[':
		return ms.matchBracketClass(c, p, ep-1)
	}
	return ms.p(p) == c
}

func (ms *matchState) matchBalance(s, p int) int {
	if ms.p(p) == 0 || ms.p(p+1) == 0 {
		ms.L.RaiseError("unbalanced pattern")
	}
	if s >= len(ms.src) || ms.src[s] != ms.p(p) {
		return -1
	}
	b, e := ms.p(p), ms.p(p+1)
	cont := 1
	for s++; s < len(ms.src); s++ {
		switch ms.src[s] {
		case e:
			cont--
			if cont == 0 {
				return s + 1
			}
		case b:
			cont++
		}
	}
	return -1
}

func (ms *matchState) maxExpand(s, p, ep int) int {
	i := 0
	for s+i < len(ms.src) && ms.singleMatch(ms.src[s+i], p, ep) {
		i++
	}
	for ; i >= 0; i-- {
		if res := ms.match(s+i, ep+1); res >= 0 {
			return res
		}
	}
	return -1
}

func (ms *matchState) minExpand(s, p, ep int) int {
	for {
		if res := ms.match(s, ep+1); res >= 0 {
			return res
		}
		if s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep) {
			s++
		} else {
			return -1
		}
	}
}

func (ms *matchState) startCapture(s, p, what int) int {
	level := ms.level
	if level >= maxCaptures {
		ms.L.RaiseError("too many captures")
	}
	ms.capt[level].init = s
	ms.capt[level].len = what
	ms.level = level + 1
	res := ms.match(s, p)
	if res < 0 {
		ms.level--
	}
	return res
}

func (ms *matchState) endCapture(s, p int) int {
	l := ms.captureToClose()
	ms.capt[l].len = s - ms.capt[l].init
	res := ms.match(s, p)
	if res < 0 {
		ms.capt[l].len = capUnfinished
	}
	return res
}

func (ms *matchState) matchCapture(s int, l int) int {
	l = ms.checkCapture(l)
	n := ms.capt[l].len
	if n < 0 { // a position capture: C compares as a huge size_t
		return -1
	}
	if len(ms.src)-s >= n && ms.src[ms.capt[l].init:ms.capt[l].init+n] == ms.src[s:s+n] {
		return s + n
	}
	return -1
}

// match returns the end of the match of the pattern from p against the
// subject from s, or -1.
func (ms *matchState) match(s, p int) int {
	ms.tick()
	ms.maxRec++
	defer func() { ms.maxRec-- }()
	if ms.maxRec > 200000 {
		ms.r.fail(ms.L, &RunError{Code: CodeStackOverflow, Msg: "pattern recursion exceeded the offline limit"})
	}
	for {
		switch ms.p(p) {
		case '(':
			if ms.p(p+1) == ')' {
				return ms.startCapture(s, p+2, capPosition)
			}
			return ms.startCapture(s, p+1, capUnfinished)
		case ')':
			return ms.endCapture(s, p+1)
		case 0:
			return s
		case '%':
			switch ms.p(p + 1) {
			case 'b':
				s = ms.matchBalance(s, p+2)
				if s < 0 {
					return -1
				}
				p += 4
				continue
			case 'f':
				p += 2
				if ms.p(p) != '[' {
					ms.L.RaiseError("%s", "missing '[' after '%f' in pattern")
				}
				ep := ms.classEnd(p)
				var prev byte
				if s > 0 {
					prev = ms.src[s-1]
				}
				if ms.matchBracketClass(prev, p, ep-1) || !ms.matchBracketClass(ms.s(s), p, ep-1) {
					return -1
				}
				p = ep
				continue
			}
			if isDigitC(ms.p(p + 1)) {
				s = ms.matchCapture(s, int(ms.p(p+1)))
				if s < 0 {
					return -1
				}
				p += 2
				continue
			}
		case '$':
			if ms.p(p+1) == 0 {
				if s == len(ms.src) {
					return s
				}
				return -1
			}
		}
		// A single-character class and its repetition.
		ep := ms.classEnd(p)
		m := s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep)
		switch ms.p(ep) {
		case '?':
			if m {
				if res := ms.match(s+1, ep+1); res >= 0 {
					return res
				}
			}
			p = ep + 1
			continue
		case '*':
			return ms.maxExpand(s, p, ep)
		case '+':
			if m {
				return ms.maxExpand(s+1, p, ep)
			}
			return -1
		case '-':
			return ms.minExpand(s, p, ep)
		}
		if !m {
			return -1
		}
		s++
		p = ep
	}
}

// capture returns capture i of a match of [s, e).
func (ms *matchState) capture(i, s, e int) lua.LValue {
	if i >= ms.level {
		if i == 0 {
			return lua.LString(ms.src[s:e])
		}
		ms.L.RaiseError("invalid capture index")
	}
	c := ms.capt[i]
	switch c.len {
	case capUnfinished:
		ms.L.RaiseError("unfinished capture")
	case capPosition:
		return lua.LNumber(c.init + 1)
	}
	return lua.LString(ms.src[c.init : c.init+c.len])
}

// pushCaptures pushes the captures (or the whole match when there are none
// and whole is set) and returns how many.
func (ms *matchState) pushCaptures(s, e int, whole bool) int {
	n := ms.level
	if n == 0 && whole {
		n = 1
	}
	for i := 0; i < n; i++ {
		ms.L.Push(ms.capture(i, s, e))
	}
	return n
}

func posrelat(pos, n int) int { return int(posrelat64(int64(pos), int64(n))) }

func (r *scriptRun) newMatch(L *lua.LState, src, pat string) *matchState {
	return &matchState{r: r, L: L, src: src, pat: cString(pat)}
}

func (r *scriptRun) strFindAux(L *lua.LState, find bool) int {
	s := L.CheckString(1)
	p := L.CheckString(2)
	init := posrelat(int(optInteger(L, 3, 1)), len(s)) - 1
	if init < 0 {
		init = 0
	} else if init > len(s) {
		init = len(s)
	}
	if find && (lua.LVAsBool(L.Get(4)) || !strings.ContainsAny(cString(p), "^$*+?.([%-")) {
		if i := bytes.Index([]byte(s[init:]), []byte(p)); i >= 0 {
			L.Push(lua.LNumber(init + i + 1))
			L.Push(lua.LNumber(init + i + len(p)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	ms := r.newMatch(L, s, p)
	pi := 0
	anchor := ms.p(0) == '^'
	if anchor {
		pi = 1
	}
	for s1 := init; ; s1++ {
		ms.level = 0
		if e := ms.match(s1, pi); e >= 0 {
			if find {
				L.Push(lua.LNumber(s1 + 1))
				L.Push(lua.LNumber(e))
				return ms.pushCaptures(-1, -1, false) + 2
			}
			return ms.pushCaptures(s1, e, true)
		}
		if s1 >= len(s) || anchor {
			break
		}
	}
	L.Push(lua.LNil)
	return 1
}

func (r *scriptRun) strGmatch(L *lua.LState) int {
	s := L.CheckString(1)
	p := L.CheckString(2)
	pos := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		ms := r.newMatch(L, s, p)
		for src := pos; src <= len(s); src++ {
			ms.level = 0
			if e := ms.match(src, 0); e >= 0 {
				pos = e
				if e == src {
					pos++
				}
				return ms.pushCaptures(src, e, true)
			}
		}
		return 0
	}))
	return 1
}

func (r *scriptRun) strGsub(L *lua.LState) int {
	src := L.CheckString(1)
	p := L.CheckString(2)
	repl := L.Get(3)
	switch repl.(type) {
	case lua.LString, lua.LNumber, *lua.LFunction, *lua.LTable:
	default:
		L.ArgError(3, "string/function/table expected")
	}
	maxS := optInt(L, 4, len(src)+1)
	ms := r.newMatch(L, src, p)
	pi := 0
	anchor := ms.p(0) == '^'
	if anchor {
		pi = 1
	}
	var b strings.Builder
	built := building{r: r, L: L}
	n := 0
	s := 0
	for n < maxS {
		ms.level = 0
		e := ms.match(s, pi)
		if e >= 0 {
			n++
			r.addValue(ms, &b, s, e, repl)
		}
		switch {
		case e >= 0 && e > s:
			s = e
		case s < len(src):
			b.WriteByte(src[s])
			s++
		default:
			goto done
		}
		built.reached(b.Len())
		if anchor {
			break
		}
	}
done:
	b.WriteString(src[s:])
	built.done(b.Len())
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(n))
	return 2
}

func (r *scriptRun) addValue(ms *matchState, b *strings.Builder, s, e int, repl lua.LValue) {
	L := ms.L
	var v lua.LValue
	switch x := repl.(type) {
	case lua.LString, lua.LNumber:
		news, _ := concatString(x)
		for i := 0; i < len(news); i++ {
			c := news[i]
			if c != '%' {
				b.WriteByte(c)
				continue
			}
			i++
			var d byte // C's terminator after a trailing %
			if i < len(news) {
				d = news[i]
			}
			switch {
			case !isDigitC(d):
				b.WriteByte(d)
			case d == '0':
				b.WriteString(ms.src[s:e])
			default:
				cv := ms.capture(int(d-'1'), s, e)
				cs, _ := concatString(cv)
				b.WriteString(cs)
			}
		}
		return
	case *lua.LFunction:
		L.Push(x)
		n := ms.pushCaptures(s, e, true)
		L.Call(n, 1)
		v = L.Get(-1)
		L.Pop(1)
	case *lua.LTable:
		v = L.GetTable(x, ms.capture(0, s, e))
	}
	if !lua.LVAsBool(v) {
		b.WriteString(ms.src[s:e])
		return
	}
	str, ok := concatString(v)
	if !ok {
		L.RaiseError("invalid replacement value (a %s)", luaTypeName(v))
	}
	b.WriteString(str)
}
