package keyspace

import (
	"errors"
	"github.com/scriptctl/scriptctl/internal/pqsort"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/slot"
)

// SORT and SORT_RO (sort.c).

func registerSort() {
	registerIn("sort", sortKeys, func(e *Server, sc Script, a []string) (Reply, error) { return sortGeneric(e, sc, a, false) })
	registerIn("sort_ro", firstKey, func(e *Server, sc Script, a []string) (Reply, error) { return sortGeneric(e, sc, a, true) })
}

// sortKeys is sortGetKeys: the sorted key and the last STORE destination,
// skipping the arguments of LIMIT, GET and BY.
func sortKeys(args []string) []string {
	keys := args[1:2]
	store, found := "", false
	for i := 2; i < len(args); i++ {
		switch strings.ToLower(args[i]) {
		case "limit":
			i += 2
		case "get", "by":
			i++
		case "store":
			if i+1 < len(args) {
				store, found = args[i+1], true
			}
		}
	}
	if found {
		return []string{args[1], store}
	}
	return keys
}

// sortOptions are SORT's parsed arguments.
type sortOptions struct {
	desc, alpha, dontsort bool
	start, count          int64
	by                    string
	hasBy                 bool
	store                 string
	hasStore              bool
	gets                  []string
}

// parseSortOptions parses SORT's options in Redis's order; STORE is a
// syntax error for SORT_RO.
// On a cluster a BY or GET pattern may be refused (sortPatternRefused).
func parseSortOptions(e *Server, a []string, readonly bool) (sortOptions, *Reply) {
	o := sortOptions{count: -1}
	for j := 2; j < len(a); j++ {
		left := len(a) - j - 1
		switch opt := strings.ToLower(a[j]); {
		case opt == "asc":
			o.desc = false
		case opt == "desc":
			o.desc = true
		case opt == "alpha":
			o.alpha = true
		case opt == "limit" && left >= 2:
			var ok1, ok2 bool
			o.start, ok1 = parseInt(a[j+1])
			if ok1 {
				o.count, ok2 = parseInt(a[j+2])
			}
			if !ok1 || !ok2 {
				return o, &errNotInt
			}
			j += 2
		case opt == "store" && left >= 1 && !readonly:
			o.store, o.hasStore = a[j+1], true
			j++
		case opt == "by" && left >= 1:
			o.by, o.hasBy = a[j+1], true
			// A pattern without '*' is constant: nothing to sort by.
			if !strings.Contains(cTrunc(a[j+1]), "*") {
				o.dontsort = true
			} else if msg := e.sortPatternRefused("BY", a[j+1], a[1]); msg != "" {
				r := ErrorReply(msg)
				return o, &r
			}
			j++
		case opt == "get" && left >= 1:
			if msg := e.sortPatternRefused("GET", a[j+1], a[1]); msg != "" {
				r := ErrorReply(msg)
				return o, &r
			}
			o.gets = append(o.gets, a[j+1])
			j++
		default:
			return o, &errSyntax
		}
	}
	return o, nil
}

// sortItem is one element to sort with what it sorts by.
type sortItem struct {
	elem    string
	score   float64
	cmp     string // ALPHA with BY: the looked-up value
	cmpNull bool   // ALPHA with BY: the lookup found nothing
}

func sortGeneric(e *Server, sc Script, a []string, readonly bool) (Reply, error) {
	o, errr := parseSortOptions(e, a, readonly)
	if errr != nil {
		return *errr, nil
	}
	v := e.db.get(a[1])
	if v != nil && v.kind != kindList && v.kind != kindSet && v.kind != kindZSet {
		return errWrongType, nil
	}
	if o.dontsort && v != nil && v.kind == kindSet && (o.hasStore || sc != nil) {
		// A set's order is its hash table's: Redis sorts it (ALPHA) so that
		// scripts and replicas see one order.
		o.dontsort, o.alpha, o.hasBy = false, true, false
	}
	items, start, end := sortVector(e, v, &o)
	if !o.dontsort {
		bad, err := sortScores(e, sc, items, &o)
		if err != nil {
			return Reply{}, err
		}
		sortItems(items, &o, start, end)
		if bad {
			return ErrorReply("ERR One or more scores can't be converted into double"), nil
		}
	}
	var out []Reply
	var stored []string
	for j := start; j <= end; j++ {
		if len(o.gets) == 0 {
			out = append(out, BulkReply(items[j].elem))
			stored = append(stored, items[j].elem)
		}
		for _, pat := range o.gets {
			val, ok, err := sortLookup(e, sc, a[0], pat, items[j].elem)
			if err != nil {
				return Reply{}, err
			}
			if ok {
				out = append(out, BulkReply(val))
			} else {
				out = append(out, NilReply())
			}
			stored = append(stored, val)
		}
	}
	if !o.hasStore {
		return ArrayReply(out...), nil
	}
	if len(stored) == 0 {
		e.db.del(o.store)
		return IntReply(0), nil
	}
	l := newListFor(e)
	l.quick = true // createQuicklistObject, then LIST_CONV_AUTO
	for _, s := range stored {
		l.pushBack(s)
	}
	l.shrinking(false)
	e.db.keys[o.store] = &value{kind: kindList, list: l}
	return IntReply(int64(len(stored))), nil
}

