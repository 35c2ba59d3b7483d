// Package valueset owns the sets of byte strings a key placeholder can take:
// any string (the default), narrowed by what a manifest declares (non-empty,
// a regular expression) and by what a check assumes (no braces). It answers
// membership exactly, says soundly what no member can hold (an empty value,
// a '{', a leading '}'), and searches the set, boundedly, for members that
// are adversarial to hash tags. It knows nothing of key templates or slots.
package valueset

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Set is a set of byte strings. The zero value is every byte string.
type Set struct {
	// NonEmpty excludes the empty string.
	NonEmpty bool
	// NoBraces excludes strings holding '{' or '}'.
	NoBraces bool

	pattern string
	re      *regexp.Regexp
	tree    *syntax.Regexp // simplified parse of pattern
	// anchored{Start,End}: every match of the pattern starts at the
	// beginning (ends at the end) of the value, so the value is the match.
	anchoredStart, anchoredEnd bool
	chars                      runes // every rune a match can hold, or more
	first                      runes // every rune a match can start with, or more
	nullable                   bool  // the pattern can match the empty string (or so it seems)
}

// New returns the set of strings that pattern matches (Go regexp, RE2
// syntax, matched like regexp.MatchString: unanchored, so a pattern without
// ^ and $ accepts every string that holds a match), narrowed by nonEmpty and
// noBraces. An empty pattern accepts every string. The error is the
// regexp's, for a pattern that does not compile.
func New(pattern string, nonEmpty, noBraces bool) (*Set, error) {
	s := &Set{NonEmpty: nonEmpty, NoBraces: noBraces, pattern: pattern}
	if pattern == "" {
		return s, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	s.re, s.tree = re, tree.Simplify()
	s.anchoredStart = anchored(s.tree, true)
	s.anchoredEnd = anchored(s.tree, false)
	s.chars = charsOf(s.tree)
	s.first, s.nullable = firstOf(s.tree)
	return s, nil
}

// Unanchored reports whether the set has a pattern that is not anchored at
// both ends (^...$): it then accepts anything around a match.
func (s *Set) Unanchored() bool { return s.re != nil && !(s.anchoredStart && s.anchoredEnd) }

// Pattern returns the set's pattern, "" when it has none.
func (s *Set) Pattern() string { return s.pattern }

// Contains reports whether v is in the set.
func (s *Set) Contains(v string) bool {
	switch {
	case s.NonEmpty && v == "":
		return false
	case s.NoBraces && strings.ContainsAny(v, "{}"):
		return false
	case s.re != nil && !s.re.MatchString(v):
		return false
	}
	return true
}

// MayBeEmpty reports whether the set holds the empty string. It is exact.
func (s *Set) MayBeEmpty() bool { return s.Contains("") }

// MayContain reports whether some member may hold the ASCII byte b. False is
// a proof that none does; true may be an over-approximation.
func (s *Set) MayContain(b byte) bool {
	switch {
	case s.NoBraces && (b == '{' || b == '}'):
		return false
	case s.re == nil || !s.anchoredStart || !s.anchoredEnd:
		// Without anchors at both ends a member holds a match, and
		// anything around it.
		return true
	}
	return s.chars.has(rune(b))
}

// MayStartWith reports whether some member may start with the ASCII byte b.
// False is a proof that none does; true may be an over-approximation.
func (s *Set) MayStartWith(b byte) bool {
	switch {
	case s.NoBraces && (b == '{' || b == '}'):
		return false
	case s.re == nil || !s.anchoredStart:
		return true
	case s.nullable && !s.anchoredEnd:
		// An empty match at the start, then anything.
		return true
	}
	return s.first.has(rune(b))
}

// Describe says in words what the set is, for a message.
func (s *Set) Describe() string {
	var parts []string
	if s.re != nil {
		parts = append(parts, fmt.Sprintf("values matching %q", s.pattern))
	}
	if s.NonEmpty {
		parts = append(parts, "non-empty")
	}
	if s.NoBraces {
		parts = append(parts, "without braces")
	}
	if len(parts) == 0 {
		return "any byte strings"
	}
	return strings.Join(parts, ", ")
}

// Adversarial are the values tried first against hash tags, in order: the
// empty string, braces, a long value, multi-byte and invalid UTF-8.
var Adversarial = []string{
	"", "}", "{", "{}", "}{", "{x}", "x}", "{x", "x{", "a", "0", "42",
	a300, "é", "日本語", "🙂", "x:y", "\x00", "\xff\xfe",
}

// a300 is "a" 300 times: a constant, so Adversarial needs no work at
// process start.
const (
	a10  = "aaaaaaaaaa"
	a50  = a10 + a10 + a10 + a10 + a10
	a300 = a50 + a50 + a50 + a50 + a50 + a50
)

// maxBuilt bounds how many values built from the pattern Candidates adds.
const maxBuilt = 48

// Candidates returns distinct members of the set to try against hash tags,
// most adversarial first: the Adversarial values the set holds, then, for a
// pattern, values built from it (short strings over the braces and a few
// of the runes it accepts, its shortest match, and random walks of its
// syntax, with a brace or two around them when it is not anchored), those
// holding braces first.
// The search is bounded: an empty result means no member was found, which
// for a pattern is not a proof that there is none.
func (s *Set) Candidates(seed uint64) []string {
	var out []string
	seen := map[string]bool{}
	add := func(v string) bool {
		if seen[v] || !s.Contains(v) {
			return false
		}
		seen[v] = true
		out = append(out, v)
		return true
	}
	for _, v := range Adversarial {
		add(v)
	}
	if s.re == nil {
		return out
	}
	var built []string
	keep := func(v string) {
		if len(built) < 4*maxBuilt && !seen[v] && s.Contains(v) {
			seen[v] = true
			built = append(built, v)
		}
	}
	// Every string of up to 4 runes over the braces and two runes the
	// pattern accepts.
	alphabet := []string{"{", "}"}
	for _, r := range s.chars.sample(2) {
		if r != '{' && r != '}' {
			alphabet = append(alphabet, string(r))
		}
	}
	var words func(prefix string, n int)
	words = func(prefix string, n int) {
		keep(prefix)
		if n == 0 {
			return
		}
		for _, a := range alphabet {
			words(prefix+a, n-1)
		}
	}
	words("", 4)
	if v, ok := shortest(s.tree); ok {
		keep(v)
	}
	rng := rand.New(rand.NewPCG(seed, 0x7a1e))
	for range 400 {
		if v, ok := s.build(rng); ok {
			keep(v)
		}
	}
	// Braces first, then shorter.
	slices.SortStableFunc(built, func(a, b string) int {
		ba, bb := strings.ContainsAny(a, "{}"), strings.ContainsAny(b, "{}")
		switch {
		case ba && !bb:
			return -1
		case bb && !ba:
			return 1
		}
		return len(a) - len(b)
	})
	out = append(out, built[:min(len(built), maxBuilt)]...)
	return out
}

// Random returns a random member built from the pattern, or one of cands,
// or false when there is neither.
func (s *Set) Random(rng *rand.Rand, cands []string) (string, bool) {
	if s.re != nil && rng.IntN(4) != 0 {
		for range 8 {
			if v, ok := s.build(rng); ok && s.Contains(v) {
				return v, true
			}
		}
	}
	if len(cands) == 0 {
		return "", false
	}
	return cands[rng.IntN(len(cands))], true
}

// build returns a string the pattern may match: a random walk of its syntax,
// with a random brace-rich prefix (suffix) when it is not anchored at the
// start (end). The caller checks membership.
func (s *Set) build(rng *rand.Rand) (string, bool) {
	var b strings.Builder
	if !s.anchoredStart {
		b.WriteString(around[rng.IntN(len(around))])
	}
	if !walk(&b, s.tree, rng) {
		return "", false
	}
	if !s.anchoredEnd {
		b.WriteString(around[rng.IntN(len(around))])
	}
	return b.String(), true
}

var around = []string{"", "", "}", "{", "{}", "}{", "x{", "}x"}

// walkLimit bounds the length of a built string.
const walkLimit = 4096

// walk appends to b a string re matches, up to zero-width assertions (the
// caller checks). It returns false when re matches nothing or the string
// grows too long.
func walk(b *strings.Builder, re *syntax.Regexp, rng *rand.Rand) bool {
	if b.Len() > walkLimit {
		return false
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && rng.IntN(2) == 0 {
				r = unicode.SimpleFold(r)
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return false
		}
		b.WriteRune(pick(re.Rune, rng))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteString(anyChars[rng.IntN(len(anyChars))])
	case syntax.OpCapture:
		return walk(b, re.Sub[0], rng)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !walk(b, sub, rng) {
				return false
			}
		}
	case syntax.OpAlternate:
		return walk(b, re.Sub[rng.IntN(len(re.Sub))], rng)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 3
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Min+3
			if re.Max >= 0 {
				hi = min(hi, re.Max)
			}
		}
		for range lo + rng.IntN(hi-lo+1) {
			if !walk(b, re.Sub[0], rng) {
				return false
			}
		}
	}
	// Empty-width assertions and the empty match add nothing.
	return true
}

