package lualib

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/cnum"
	"github.com/scriptctl/scriptctl/internal/lazy"
)

// cjson is lua-cjson 2.1.0 as Redis 7 bundles it: encode and decode, the
// configuration functions, cjson.null and cjson.new.

type cjsonConfig struct {
	sparseConvert  int // 0 or 1
	sparseRatio    int
	sparseSafe     int
	encodeMaxDepth int
	decodeMaxDepth int
	encodeInvalid  int // 0 off, 1 on, 2 null
	decodeInvalid  int // 0 or 1
	keepBuffer     int
	precision      int
}

func defaultCJSONConfig() *cjsonConfig {
	return &cjsonConfig{
		sparseRatio:    2,
		sparseSafe:     10,
		encodeMaxDepth: 1000,
		decodeMaxDepth: 1000,
		decodeInvalid:  1,
		keepBuffer:     1,
		precision:      14,
	}
}

type cjsonLib struct {
	cfg   *cjsonConfig
	null  *lua.LUserData
	order KeyOrder
	view  func(*lua.LTable) *lua.LTable
}

// newCJSON builds the cjson table and returns it with its configuration;
// cjson.new builds more with their own configuration and the same
// cjson.null.
func newCJSON(L *lua.LState, order KeyOrder, view func(*lua.LTable) *lua.LTable) (*lua.LTable, *cjsonConfig) {
	null := L.NewUserData()
	null.Value = nullPointer{}
	return cjsonModule(L, null, order, view)
}

// nullPointer marks cjson.null: lua-cjson's lua_pushlightuserdata(L, NULL),
// a lightuserdata without a metatable (Lua 5.1 has none per value), which
// tostring names "userdata: (nil)", glibc's %p of NULL.
type nullPointer struct{}

// NullName is what tostring gives for cjson.null.
const NullName = "userdata: (nil)"

// IsNull reports whether v is cjson.null, whose tostring is NullName.
func IsNull(v lua.LValue) bool {
	ud, ok := v.(*lua.LUserData)
	if !ok {
		return false
	}
	_, null := ud.Value.(nullPointer)
	return null
}