// sortVector loads the elements to sort and the range [start, end] of them
// to answer (sort.c's LIMIT arithmetic). Without sorting, a list or sorted
// set loads only that range, in its own order (reversed by DESC).
func sortVector(e *Server, v *value, o *sortOptions) (items []sortItem, start, end int) {
	var elems []string
	kind := kindList
	if v != nil {
		kind = v.kind
		switch kind {
		case kindList:
			elems = v.list.items()
		case kindSet:
			elems = v.set.members()
			if o.dontsort && len(elems) > 1 && v.set.encoding() != "intset" {
				e.warn("SORT BY without sorting a set: Redis answers in its hash table's order (seeded at server start)")
			}
		case kindZSet:
			for _, m := range v.zset.all() {
				elems = append(elems, m.Member)
			}
		}
	}
	n := int64(len(elems))
	s := min(max(o.start, 0), n)
	count := min(max(o.count, -1), n)
	f := n - 1
	if count >= 0 {
		f = s + count - 1
	}
	if s >= n {
		s, f = n-1, n-2
	}
	f = min(f, n-1)
	if o.dontsort && kind != kindSet {
		// Only the range, in the value's order or reversed.
		var out []sortItem
		for i := s; i <= f; i++ {
			idx := i
			if o.desc {
				idx = n - 1 - i
			}
			out = append(out, sortItem{elem: elems[idx]})
		}
		return out, 0, int(f - s)
	}
	items = make([]sortItem, len(elems))
	for i, el := range elems {
		items[i].elem = el
	}
	return items, int(s), int(f)
}

// sortScores looks up what each element sorts by; bad reports a value that
// is not a number (numeric sort).
func sortScores(e *Server, sc Script, items []sortItem, o *sortOptions) (bad bool, err error) {
	for i := range items {
		by := items[i].elem
		if o.hasBy {
			val, ok, err := sortLookup(e, sc, "sort", o.by, items[i].elem)
			if err != nil {
				return false, err
			}
			if !ok {
				items[i].cmpNull = true
				continue
			}
			by = val
		}
		if o.alpha {
			items[i].cmp = by
			continue
		}
		f, ok := sortStrtod(e, by)
		if !ok {
			bad = true
		}
		items[i].score = f
	}
	return bad, nil
}

// sortItems sorts like sortCompare. Numeric ties fall back to comparing the
// elements, so the order is total; ALPHA compares with strcoll (C strings:
// bytes up to the first NUL; the server's locale is assumed to be C or
// C.UTF-8, whose collation is byte order) unless STORE is given. Elements
// that still compare equal (equal BY weights, missing ones, strings equal
// up to a NUL) land where the server's sort puts them: sort.c calls
// pqsort, Redis's partial quicksort, when BY is given and LIMIT leaves out
// some elements (start..end is not the whole vector), and the C library's
// qsort otherwise, which glibc runs as a stable merge sort.
func sortItems(items []sortItem, o *sortOptions, start, end int) {
	text := func(s string) string {
		if o.hasStore {
			return s
		}
		return cTrunc(s)
	}
	cmp := func(x, y *sortItem) int {
		c := 0
		switch {
		case !o.alpha:
			if x.score != y.score {
				if x.score > y.score {
					c = 1
				} else {
					c = -1
				}
			} else {
				c = strings.Compare(x.elem, y.elem)
			}
		case o.hasBy && (x.cmpNull || y.cmpNull):
			switch {
			case x.cmpNull && y.cmpNull:
				c = 0
			case x.cmpNull:
				c = -1
			default:
				c = 1
			}
		case o.hasBy:
			c = strings.Compare(text(x.cmp), text(y.cmp))
		default:
			c = strings.Compare(text(x.elem), text(y.elem))
		}
		if o.desc {
			c = -c
		}
		return c
	}
	if o.hasBy && (start != 0 || end != len(items)-1) {
		pqsort.Sort(len(items), func(i, j int) int { return cmp(&items[i], &items[j]) },
			func(i, j int) { items[i], items[j] = items[j], items[i] }, start, end)
		return
	}
	sort.SliceStable(items, func(i, j int) bool { return cmp(&items[i], &items[j]) < 0 })
}

