// Package yamlnode holds the small helpers the strict YAML parsers
// (manifest, scenarios) share for their error messages: how a node is
// described and how a field path is built. It does not parse documents.
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