func cjsonModule(L *lua.LState, null *lua.LUserData, order KeyOrder, view func(*lua.LTable) *lua.LTable) (*lua.LTable, *cjsonConfig) {
	c := &cjsonLib{cfg: defaultCJSONConfig(), null: null, order: order, view: view}
	t := L.NewTable()
	fns := map[string]lua.LGFunction{
		"encode":                  c.encode,
		"decode":                  c.decode,
		"encode_sparse_array":     c.cfgSparseArray,
		"encode_max_depth":        c.cfgInt("encode_max_depth", &c.cfg.encodeMaxDepth, 1, math.MaxInt32),
		"decode_max_depth":        c.cfgInt("decode_max_depth", &c.cfg.decodeMaxDepth, 1, math.MaxInt32),
		"encode_number_precision": c.cfgInt("encode_number_precision", &c.cfg.precision, 1, 14),
		"encode_keep_buffer":      c.cfgEnum("encode_keep_buffer", &c.cfg.keepBuffer, nil),
		"encode_invalid_numbers":  c.cfgEnum("encode_invalid_numbers", &c.cfg.encodeInvalid, []string{"off", "on", "null"}),
		"decode_invalid_numbers":  c.cfgEnum("decode_invalid_numbers", &c.cfg.decodeInvalid, nil),
		"new": func(L *lua.LState) int {
			t, _ := cjsonModule(L, null, order, view)
			L.Push(t)
			return 1
		},
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	t.RawSetString("null", null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	return t, c.cfg
}

// argInit is json_arg_init: at most n arguments, padded with nil.
func argInit(L *lua.LState, n int, fname string) {
	if L.GetTop() > n {
		argError(L, n+1, fname, "found too many arguments")
	}
	for L.GetTop() < n {
		L.Push(lua.LNil)
	}
}

// enumOption is json_enum_option with bool_true 1.
func enumOption(L *lua.LState, idx int, fname string, setting *int, options []string) {
	if options == nil {
		options = []string{"off", "on"}
	}
	if v := L.Get(idx); v != lua.LNil {
		if b, ok := v.(lua.LBool); ok {
			*setting = 0
			if b {
				*setting = 1
			}
		} else {
			s := checkString(L, idx, fname)
			found := -1
			for i, o := range options {
				if o == s {
					found = i
					break
				}
			}
			if found < 0 {
				argError(L, idx, fname, fmt.Sprintf("invalid option '%s'", s))
			}
			*setting = found
		}
	}
	if *setting == 0 || *setting == 1 {
		L.Push(lua.LBool(*setting == 1))
	} else {
		L.Push(lua.LString(options[*setting]))
	}
}

// intOption is json_integer_option (its range error names argument 1, as
// the C code does).
func intOption(L *lua.LState, idx int, fname string, setting *int, min, max int) {
	if L.Get(idx) != lua.LNil {
		v := int(int32(checkInteger(L, idx, fname)))
		if v < min || v > max {
			argError(L, 1, fname, fmt.Sprintf("expected integer between %d and %d", min, max))
		}
		*setting = v
	}
	L.Push(lua.LNumber(*setting))
}

func (c *cjsonLib) cfgEnum(fname string, setting *int, options []string) lua.LGFunction {
	return func(L *lua.LState) int {
		argInit(L, 1, fname)
		enumOption(L, 1, fname, setting, options)
		return 1
	}
}

func (c *cjsonLib) cfgInt(fname string, setting *int, min, max int) lua.LGFunction {
	return func(L *lua.LState) int {
		argInit(L, 1, fname)
		intOption(L, 1, fname, setting, min, max)
		return 1
	}
}

func (c *cjsonLib) cfgSparseArray(L *lua.LState) int {
	const fname = "encode_sparse_array"
	argInit(L, 3, fname)
	enumOption(L, 1, fname, &c.cfg.sparseConvert, nil)
	intOption(L, 2, fname, &c.cfg.sparseRatio, 0, math.MaxInt32)
	intOption(L, 3, fname, &c.cfg.sparseSafe, 0, math.MaxInt32)
	return 3
}

// ===== encoding =====

func (c *cjsonLib) encode(L *lua.LState) int {
	if L.GetTop() != 1 {
		argError(L, 1, "encode", "expected 1 argument")
	}
	var b []byte
	b = c.appendData(L, b, L.Get(1), 0)
	L.Push(lua.LString(b))
	return 1
}

func encodeError(L *lua.LState, v lua.LValue, reason string) {
	raise(L, "Cannot serialise %s: %s", v.Type().String(), reason)
}

// cjsonEscapes is what cjson writes for each byte that it escapes: a
// literal, laid out by the compiler (no code runs at start).
var cjsonEscapes = [256]string{
	0x00: `\u0000`, 0x01: `\u0001`, 0x02: `\u0002`, 0x03: `\u0003`,
	0x04: `\u0004`, 0x05: `\u0005`, 0x06: `\u0006`, 0x07: `\u0007`,
	0x0b: `\u000b`, 0x0e: `\u000e`, 0x0f: `\u000f`, 0x10: `\u0010`,
	0x11: `\u0011`, 0x12: `\u0012`, 0x13: `\u0013`, 0x14: `\u0014`,
	0x15: `\u0015`, 0x16: `\u0016`, 0x17: `\u0017`, 0x18: `\u0018`,
	0x19: `\u0019`, 0x1a: `\u001a`, 0x1b: `\u001b`, 0x1c: `\u001c`,
	0x1d: `\u001d`, 0x1e: `\u001e`, 0x1f: `\u001f`,
	'\b': `\b`, '\t': `\t`, '\n': `\n`, '\f': `\f`, '\r': `\r`,
	'"': `\"`, '\\': `\\`, '/': `\/`, 127: `\u007f`,
}

func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if e := cjsonEscapes[s[i]]; e != "" {
			b = append(b, e...)
		} else {
			b = append(b, s[i])
		}
	}
	return append(b, '"')
}

func (c *cjsonLib) appendNumber(L *lua.LState, b []byte, v lua.LValue, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		switch c.cfg.encodeInvalid {
		case 0:
			encodeError(L, v, "must not be NaN or Inf")
		case 1:
			if math.IsNaN(f) {
				return append(b, "nan"...)
			}
		default:
			return append(b, "null"...)
		}
	}
	return append(b, formatG(f, c.cfg.precision)...)
}

