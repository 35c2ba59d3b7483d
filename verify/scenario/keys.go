package scenario

import (
	"io"
	"sort"
	"strconv"

	"gopkg.in/yaml.v3"
)

// WriteKeys writes keys in the keyspace format ParseKeys reads, sorted by
// name, so a state written by one run can seed the next. A PTTL of -1 (no
// expiry) writes no ttl_ms.
func WriteKeys(w io.Writer, keys []Key) error {
	sorted := append([]Key(nil), keys...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	root := &yaml.Node{Kind: yaml.MappingNode}
	if len(sorted) == 0 {
		root.Style = yaml.FlowStyle
	}
	for _, k := range sorted {
		spec := &yaml.Node{Kind: yaml.MappingNode}
		if k.Type == "hash" {
			h := &yaml.Node{Kind: yaml.MappingNode}
			fields := make([]string, 0, len(k.Hash))
			for f := range k.Hash {
				fields = append(fields, f)
			}
			sort.Strings(fields)
			for _, f := range fields {
				h.Content = append(h.Content, strNode(f), strNode(k.Hash[f]))
			}
			spec.Content = append(spec.Content, strNode("hash"), h)
		} else {
			spec.Content = append(spec.Content, strNode("value"), strNode(k.Value))
		}
		if k.PTTL >= 0 {
			spec.Content = append(spec.Content, strNode("ttl_ms"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(max(k.PTTL, 1), 10)})
		}
		root.Content = append(root.Content, strNode(k.Name), spec)
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return err
	}
	return enc.Close()
}

// strNode is a string scalar that YAML will quote whenever its plain form
// would read as something else (a number, null, a boolean).
func strNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}
