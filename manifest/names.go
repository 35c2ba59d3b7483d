package manifest

import (
	"bytes"
	"fmt"
	"slices"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		case "!!null":
			return "null"
		case "!!int", "!!float", "!!bool":
			return fmt.Sprintf("%s %s", n.Tag[2:], n.Value)
		}
		return n.Value
	}
	return "an alias"
}

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

func isFlag(f string) bool { return slices.Contains(ScriptFlags, f) }

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

// textProblem returns why data is not a text file, or "".
func textProblem(data []byte) string {
	if bytes.IndexByte(data, 0) >= 0 {
		return "binary file (contains a NUL byte)"
	}
	if !utf8.Valid(data) {
		return "not valid UTF-8"
	}
	return ""
}

// templateProblem returns why t is not a well-formed key template, or "".
// Placeholders are <name> with name in [a-z0-9_]+.
func templateProblem(t string) string {
	if t == "" {
		return "empty key template"
	}
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '<':
			j := bytes.IndexByte([]byte(t[i+1:]), '>')
			if j < 0 {
				return fmt.Sprintf("unclosed placeholder at offset %d in %q", i, t)
			}
			name := t[i+1 : i+1+j]
			if !isScriptName(name) {
				return fmt.Sprintf("bad placeholder <%s> in %q: use <name> with lowercase letters, digits and underscore", name, t)
			}
			i += j + 1
		case '>':
			return fmt.Sprintf("stray '>' at offset %d in %q", i, t)
		}
	}
	return ""
}
