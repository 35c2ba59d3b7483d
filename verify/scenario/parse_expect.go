package scenario

import (
	"fmt"
	"math"
	"strconv"

	"github.com/scriptctl/scriptctl/internal/yamlnode"
	"gopkg.in/yaml.v3"
)

func (p *parser) expect(n *yaml.Node, field string) *Expect {
	e := &Expect{Line: n.Line}
	f := p.fields(n, field, "reply", "keys", "published", "clock")
	if n.Kind != yaml.MappingNode {
		return nil
	}
	if v := f["clock"]; v != nil {
		for i, c := range p.seq(v, field+".clock") {
			ref := p.str(c, fmt.Sprintf("%s.clock[%d]", field, i+1))
			if ref == "" && c.Tag == "!!str" {
				p.errorf(c, fmt.Sprintf("%s.clock[%d]", field, i+1), "must not be empty: want reply or a key")
			}
			e.Clock = append(e.Clock, ClockRef{Ref: ref, Line: c.Line})
		}
	}
	if v := f["published"]; v != nil {
		e.PublishedSet = true
		for i, c := range p.seq(v, field+".published") {
			pf := fmt.Sprintf("%s.published[%d]", field, i+1)
			mf := p.fields(c, pf, "channel", "message")
			m := Published{Line: c.Line}
			for _, name := range []string{"channel", "message"} {
				if mf[name] == nil {
					if c.Kind == yaml.MappingNode {
						p.errorf(c, pf+"."+name, "required field is missing")
					}
					continue
				}
				t := p.text(mf[name], pf+"."+name)
				if name == "channel" {
					m.Channel = t
				} else {
					m.Message = t
				}
			}
			e.Published = append(e.Published, m)
		}
	}
	if v := f["reply"]; v != nil {
		e.Reply = p.reply(v, field+".reply", 0)
	}
	if v := f["keys"]; v != nil {
		for _, kv := range p.pairs(v, field+".keys") {
			if ke := p.keyExpect(kv[0], kv[1], field+".keys."+kv[0].Value); ke != nil {
				e.Keys = append(e.Keys, *ke)
			}
		}
	}
	return e
}

func (p *parser) keyExpect(k, v *yaml.Node, field string) *KeyExpect {
	ke := &KeyExpect{Ref: k.Value, Line: k.Line}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!str" && v.Value == "absent" {
		ke.Absent = true
		return ke
	}
	if v.Kind != yaml.MappingNode {
		p.errorf(v, field, `must be "absent" or a mapping with the contents (value, hash, list, set, zset or stream) and/or ttl_ms, not %s`, yamlnode.Describe(v))
		return nil
	}
	f := p.fields(v, field, append(typeFields, "ttl_ms", "field_ttl_ms")...)
	p.contents(f, field, &ke.Want)
	if n := f["ttl_ms"]; n != nil {
		ke.TTL = p.ttl(n, field+".ttl_ms", true)
	}
	if n := f["field_ttl_ms"]; n != nil {
		ke.FieldTTL = map[string]*TTLSpec{}
		for _, kv := range p.pairs(n, field+".field_ttl_ms") {
			ke.FieldTTL[kv[0].Value] = p.ttl(kv[1], yamlnode.Join(field+".field_ttl_ms", kv[0].Value), true)
		}
	}
	if len(v.Content) == 0 {
		p.errorf(v, field, "check at least one of value, hash, list, set, zset, stream or ttl_ms, or write absent")
	}
	return ke
}

// ttl parses an expected TTL: 150, "none" (no expiry) or {min: a, max: b}.
func (p *parser) ttl(n *yaml.Node, field string, allowNone bool) *TTLSpec {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str" && n.Value == "none" && allowNone:
		return &TTLSpec{None: true}
	case n.Kind == yaml.ScalarNode:
		v := p.posInt(n, field, true)
		return &TTLSpec{Min: v, Max: v}
	case n.Kind == yaml.MappingNode:
		f := p.fields(n, field, "min", "max")
		t := &TTLSpec{Min: 0, Max: math.MaxInt64}
		if f["min"] == nil && f["max"] == nil {
			p.errorf(n, field, "a TTL range needs min and/or max")
		}
		if v := f["min"]; v != nil {
			t.Min = p.posInt(v, field+".min", true)
		}
		if v := f["max"]; v != nil {
			t.Max = p.posInt(v, field+".max", true)
		}
		if t.Min > t.Max {
			p.errorf(n, field, "min %d is above max %d", t.Min, t.Max)
		}
		return t
	}
	p.errorf(n, field, `must be milliseconds, "none" or {min: ms, max: ms}, not %s`, yamlnode.Describe(n))
	return nil
}

// reply parses an expected reply:
//
//	1                  integer        "text"/text  bulk string
//	null               nil            [a, b]       array
//	{status: OK}       status         {error: ERR x}  error (exact text)
//	{error_prefix: WRONGTYPE}         an error whose text starts so
//	{ttl_ms: 150}      an integer that is a remaining TTL (exact or {min,max})
func (p *parser) reply(n *yaml.Node, field string, depth int) *ReplySpec {
	r := &ReplySpec{Line: n.Line}
	if depth > 32 {
		p.errorf(n, field, "reply nested too deep")
		return r
	}
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			r.Kind = RNil
		case "!!int":
			v, err := strconv.ParseInt(n.Value, 10, 64)
			if err != nil {
				p.errorf(n, field, "integer reply %s is not a decimal 64-bit integer", n.Value)
			}
			r.Kind, r.Int = RInt, v
		case "!!str":
			r.Kind, r.Str = RBulk, n.Value
		default:
			p.errorf(n, field, "%s is not a Redis reply: quote it for a bulk string", yamlnode.Describe(n))
		}
	case yaml.SequenceNode:
		r.Kind = RArray
		r.Elems = []*ReplySpec{}
		for i, c := range n.Content {
			r.Elems = append(r.Elems, p.reply(c, fmt.Sprintf("%s[%d]", field, i+1), depth+1))
		}
	case yaml.MappingNode:
		pairs := p.pairs(n, field)
		if len(pairs) != 1 {
			p.errorf(n, field, "a typed reply is one of {status: s}, {error: s}, {error_prefix: s}, {ttl_ms: ms}")
			return r
		}
		k, v := pairs[0][0], pairs[0][1]
		switch k.Value {
		case "status":
			r.Kind, r.Str = RStatus, p.text(v, field+".status")
		case "error":
			r.Kind, r.Str = RError, p.text(v, field+".error")
			if r.Str == "" {
				p.errorf(v, field+".error", "must not be empty")
			}
		case "error_prefix":
			r.Kind, r.Str = RErrorPrefix, p.text(v, field+".error_prefix")
			if r.Str == "" {
				p.errorf(v, field+".error_prefix", "must not be empty")
			}
		case "ttl_ms":
			r.Kind = RTTL
			if t := p.ttl(v, field+".ttl_ms", false); t != nil {
				r.TTL = *t
			}
		default:
			p.errorf(k, field+"."+k.Value, "unknown reply type %q: want status, error, error_prefix or ttl_ms", k.Value)
		}
	}
	return r
}
