package manifest

import (
	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/yamlnode"
)

// The topologies a manifest's topology field names: the server its scripts
// run on, which the offline runs imitate (verify.Options.Topology).
const (
	TopologyCluster    = "cluster"
	TopologyStandalone = "standalone"
)

// keyRules reads the topology and strict_keys fields.
func (p *parser) keyRules(root *yaml.Node, seen map[string]*yaml.Node) {
	p.m.Topology = TopologyCluster
	if n := seen["topology"]; n != nil {
		p.m.TopologyLine = keyLine(root, "topology", n)
		switch v := p.str(n, "topology"); v {
		case TopologyCluster, TopologyStandalone:
			p.m.Topology = v
		case "":
			if isString(yamlnode.Deref(n)) {
				p.errorf(n, "topology", "must be cluster or standalone, not an empty string")
			}
		default:
			p.errorf(n, "topology", "unknown topology %q: want cluster or standalone", v)
		}
	}
	if n := seen["strict_keys"]; n != nil {
		p.m.StrictKeysLine = keyLine(root, "strict_keys", n)
		v := yamlnode.Deref(n)
		if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
			p.errorf(n, "strict_keys", "must be true or false, not %s", yamlnode.Describe(n))
			return
		}
		var b bool
		if err := v.Decode(&b); err != nil {
			p.errorf(n, "strict_keys", "must be true or false, not %s", v.Value)
			return
		}
		p.m.StrictKeys = b
	}
}