// sortLookup is lookupKeyByPattern: "#" is the element itself; otherwise
// the first '*' of the pattern is replaced by the element, and "->field"
// after it reads a hash field instead of a string. Only the part before a
// NUL byte is searched, as in C. In a script a key not in KEYS is a
// Finding (a RunError under StrictKeys).
func sortLookup(e *Server, sc Script, cmd, pat, elem string) (string, bool, error) {
	cpat := cTrunc(pat)
	if cpat == "#" {
		return elem, true, nil
	}
	star := strings.IndexByte(cpat, '*')
	if star < 0 {
		return "", false, nil
	}
	field, hasField := "", false
	if f := strings.Index(cpat[star+1:], "->"); f >= 0 && star+1+f+2 < len(cpat) {
		f += star + 1
		field, hasField = pat[f+2:], true
	}
	post := len(pat) - star - 1
	if hasField {
		post -= len(field) + 2
	}
	key := pat[:star] + elem + pat[star+1:star+1+post]
	if sc != nil && !sc.Declared(key) {
		if re := sc.Undeclared(key, cmd); re != nil {
			return "", false, re
		}
	}
	v := e.db.get(key)
	switch {
	case v == nil:
		return "", false, nil
	case hasField && v.kind == kindHash:
		val, ok := v.hash.get(field)
		return val, ok, nil
	case !hasField && v.kind == kindString:
		return v.str, true, nil
	}
	return "", false, nil
}

// sortStrtod is how SORT reads a score: strtod over the C string must
// consume all of it, without overflow, underflow (ERANGE) or NaN. The empty
// string is 0; leading white space is allowed, trailing is not.
//
// Redis 8.0 reads it with fast_float (strictDouble): no leading space, no
// hexadecimal, and out of range is infinity or zero rather than an error.
func sortStrtod(e *Server, s string) (float64, bool) {
	s = cTrunc(s)
	if e.t.data.sortStrictRange {
		// Valkey 9.0: no space or hexadecimal, and the empty string,
		// overflow and an underflow to zero are errors (subnormals read).
		if s == "" || !fastFloatForm(s) || strings.ContainsRune(s, '_') {
			return 0, false
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || strtodRangeError(s, f) {
			return 0, false
		}
		return f, true
	}
	if s == "" {
		return 0, true
	}
	if e.t.data.strictDouble {
		if !fastFloatForm(s) || strings.ContainsRune(s, '_') {
			return 0, false
		}
		f, err := strconv.ParseFloat(s, 64)
		if (err != nil && !errors.Is(err, strconv.ErrRange)) || math.IsNaN(f) {
			return 0, false
		}
		return f, true
	}
	body := strings.TrimLeft(s, " \t\n\v\f\r")
	if body == "" || strings.ContainsRune(body, '_') {
		return 0, false
	}
	num := strings.TrimLeft(body, "+-")
	if len(body)-len(num) > 1 {
		return 0, false
	}
	if len(num) > 2 && (num[:2] == "0x" || num[:2] == "0X") && !strings.ContainsAny(num, "pP") {
		body += "p0"
	}
	f, err := strconv.ParseFloat(body, 64)
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	if !math.IsInf(f, 0) && math.Abs(f) < 0x1p-1022 && strings.Trim(num, "0.xX") != "" && !zeroMantissa(num) {
		return 0, false // glibc reports underflow (a subnormal or zero result) as ERANGE
	}
	return f, true
}

// zeroMantissa reports whether a decimal or hex number's digits before its
// exponent are all zero (0, 0.000, 0x0p5, 0e-999: no underflow).
func zeroMantissa(num string) bool {
	hex := len(num) > 1 && (num[1] == 'x' || num[1] == 'X')
	if hex {
		num = num[2:]
	}
	for _, c := range num {
		switch {
		case c == '.' || c == '0':
		case hex && (c == 'p' || c == 'P'), !hex && (c == 'e' || c == 'E'):
			return true
		default:
			return false
		}
	}
	return true
}

// sortPatternRefused is SORT's cluster rule for a BY or GET pattern, as
// the target has it: Redis 7.0 (and 7.2, Valkey 7.2) refuse any GET and a
// BY with '*'; from Redis 7.4 and Valkey 8.0 only a pattern whose slot
// (patternHashSlot) is not the sorted key's, and from Redis 8.0 and Valkey
// 8.1 not GET "#". The reply is "" when allowed.
func (e *Server) sortPatternRefused(opt, pat, key string) string {
	if !e.cluster() {
		return ""
	}
	if !e.t.sortPatternSlot {
		return "ERR " + opt + " option of SORT denied in Cluster mode."
	}
	if opt == "GET" && e.t.sortGetSelf && cTrunc(pat) == "#" {
		return ""
	}
	if patternHashSlot(pat) != slot.Of(key) {
		return "ERR " + opt + " option of SORT denied in Cluster mode when keys formed by the pattern may be in different slots."
	}
	return ""
}

// patternHashSlot is cluster.c's patternHashSlot: the slot every key a
// pattern matches hashes to, or -1 when they may hash to several.
func patternHashSlot(p string) int {
	s := -1
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '*' || c == '?' || c == '[' || c == '\\':
			return -1
		case s == -1 && c == '{':
			s = i
		case s >= 0 && c == '}' && i == s+1:
			s = -2
		case s >= 0 && c == '}':
			return slot.Of("{" + p[s+1:i] + "}")
		}
	}
	return slot.Of(p)
}
