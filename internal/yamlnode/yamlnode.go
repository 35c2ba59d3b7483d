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
