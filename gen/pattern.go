package gen

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"
)

// A caller's placeholder pattern is a Go regular expression (RE2 syntax,
// matched unanchored as regexp.MatchString does). The TypeScript and Python
// bindings check it with their own engines, so gen writes it again in a
// form that matches the same strings there: from the parsed syntax tree,
// every character class spelled out as code point ranges (Go's \w, \d, \s
// and [[:alpha:]] are ASCII, Python's and JavaScript's are not all), case
// folding spelled out as classes, '.' as [^\n], the anchors and word
// boundaries in forms that mean what Go's do, groups non-capturing.
// JavaScript compiles it with the u flag (code points, not UTF-16 units).

// patternLang is a regular expression dialect gen writes.
type patternLang int

const (
	patternJS     patternLang = iota // RegExp with the u flag, searched with test()
	patternPython                    // re, searched with search()
)

// translatePattern writes the RE2 pattern for lang.
func translatePattern(pattern string, lang patternLang) (string, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	writeRegexp(&b, re, lang)
	return b.String(), nil
}

const wordClass = "[0-9A-Z_a-z]"

// The start and end of the text: JavaScript's ^ and $ without the m flag,
// Python's \A and \Z (its $ matches before a final newline too).
var (
	textStart = [...]string{patternJS: "^", patternPython: `\A`}
	textEnd   = [...]string{patternJS: "$", patternPython: `\Z`}
)

func writeRegexp(b *strings.Builder, re *syntax.Regexp, lang patternLang) {
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString("(?!)")
	case syntax.OpEmptyMatch:
		b.WriteString("(?:)")
	case syntax.OpLiteral:
		b.WriteString("(?:")
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				writeClass(b, foldRanges(r), lang)
			} else {
				writeRune(b, r, lang)
			}
		}
		b.WriteString(")")
	case syntax.OpCharClass:
		writeClass(b, re.Rune, lang)
	case syntax.OpAnyCharNotNL:
		b.WriteString(`[^\n]`)
	case syntax.OpAnyChar:
		b.WriteString(`[\s\S]`)
	case syntax.OpBeginLine:
		b.WriteString(`(?:` + textStart[lang] + `|(?<=\n))`)
	case syntax.OpEndLine:
		b.WriteString(`(?=\n|` + textEnd[lang] + `)`)
	case syntax.OpBeginText:
		b.WriteString(textStart[lang])
	case syntax.OpEndText:
		b.WriteString(textEnd[lang])
	case syntax.OpWordBoundary:
		b.WriteString("(?:(?<=" + wordClass + ")(?!" + wordClass + ")|(?<!" + wordClass + ")(?=" + wordClass + "))")
	case syntax.OpNoWordBoundary:
		b.WriteString("(?:(?<=" + wordClass + ")(?=" + wordClass + ")|(?<!" + wordClass + ")(?!" + wordClass + "))")
	case syntax.OpCapture:
		b.WriteString("(?:")
		writeRegexp(b, re.Sub[0], lang)
		b.WriteString(")")
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		b.WriteString("(?:")
		writeRegexp(b, re.Sub[0], lang)
		b.WriteString(")")
		switch re.Op {
		case syntax.OpStar:
			b.WriteString("*")
		case syntax.OpPlus:
			b.WriteString("+")
		case syntax.OpQuest:
			b.WriteString("?")
		default:
			switch {
			case re.Max == -1:
				fmt.Fprintf(b, "{%d,}", re.Min)
			case re.Min == re.Max:
				fmt.Fprintf(b, "{%d}", re.Min)
			default:
				fmt.Fprintf(b, "{%d,%d}", re.Min, re.Max)
			}
		}
		if re.Flags&syntax.NonGreedy != 0 {
			b.WriteString("?")
		}
	case syntax.OpConcat:
		b.WriteString("(?:")
		for _, s := range re.Sub {
			writeRegexp(b, s, lang)
		}
		b.WriteString(")")
	case syntax.OpAlternate:
		b.WriteString("(?:")
		for i, s := range re.Sub {
			if i > 0 {
				b.WriteString("|")
			}
			writeRegexp(b, s, lang)
		}
		b.WriteString(")")
	default:
		// Every op regexp/syntax parses is above.
		b.WriteString("(?!)")
	}
}

// foldRanges is the class of every rune that case-folds to r, as Go's
// (?i) matches it.
func foldRanges(r rune) []rune {
	var out []rune
	for f := r; ; {
		out = append(out, f, f)
		if f = unicode.SimpleFold(f); f == r {
			break
		}
	}
	return out
}

// writeClass writes a class of rune ranges (lo, hi pairs).
func writeClass(b *strings.Builder, ranges []rune, lang patternLang) {
	if len(ranges) == 0 {
		b.WriteString("(?!)")
		return
	}
	b.WriteString("[")
	for i := 0; i+1 < len(ranges); i += 2 {
		writeRune(b, ranges[i], lang)
		if ranges[i+1] != ranges[i] {
			b.WriteString("-")
			writeRune(b, ranges[i+1], lang)
		}
	}
	b.WriteString("]")
}

// writeRune writes r as an escape, so no character means anything.
func writeRune(b *strings.Builder, r rune, lang patternLang) {
	switch {
	case lang == patternJS:
		fmt.Fprintf(b, `\u{%X}`, r)
	case r < 0x10000:
		fmt.Fprintf(b, `\u%04X`, r)
	default:
		fmt.Fprintf(b, `\U%08X`, r)
	}
}