// shortestLimit bounds the length of the string shortest builds.
const shortestLimit = 1 << 16

// shortest returns a short string re may match, up to zero-width assertions
// (the caller checks): every repetition at its minimum, the first
// alternative that matches something. It returns false when re matches
// nothing or the string would be longer than shortestLimit.
func shortest(re *syntax.Regexp) (string, bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		return "", false
	case syntax.OpLiteral:
		return string(re.Rune), true
	case syntax.OpCharClass:
		for _, r := range re.Rune {
			if utf8.ValidRune(r) {
				return string(r), true
			}
		}
		return "", false
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return "a", true
	case syntax.OpCapture, syntax.OpPlus:
		return shortest(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		return "", true
	case syntax.OpRepeat:
		if re.Min == 0 {
			return "", true
		}
		one, ok := shortest(re.Sub[0])
		if !ok || len(one)*re.Min > shortestLimit {
			return "", false
		}
		return strings.Repeat(one, re.Min), true
	case syntax.OpConcat:
		var b strings.Builder
		for _, sub := range re.Sub {
			v, ok := shortest(sub)
			if !ok || b.Len()+len(v) > shortestLimit {
				return "", false
			}
			b.WriteString(v)
		}
		return b.String(), true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if v, ok := shortest(sub); ok {
				return v, true
			}
		}
		return "", false
	}
	return "", true
}