func (c *cjsonLib) appendData(L *lua.LState, b []byte, v lua.LValue, depth int) []byte {
	switch x := v.(type) {
	case lua.LString:
		return appendJSONString(b, string(x))
	case lua.LNumber:
		return c.appendNumber(L, b, x, float64(x))
	case lua.LBool:
		if x {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case *lua.LTable:
		x = viewOf(c.view, x)
		depth++
		if depth > c.cfg.encodeMaxDepth {
			raise(L, "Cannot serialise, excessive nesting (%d)", depth)
		}
		if n := c.arrayLength(L, x); n > 0 {
			b = append(b, '[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					b = append(b, ',')
				}
				b = c.appendData(L, b, RawGetInt(x, i), depth)
			}
			return append(b, ']')
		}
		b = append(b, '{')
		first := true
		for k, val := range c.order.Pairs(x) {
			if !first {
				b = append(b, ',')
			}
			first = false
			switch kk := k.(type) {
			case lua.LNumber:
				b = append(b, '"')
				b = c.appendNumber(L, b, kk, float64(kk))
				b = append(b, '"', ':')
			case lua.LString:
				b = appendJSONString(b, string(kk))
				b = append(b, ':')
			default:
				encodeError(L, k, "table key must be a number or string")
			}
			b = c.appendData(L, b, val, depth)
		}
		return append(b, '}')
	case *lua.LNilType:
		return append(b, "null"...)
	case *lua.LUserData:
		if x == c.null {
			return append(b, "null"...)
		}
	}
	encodeError(L, v, "type not supported")
	return b
}

// arrayLength is lua_array_length: the largest index when every key is a
// positive integer, -1 for an object (or a sparse array encoded as one).
// The largest index is a C int: an index past 2^31-1 converts to INT_MIN
// on x86-64, so the keys are walked in lua_next's order (Lua 5.1's), as
// what follows such a key decides: a smaller index after it sets the
// length again (the keys past 2^31-1 then fall out of the array), a larger
// one leaves INT_MIN, which makes the table an object.
//
// The order only matters then: a key that is not a positive integer makes
// the table an object wherever it comes, so the keys are first checked in
// gopher-lua's order, which costs no replay of the table's layout.
func (c *cjsonLib) arrayLength(L *lua.LState, t *lua.LTable) int {
	max, items, past := int32(0), 0, false
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		f := float64(n)
		if !ok || f == 0 || math.Floor(f) != f || f < 1 {
			return -1
		}
		past = past || f > math.MaxInt32
		max = int32(math.Max(float64(max), math.Min(f, math.MaxInt32)))
		items++
	}
	if past {
		max = 0
		for k := range c.order.Pairs(t) {
			if f := float64(k.(lua.LNumber)); f > float64(max) {
				max = cInt32(f)
			}
		}
	}
	if c.cfg.sparseRatio > 0 && int64(max) > int64(items)*int64(c.cfg.sparseRatio) && int(max) > c.cfg.sparseSafe {
		if c.cfg.sparseConvert == 0 {
			encodeError(L, t, "excessively sparse array")
		}
		return -1
	}
	return int(max)
}

// cInt32 is a C conversion from double to int on x86-64: truncation, and
// INT_MIN when out of range.
func cInt32(f float64) int32 {
	if f != f || f >= 2147483648 || f <= -2147483649 {
		return math.MinInt32
	}
	return int32(f)
}

// ===== decoding =====

type jsonToken int

const (
	tObjBegin jsonToken = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tWhitespace
	tError
	tUnknown
)

var jsonTokenNames = [...]string{
	"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
	"T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END",
	"T_WHITESPACE", "T_ERROR", "T_UNKNOWN",
}

// ch2token is built on first use (not at start).
var ch2token = lazy.Value[*[256]jsonToken]{New: func() *[256]jsonToken {
	t := new([256]jsonToken)
	for i := range t {
		t[i] = tError
	}
	t['{'] = tObjBegin
	t['}'] = tObjEnd
	t['['] = tArrBegin
	t[']'] = tArrEnd
	t[','] = tComma
	t[':'] = tColon
	t[0] = tEnd
	t[' '] = tWhitespace
	t['\t'] = tWhitespace
	t['\n'] = tWhitespace
	t['\r'] = tWhitespace
	for _, ch := range "fiInNt\"+-0123456789" {
		t[ch] = tUnknown
	}
	return t
}}

