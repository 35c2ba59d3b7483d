// Package yamlnode holds the small helpers the strict YAML parsers
// (manifest, scenarios) share: how a node is described, how a field path is
// built, and how a mapping's pairs are read. It does not parse documents.
package yamlnode

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Join appends field to a dotted field path.
func Join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// Deref follows alias nodes (at most 100, so a cycle cannot hang).
func Deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// Describe says what n is, for messages such as "must be a list, not
// the string "x"".
func Describe(n *yaml.Node) string {
	n = Deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		case "!!null":
			return "null"
		}
		if strings.HasPrefix(n.Tag, "!!") {
			return fmt.Sprintf("%s %s", n.Tag[2:], n.Value)
		}
		return fmt.Sprintf("a value tagged %s", n.Tag)
	}
	return "nothing"
}

// Pairs returns the key/value pairs of mapping n (aliases followed). It
// reports through report, and leaves out, what a strict parser refuses: a
// node that is not a mapping, merge keys, keys that are not plain scalars
// (lists, mappings, null, booleans) and duplicate keys.
func Pairs(n *yaml.Node, path string, report func(at *yaml.Node, field, msg string)) [][2]*yaml.Node {
	m := Deref(n)
	if m.Kind != yaml.MappingNode {
		report(n, path, "must be a mapping, not "+Describe(n))
		return nil
	}
	var out [][2]*yaml.Node
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		dk := Deref(k)
		switch {
		case dk.Kind == yaml.ScalarNode && dk.Tag == "!!merge":
			report(k, path, "merge keys (<<) are not supported: write the fields out")
			continue
		case dk.Kind != yaml.ScalarNode || dk.Tag == "!!null" || dk.Tag == "!!bool":
			report(k, path, "keys must be strings, not "+Describe(k))
			continue
		}
		if line, dup := seen[dk.Value]; dup {
			report(k, Join(path, dk.Value), fmt.Sprintf("duplicate key %q (first at line %d)", dk.Value, line))
			continue
		}
		seen[dk.Value] = k.Line
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out
}

// indentErrors are the yaml.v3 messages an inconsistently indented line
// causes; yaml.v3 names the line where the enclosing block started (or
// where it noticed), not the line that is wrong.
var indentErrors = []string{
	"did not find expected key",
	"did not find expected '-' indicator",
	"mapping values are not allowed in this context",
	"block sequence entries are not allowed in this context",
}

// IndentContext looks, for a yaml.v3 syntax error msg reported at line
// (1-based), for the line whose indentation is inconsistent: the first line
// from the block the error names on whose indentation matches none of the
// enclosing blocks' (it dedents to a column no block started at). It
// returns that line, its first non-space column, and a note such as
// "line 8 is indented 3 spaces: the enclosing blocks are indented 0, 2 and
// 4". ok is false when msg is not an indentation error or no such line is
// found. Lines inside flow collections and block scalars are not told
// apart: this is context for a message, not a parser.
func IndentContext(data []byte, line int, msg string) (at, col int, note string, ok bool) {
	known := false
	for _, m := range indentErrors {
		known = known || msg == m
	}
	if !known {
		return 0, 0, "", false
	}
	lines := strings.Split(string(data), "\n")
	stack := []int{0}
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "---") {
			continue
		}
		ind := len(l) - len(trimmed)
		top := stack[len(stack)-1]
		switch {
		case ind > top:
			stack = append(stack, ind)
		case ind < top:
			for len(stack) > 1 && stack[len(stack)-1] > ind {
				stack = stack[:len(stack)-1]
			}
			if stack[len(stack)-1] != ind && i+1 >= line-1 {
				levels := make([]string, 0, len(stack)+1)
				for _, s := range append(stack, top) {
					levels = append(levels, fmt.Sprint(s))
				}
				return i + 1, ind + 1, fmt.Sprintf("line %d is indented %d spaces, which matches no enclosing block (indented %s)", i+1, ind, joinAnd(levels)), true
			}
		}
	}
	return 0, 0, "", false
}

func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
