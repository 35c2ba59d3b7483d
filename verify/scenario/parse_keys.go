package scenario

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/scriptctl/scriptctl/internal/yamlnode"
	"github.com/scriptctl/scriptctl/verify"
	"gopkg.in/yaml.v3"
)

// keys parses a keyspace mapping (see ParseKeys).
func (p *parser) keys(n *yaml.Node, field string) []Key {
	out := []Key{}
	for _, kv := range p.pairs(n, field) {
		kf := yamlnode.Join(field, kv[0].Value)
		k := Key{Name: kv[0].Value, Line: kv[0].Line, PTTL: -1}
		if k.Name == "" {
			p.errorf(kv[0], kf, "empty key name")
		}
		f := p.fields(kv[1], kf, append(typeFields, "ttl_ms", "field_ttl_ms")...)
		if !p.contents(f, kf, &k) && kv[1].Kind == yaml.MappingNode {
			p.errorf(kv[1], kf, "needs its contents: value (a string), hash (a mapping), list, set, zset or stream")
		}
		if v := f["ttl_ms"]; v != nil {
			k.PTTL = p.posInt(v, kf+".ttl_ms", false)
		}
		if v := f["field_ttl_ms"]; v != nil {
			k.FieldTTL = p.fieldTTLs(v, kf+".field_ttl_ms", k)
		}
		out = append(out, k)
	}
	return out
}

// fieldTTLs parses a hash's {field: ms, ...}: the remaining ms of fields
// the hash has (hash-field expiry).
func (p *parser) fieldTTLs(n *yaml.Node, field string, k Key) map[string]int64 {
	if k.Type != "hash" {
		p.errorf(n, field, "goes with hash only")
		return nil
	}
	out := map[string]int64{}
	for _, kv := range p.pairs(n, field) {
		ff := yamlnode.Join(field, kv[0].Value)
		if !slices.ContainsFunc(k.Hash, func(f verify.Field) bool { return f.Name == kv[0].Value }) {
			p.errorf(kv[0], ff, "the hash has no field %q", kv[0].Value)
			continue
		}
		out[kv[0].Value] = p.posInt(kv[1], ff, false)
	}
	return out
}

// typeFields are the fields of a key that give its type and contents, one
// per key.
var typeFields = []string{"value", "hash", "list", "set", "zset", "stream"}

// contents parses the field of f that gives a key's type and contents into
// k, and reports whether there is one.
func (p *parser) contents(f map[string]*yaml.Node, field string, k *Key) bool {
	var given []string
	for _, t := range typeFields {
		if f[t] != nil {
			given = append(given, t)
		}
	}
	if len(given) == 0 {
		return false
	}
	if len(given) > 1 {
		p.errorf(f[given[1]], field, "a key has one type: %s and %s are both given", given[0], given[1])
		return true
	}
	n, cf := f[given[0]], field+"."+given[0]
	switch given[0] {
	case "value":
		k.Type, k.Value = "string", p.text(n, cf)
	case "hash":
		k.Type, k.Hash = "hash", p.hash(n, cf)
	case "list":
		k.Type, k.List = "list", p.list(n, cf, "element", "list")
	case "set":
		k.Type, k.Set = "set", p.set(n, cf)
	case "zset":
		k.Type, k.ZSet = "zset", p.zset(n, cf)
	case "stream":
		k.Type, k.Stream = "stream", p.stream(n, cf)
	}
	return true
}

// hash parses {field: value, ...}, keeping the fields in the order written
// (HSET's order, which HGETALL answers in for a small hash).
func (p *parser) hash(n *yaml.Node, field string) []verify.Field {
	h := []verify.Field{}
	for _, kv := range p.pairs(n, field) {
		h = append(h, verify.Field{Name: kv[0].Value, Value: p.text(kv[1], field+"."+kv[0].Value)})
	}
	if n.Kind == yaml.MappingNode && len(n.Content) == 0 {
		p.errorf(n, field, "a hash needs at least one field (Redis has no empty hash)")
	}
	return h
}

