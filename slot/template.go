package slot

import "strings"

// token is one piece of a key template: literal text, or a placeholder
// <name> when ph is set.
type token struct {
	lit string
	ph  string
}

func (t token) String() string {
	if t.ph != "" {
		return "<" + t.ph + ">"
	}
	return t.lit
}

// template is a parsed key template such as "catalog:{product-<id>}:lease".
type template struct {
	raw  string
	toks []token // adjacent literals merged, no empty literal
}

// parseTemplate splits s into literals and placeholders. A placeholder is
// <name> with name made of lowercase letters, digits and underscore (the
// rule manifest.Load enforces); anything else, a stray '<' or '>' included,
// is literal text, so parsing never fails.
func parseTemplate(s string) template {
	t := template{raw: s}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.toks = append(t.toks, token{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '<' {
			if j := strings.IndexByte(s[i+1:], '>'); j > 0 && isPlaceholderName(s[i+1:i+1+j]) {
				flush()
				t.toks = append(t.toks, token{ph: s[i+1 : i+1+j]})
				i += j + 1
				continue
			}
		}
		lit.WriteByte(s[i])
	}
	flush()
	return t
}

func isPlaceholderName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

// placeholders returns the template's placeholder names in order of first
// appearance, each once.
func (t template) placeholders() []string {
	var names []string
	for _, tok := range t.toks {
		if tok.ph != "" && !contains(names, tok.ph) {
			names = append(names, tok.ph)
		}
	}
	return names
}

// expand substitutes values for the placeholders; a placeholder without a
// value expands to the empty string.
func (t template) expand(values map[string]string) string {
	var b strings.Builder
	for _, tok := range t.toks {
		if tok.ph != "" {
			b.WriteString(values[tok.ph])
		} else {
			b.WriteString(tok.lit)
		}
	}
	return b.String()
}

// tagShape is what a template says about its hash tag as written: where the
// first literal '{' is and what lies between it and the first literal '}'
// after it. Values are not known here; the proof decides what they can do.
type tagShape struct {
	// found is set when the template has a literal '{' followed, later, by
	// a literal '}'.
	found bool
	// placeholderBefore is set when a placeholder comes before that '{':
	// its value can hold a '{' of its own and move the tag.
	placeholderBefore bool
	// before are the placeholders before that '{', in order, each once.
	before []string
	// expr is what lies between the braces, literals merged; empty for a
	// literal "{}".
	expr []token
}

// shape finds the template's hash tag as written.
func (t template) shape() tagShape {
	var s tagShape
	open := false
	for _, tok := range t.toks {
		if tok.ph != "" {
			if open {
				s.expr = append(s.expr, tok)
			} else {
				s.placeholderBefore = true
				if !contains(s.before, tok.ph) {
					s.before = append(s.before, tok.ph)
				}
			}
			continue
		}
		lit := tok.lit
		if !open {
			i := strings.IndexByte(lit, '{')
			if i < 0 {
				continue
			}
			open = true
			lit = lit[i+1:]
		}
		if j := strings.IndexByte(lit, '}'); j >= 0 {
			if j > 0 {
				s.expr = append(s.expr, token{lit: lit[:j]})
			}
			s.found = true
			return s
		}
		if lit != "" {
			s.expr = append(s.expr, token{lit: lit})
		}
	}
	return tagShape{placeholderBefore: s.placeholderBefore}
}

// hasPlaceholder reports whether the tag expression holds a placeholder.
func (s tagShape) hasPlaceholder() bool {
	for _, tok := range s.expr {
		if tok.ph != "" {
			return true
		}
	}
	return false
}

// String renders the tag as written, braces included: "{product-<id>}".
func (s tagShape) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for _, tok := range s.expr {
		b.WriteString(tok.String())
	}
	b.WriteByte('}')
	return b.String()
}

func sameExpr(a, b []token) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