// anyChars are what '.' stands for in a built string: braces mostly.
var anyChars = []string{"{", "}", "{", "}", "a", "0", ":", "-", "é", "\x00"}

// pick returns a rune of the class (lo, hi pairs): a brace when the class
// holds one, half the time; otherwise a rune of a random range, one of its
// ends more often than not.
func pick(class []rune, rng *rand.Rand) rune {
	cl := runes(class)
	if rng.IntN(2) == 0 {
		var braces []rune
		for _, r := range []rune{'{', '}'} {
			if cl.has(r) {
				braces = append(braces, r)
			}
		}
		if len(braces) > 0 {
			return braces[rng.IntN(len(braces))]
		}
	}
	i := 2 * rng.IntN(len(class)/2)
	lo, hi := class[i], class[i+1]
	r := lo
	switch rng.IntN(3) {
	case 1:
		r = hi
	case 2:
		r = lo + rune(rng.Int64N(int64(hi-lo)+1))
	}
	if !utf8.ValidRune(r) {
		r = lo
	}
	return r
}

// runes is a set of runes as sorted lo, hi pairs; any is every rune.
type runes []rune

var anyRune = runes{0, unicode.MaxRune}

func (rs runes) has(r rune) bool {
	for i := 0; i+1 < len(rs); i += 2 {
		if rs[i] <= r && r <= rs[i+1] {
			return true
		}
	}
	return false
}

// sample returns up to n runes of the set, letters and digits first.
func (rs runes) sample(n int) []rune {
	var out []rune
	for _, r := range "aA0xz9_-:.é" {
		if len(out) < n && rs.has(r) {
			out = append(out, r)
		}
	}
	for i := 0; i+1 < len(rs) && len(out) < n; i += 2 {
		if r := rs[i]; utf8.ValidRune(r) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

func (rs runes) union(o runes) runes { return append(slices.Clone(rs), o...) }

// literal returns the runes of a literal, with their case folds when it
// folds case.
func literal(re *syntax.Regexp, rs []rune) runes {
	var out runes
	for _, r := range rs {
		out = append(out, r, r)
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				out = append(out, f, f)
			}
		}
	}
	return out
}

// charsOf returns every rune a match of re can hold (or more).
func charsOf(re *syntax.Regexp) runes {
	switch re.Op {
	case syntax.OpLiteral:
		return literal(re, re.Rune)
	case syntax.OpCharClass:
		return runes(slices.Clone(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return anyRune
	}
	var out runes
	for _, sub := range re.Sub {
		out = out.union(charsOf(sub))
	}
	return out
}

// firstOf returns every rune a match of re can start with (or more), and
// whether re can match the empty string (or may).
func firstOf(re *syntax.Regexp) (runes, bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		return nil, false
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return nil, true
		}
		return literal(re, re.Rune[:1]), false
	case syntax.OpCharClass:
		return runes(slices.Clone(re.Rune)), false
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return anyRune, false
	case syntax.OpCapture, syntax.OpPlus:
		return firstOf(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		f, _ := firstOf(re.Sub[0])
		return f, true
	case syntax.OpRepeat:
		f, n := firstOf(re.Sub[0])
		return f, n || re.Min == 0
	case syntax.OpConcat:
		var out runes
		for _, sub := range re.Sub {
			f, n := firstOf(sub)
			out = out.union(f)
			if !n {
				return out, false
			}
		}
		return out, true
	case syntax.OpAlternate:
		var out runes
		nullable := false
		for _, sub := range re.Sub {
			f, n := firstOf(sub)
			out = out.union(f)
			nullable = nullable || n
		}
		return out, nullable
	}
	// Empty-width assertions and the empty match.
	return nil, true
}

// anchored reports whether every match of re starts at the beginning of the
// text (start) or ends at its end (!start): re begins (ends) with \A or ^
// (\z or $ outside multi-line mode) on every branch.
func anchored(re *syntax.Regexp, start bool) bool {
	switch re.Op {
	case syntax.OpBeginText:
		return start
	case syntax.OpEndText:
		return !start
	case syntax.OpCapture:
		return anchored(re.Sub[0], start)
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return false
		}
		if start {
			return anchored(re.Sub[0], start)
		}
		return anchored(re.Sub[len(re.Sub)-1], start)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !anchored(sub, start) {
				return false
			}
		}
		return len(re.Sub) > 0
	}
	return false
}
