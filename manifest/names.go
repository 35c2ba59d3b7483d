package manifest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/scriptctl/scriptctl/internal/textdist"
)

func isLibraryName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return s != ""
}

func isScriptName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return s != ""
}

func isCallerName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return s != ""
}

func isFlag(f string) bool { return slices.Contains(ScriptFlags, f) }

// textProblem returns why data is not a Lua source file Redis can compile,
// or "".
func textProblem(data []byte) string {
	if len(data) == 0 {
		return "the file is empty"
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "binary file (contains a NUL byte)"
	}
	if !utf8.Valid(data) {
		return "not valid UTF-8"
	}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return "starts with a UTF-8 byte order mark, which Redis cannot compile"
	}
	return ""
}

// parseTemplate returns the placeholder names of key template t, in order
// of first use, and why t is not well formed ("" when it is). A placeholder
// is <name> with name made of lowercase letters, digits and underscore.
func parseTemplate(t string) (names []string, problem string) {
	if t == "" {
		return nil, "empty key template"
	}
	seen := map[string]bool{}
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '<':
			j := strings.IndexAny(t[i+1:], "<>")
			if j < 0 || t[i+1+j] == '<' {
				return names, fmt.Sprintf("unclosed placeholder at offset %d in %q: write <name>", i, t)
			}
			name := t[i+1 : i+1+j]
			if !isScriptName(name) {
				return names, fmt.Sprintf("bad placeholder <%s> in %q: write <name> with lowercase letters, digits and underscore", name, t)
			}
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
			i += j + 1
		case '>':
			return names, fmt.Sprintf("stray '>' at offset %d in %q: placeholders are written <name>", i, t)
		}
	}
	return names, ""
}

// Placeholders returns the names of the template's <name> placeholders, in
// order of first use. The template of a loaded manifest is well formed.
func (k KeyTemplate) Placeholders() []string {
	names, _ := parseTemplate(k.Template)
	return names
}

// Suggest returns the candidate closest to s when it is close enough to be
// a likely typo, or "": the rule of the manifest's own "did you mean", for
// files that name the manifest's scripts and callers (scenarios).
func Suggest(s string, candidates []string) string { return suggest(s, candidates) }

// suggest returns the candidate closest to s when it is close enough to be a
// likely typo, or "".
func suggest(s string, candidates []string) string {
	best, bestD := "", 3
	if len(s) <= 4 {
		bestD = 2
	}
	for _, c := range candidates {
		if c == s || c == "" {
			continue
		}
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is textdist.Distance: the optimal string alignment
// distance between a and b, in bytes.
func editDistance(a, b string) int { return textdist.Distance(a, b) }