var escape2char = [256]byte{
	'"': '"', '\\': '\\', '/': '/', 'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', 'u': 'u',
}

type token struct {
	typ   jsonToken
	index int
	str   string // tString text, tError reason
	num   float64
	b     bool
}

type jsonParser struct {
	L     *lua.LState
	c     *cjsonLib
	data  string
	ptr   int
	depth int
}

// at returns the byte at i, or 0 past the end: the C parser reads a
// NUL-terminated string.
func (p *jsonParser) at(i int) byte {
	if i < len(p.data) {
		return p.data[i]
	}
	return 0
}

func (p *jsonParser) errToken(t *token, reason string) {
	t.typ = tError
	t.index = p.ptr
	t.str = reason
}

func (p *jsonParser) next(t *token) {
	t.typ = ch2token.Get()[p.at(p.ptr)]
	for t.typ == tWhitespace {
		p.ptr++
		t.typ = ch2token.Get()[p.at(p.ptr)]
	}
	t.index = p.ptr
	switch t.typ {
	case tError:
		p.errToken(t, "invalid token")
		return
	case tEnd:
		return
	case tUnknown:
	default:
		p.ptr++
		return
	}
	ch := p.at(p.ptr)
	rest := p.data[p.ptr:]
	switch {
	case ch == '"':
		p.stringToken(t)
	case ch == '-' || isDigit(ch):
		if p.c.cfg.decodeInvalid == 0 && p.invalidNumber() {
			p.errToken(t, "invalid number")
			return
		}
		p.numberToken(t)
	case len(rest) >= 4 && rest[:4] == "true":
		t.typ, t.b = tBoolean, true
		p.ptr += 4
	case len(rest) >= 5 && rest[:5] == "false":
		t.typ, t.b = tBoolean, false
		p.ptr += 5
	case len(rest) >= 4 && rest[:4] == "null":
		t.typ = tNull
		p.ptr += 4
	case p.c.cfg.decodeInvalid != 0 && p.invalidNumber():
		p.numberToken(t)
	default:
		p.errToken(t, "invalid token")
	}
}

// invalidNumber is json_is_invalid_number: numbers strtod accepts that
// strict JSON does not.
func (p *jsonParser) invalidNumber() bool {
	i := p.ptr
	if p.at(i) == '+' {
		return true
	}
	if p.at(i) == '-' {
		i++
	}
	if p.at(i) == '0' {
		ch2 := p.at(i + 1)
		return ch2|0x20 == 'x' || isDigit(ch2)
	}
	if p.at(i) <= '9' || p.at(i) >= 0x80 { // C char is signed
		return false
	}
	rest := p.data[i:]
	return hasPrefixFold(rest, "inf") || hasPrefixFold(rest, "nan")
}

func (p *jsonParser) numberToken(t *token) {
	s := p.data[p.ptr:]
	if i := indexNUL(s); i >= 0 {
		s = s[:i]
	}
	f, n := cnum.Strtod(s)
	t.typ = tNumber
	if n == 0 {
		p.errToken(t, "invalid number")
		return
	}
	t.num = f
	p.ptr += n
}

func indexNUL(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}

func hex4(p *jsonParser, i int) int {
	v := 0
	for k := 0; k < 4; k++ {
		c := p.at(i + k)
		var d int
		switch {
		case isDigit(c):
			d = int(c - '0')
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			d = int(c|0x20-'a') + 10
		default:
			return -1
		}
		v = v<<4 | d
	}
	return v
}