// list parses [a, b, ...], strings in order: the elements (what) of a key
// of type typ.
func (p *parser) list(n *yaml.Node, field, what, typ string) []string {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, field, "must be a list of %ss, not %s", what, yamlnode.Describe(n))
		return nil
	}
	if len(n.Content) == 0 {
		p.errorf(n, field, "needs at least one %s (Redis has no empty %s)", what, typ)
	}
	out := []string{}
	for i, c := range n.Content {
		out = append(out, p.text(c, fmt.Sprintf("%s[%d]", field, i+1)))
	}
	return out
}

// set parses [a, b, ...]: members, each once.
func (p *parser) set(n *yaml.Node, field string) []string {
	out := p.list(n, field, "member", "set")
	seen := map[string]int{}
	for i, m := range out {
		if n.Content[i].Kind != yaml.ScalarNode {
			continue // already refused
		}
		if first, dup := seen[m]; dup {
			p.errorf(n.Content[i], fmt.Sprintf("%s[%d]", field, i+1), "duplicate member %q (first at line %d)", m, n.Content[first].Line)
			continue
		}
		seen[m] = i
	}
	return out
}

// zset parses [[member, score], ...] or {member: score, ...}: members, each
// once, with scores as ZADD reads them.
func (p *parser) zset(n *yaml.Node, field string) []verify.ZMember {
	type entry struct {
		member, score *yaml.Node
		field         string
	}
	var entries []entry
	switch n.Kind {
	case yaml.MappingNode:
		for _, kv := range p.pairs(n, field) { // refuses a member given twice
			entries = append(entries, entry{kv[0], kv[1], field + "." + kv[0].Value})
		}
	case yaml.SequenceNode:
		seen := map[string]int{}
		for i, c := range n.Content {
			ef := fmt.Sprintf("%s[%d]", field, i+1)
			if c.Kind != yaml.SequenceNode || len(c.Content) != 2 {
				p.errorf(c, ef, "must be a [member, score] pair, not %s", describePair(c))
				continue
			}
			m := c.Content[0]
			if first, dup := seen[m.Value]; dup && m.Kind == yaml.ScalarNode {
				p.errorf(m, ef, "duplicate member %q (first at line %d)", m.Value, first)
				continue
			}
			if m.Kind == yaml.ScalarNode {
				seen[m.Value] = m.Line
			}
			entries = append(entries, entry{m, c.Content[1], ef})
		}
	default:
		p.errorf(n, field, "must be a list of [member, score] pairs or a mapping from member to score, not %s", yamlnode.Describe(n))
		return []verify.ZMember{}
	}
	if len(n.Content) == 0 {
		p.errorf(n, field, "needs at least one member (Redis has no empty zset)")
	}
	out := []verify.ZMember{}
	for _, e := range entries {
		out = append(out, verify.ZMember{Member: p.text(e.member, e.field), Score: p.score(e.score, e.field)})
	}
	return out
}

func describePair(n *yaml.Node) string {
	if n.Kind == yaml.SequenceNode {
		return fmt.Sprintf("a list of %d", len(n.Content))
	}
	return yamlnode.Describe(n)
}

// score parses a sorted-set score exactly as ZADD reads its text (1, -2.5,
// 1e3, inf, -inf, 0x1p3), and YAML's own .inf and -.inf. NaN is refused,
// as ZADD refuses it.
func (p *parser) score(n *yaml.Node, field string) float64 {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!float" {
		switch strings.ToLower(n.Value) {
		case ".inf", "+.inf":
			return math.Inf(1)
		case "-.inf":
			return math.Inf(-1)
		}
	}
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!str" && n.Tag != "!!int" && n.Tag != "!!float") {
		p.errorf(n, field, "the score must be a number, inf or -inf, not %s", yamlnode.Describe(n))
		return 0
	}
	f, err := ParseScore(n.Value)
	if err != nil {
		p.errorf(n, field, "%v", err)
	}
	return f
}