func (p *jsonParser) unicodeEscape(buf []byte) ([]byte, bool) {
	cp := hex4(p, p.ptr+2)
	if cp < 0 {
		return buf, false
	}
	escLen := 6
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 {
			return buf, false
		}
		if p.at(p.ptr+6) != '\\' || p.at(p.ptr+7) != 'u' {
			return buf, false
		}
		lo := hex4(p, p.ptr+8)
		if lo < 0 || lo&0xFC00 != 0xDC00 {
			return buf, false
		}
		cp = ((cp&0x3FF)<<10 | lo&0x3FF) + 0x10000
		escLen = 12
	}
	switch {
	case cp <= 0x7F:
		buf = append(buf, byte(cp))
	case cp <= 0x7FF:
		buf = append(buf, byte(cp>>6|0xC0), byte(cp&0x3F|0x80))
	case cp <= 0xFFFF:
		buf = append(buf, byte(cp>>12|0xE0), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	default:
		buf = append(buf, byte(cp>>18|0xF0), byte(cp>>12&0x3F|0x80), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	}
	p.ptr += escLen
	return buf, true
}

func (p *jsonParser) stringToken(t *token) {
	p.ptr++ // opening quote
	var buf []byte
	for {
		ch := p.at(p.ptr)
		if ch == '"' {
			break
		}
		if ch == 0 {
			p.errToken(t, "unexpected end of string")
			return
		}
		if ch == '\\' {
			ch = escape2char[p.at(p.ptr+1)]
			if ch == 'u' {
				var ok bool
				if buf, ok = p.unicodeEscape(buf); ok {
					continue
				}
				p.errToken(t, "invalid unicode escape code")
				return
			}
			if ch == 0 {
				p.errToken(t, "invalid escape code")
				return
			}
			p.ptr++
		}
		buf = append(buf, ch)
		p.ptr++
	}
	p.ptr++ // closing quote
	t.typ = tString
	t.str = string(buf)
}

func (p *jsonParser) throw(expected string, t *token) {
	found := jsonTokenNames[t.typ]
	if t.typ == tError {
		found = t.str
	}
	raise(p.L, "Expected %s but found %s at character %d", expected, found, t.index+1)
}

func (p *jsonParser) descend() {
	p.depth++
	if p.depth > p.c.cfg.decodeMaxDepth {
		raise(p.L, "Found too many nested data structures (%d) at character %d", p.depth, p.ptr)
	}
}

func (p *jsonParser) object() lua.LValue {
	p.descend()
	tb := p.L.NewTable()
	var t token
	p.next(&t)
	if t.typ == tObjEnd {
		p.depth--
		return tb
	}
	for {
		if t.typ != tString {
			p.throw("object key string", &t)
		}
		key := t.str
		p.next(&t)
		if t.typ != tColon {
			p.throw("colon", &t)
		}
		p.next(&t)
		tb.RawSetString(key, p.value(&t))
		p.next(&t)
		if t.typ == tObjEnd {
			p.depth--
			return tb
		}
		if t.typ != tComma {
			p.throw("comma or object end", &t)
		}
		p.next(&t)
	}
}

func (p *jsonParser) array() lua.LValue {
	p.descend()
	tb := p.L.NewTable()
	var t token
	p.next(&t)
	if t.typ == tArrEnd {
		p.depth--
		return tb
	}
	for i := 1; ; i++ {
		tb.RawSetInt(i, p.value(&t))
		p.next(&t)
		if t.typ == tArrEnd {
			p.depth--
			return tb
		}
		if t.typ != tComma {
			p.throw("comma or array end", &t)
		}
		p.next(&t)
	}
}

func (p *jsonParser) value(t *token) lua.LValue {
	switch t.typ {
	case tString:
		return lua.LString(t.str)
	case tNumber:
		return lua.LNumber(t.num)
	case tBoolean:
		return lua.LBool(t.b)
	case tObjBegin:
		return p.object()
	case tArrBegin:
		return p.array()
	case tNull:
		return p.c.null
	}
	p.throw("value", t)
	return lua.LNil
}

func (c *cjsonLib) decode(L *lua.LState) int {
	if L.GetTop() != 1 {
		argError(L, 1, "decode", "expected 1 argument")
	}
	data := checkString(L, 1, "decode")
	if len(data) >= 2 && (data[0] == 0 || data[1] == 0) {
		raise(L, "JSON parser does not support UTF-16 or UTF-32")
	}
	p := &jsonParser{L: L, c: c, data: data}
	var t token
	p.next(&t)
	v := p.value(&t)
	p.next(&t)
	if t.typ != tEnd {
		p.throw("the end", &t)
	}
	L.Push(v)
	return 1
}
