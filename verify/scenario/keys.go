package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/verify"
)

// WriteKeys writes keys in the keyspace format ParseKeys reads, sorted by
// name, so a state written by one run can seed the next: a hash's fields, a
// list's elements, a set's members and a sorted set's members in the order
// the Key holds them, a stream's entries in ID order. A PTTL of -1 (no
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
		switch k.Type {
		case "string", "":
			spec.Content = append(spec.Content, strNode("value"), strNode(k.Value))
		case "hash":
			h := &yaml.Node{Kind: yaml.MappingNode}
			for _, f := range k.Hash {
				h.Content = append(h.Content, strNode(f.Name), strNode(f.Value))
			}
			spec.Content = append(spec.Content, strNode("hash"), h)
		case "list":
			spec.Content = append(spec.Content, strNode("list"), strList(k.List))
		case "set":
			spec.Content = append(spec.Content, strNode("set"), strList(k.Set))
		case "zset":
			z := &yaml.Node{Kind: yaml.SequenceNode}
			for _, m := range k.ZSet {
				// No tag: the score is written plain (2, 0.5, 1e+20, inf),
				// and read back by its text, as ZADD reads it.
				score := &yaml.Node{Kind: yaml.ScalarNode, Value: FormatScore(m.Score)}
				z.Content = append(z.Content, &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: []*yaml.Node{strNode(m.Member), score}})
			}
			spec.Content = append(spec.Content, strNode("zset"), z)
		case "stream":
			if k.Stream == nil {
				return fmt.Errorf("key %q: a stream read by its type only cannot be written to a state file", k.Name)
			}
			spec.Content = append(spec.Content, strNode("stream"), streamNode(*k.Stream))
		default:
			return fmt.Errorf("key %q: a %s cannot be written to a state file", k.Name, k.Type)
		}
		if k.PTTL >= 0 {
			spec.Content = append(spec.Content, strNode("ttl_ms"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(max(k.PTTL, 1), 10)})
		}
		if k.Type == "hash" && len(k.FieldTTL) > 0 {
			ft := &yaml.Node{Kind: yaml.MappingNode}
			for _, f := range k.Hash {
				if ms, ok := k.FieldTTL[f.Name]; ok {
					ft.Content = append(ft.Content, strNode(f.Name), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(max(ms, 1), 10)})
				}
			}
			spec.Content = append(spec.Content, strNode("field_ttl_ms"), ft)
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

func strList(l []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	for _, s := range l {
		n.Content = append(n.Content, strNode(s))
	}
	return n
}

// The texts strtod reads whole, which is how Redis reads a score
// (string2d): decimal, hexadecimal (the binary exponent optional) and
// infinity, each with an optional sign. NaN is refused separately.
var (
	decimalScore = lazy.Regexp(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
	hexScore     = lazy.Regexp(`^[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?[0-9]+)?$`)
	infScore     = lazy.Regexp(`^(?i)[+-]?(inf|infinity)$`)
	// A mantissa with a digit other than 0, which must not read as zero.
	nonZeroDecimal = lazy.Regexp(`^[^eE]*[1-9]`)
	nonZeroHex     = lazy.Regexp(`^[^pP]*[1-9a-fA-F]`)
)

// ParseScore reads a sorted-set score as ZADD does (string2d in Redis
// 7.0.15: strtod of the whole text, no leading space, no overflow to
// infinity, no underflow to zero, no NaN).
func ParseScore(s string) (float64, error) {
	bad := func() (float64, error) {
		return 0, fmt.Errorf("score %q is not a valid float (ZADD would refuse it)", s)
	}
	switch {
	case infScore.Get().MatchString(s):
		if s[0] == '-' {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case decimalScore.Get().MatchString(s):
	case hexScore.Get().MatchString(s):
		if !strings.ContainsAny(s, "pP") {
			s += "p0" // Go wants the exponent strtod takes as optional
		}
	default:
		return bad()
	}
	f, err := strconv.ParseFloat(s, 64)
	digits := strings.TrimLeft(s, "+-")
	nonZero := nonZeroDecimal.Get().MatchString(digits)
	if hexScore.Get().MatchString(s) {
		nonZero = nonZeroHex.Get().MatchString(digits[2:])
	}
	if err != nil || (f == 0 && nonZero) {
		return bad()
	}
	return f, nil
}

// FormatScore writes a score so that ParseScore (and ZADD) read the same
// double back: the shortest exact decimal, or inf and -inf. Between 1e-6
// and 1e21 it has no exponent (a millisecond timestamp is 1796427678095,
// not 1.796427678095e+12), as Redis prints it.
func FormatScore(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0 || math.Abs(f) >= 1e-6 && math.Abs(f) < 1e21:
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// SameContents reports whether two keys have the same type and contents,
// compared the way Redis orders them: a list in order, a sorted set by its
// members and scores, a set as a set (Redis gives a large set no order),
// and a hash in order while it is small enough for Redis to keep its
// insertion order (a listpack: at most 512 fields of at most 64 bytes),
// otherwise as a set of fields.
func SameContents(a, b Key) bool {
	if a.Type != b.Type {
		return false
	}
	switch a.Type {
	case "hash":
		if listpackHash(a.Hash) && listpackHash(b.Hash) {
			return slices.Equal(a.Hash, b.Hash)
		}
		return slices.Equal(sortedFields(a.Hash), sortedFields(b.Hash))
	case "list":
		return slices.Equal(a.List, b.List)
	case "set":
		return slices.Equal(sortedStrings(a.Set), sortedStrings(b.Set))
	case "zset":
		return slices.Equal(sortedZSet(a.ZSet), sortedZSet(b.ZSet))
	case "stream":
		return sameStream(a.Stream, b.Stream, false)
	}
	return a.Value == b.Value
}

// listpackHash reports whether Redis 7.0.15 (compiled-in defaults
// hash-max-listpack-entries 512, hash-max-listpack-value 64)
// keeps h in a listpack, whose field order is insertion order.
func listpackHash(h []verify.Field) bool {
	if len(h) > 512 {
		return false
	}
	for _, f := range h {
		if len(f.Name) > 64 || len(f.Value) > 64 {
			return false
		}
	}
	return true
}

func sortedFields(h []verify.Field) []verify.Field {
	out := slices.Clone(h)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func sortedStrings(l []string) []string {
	out := slices.Clone(l)
	sort.Strings(out)
	return out
}

// sortedZSet is a sorted set in ZRANGE's order: by score, then member.
func sortedZSet(z []verify.ZMember) []verify.ZMember {
	out := slices.Clone(z)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score < out[j].Score
		}
		return out[i].Member < out[j].Member
	})
	return out
}

// contentsString is a key's contents on one line, for traces and
// differences: "tok", hash {"f": "v"}, list ["a", "b"], set {"a", "b"},
// zset {"m": 1, "n": inf}.
func contentsString(k Key) string {
	quote := func(l []string) string {
		q := make([]string, len(l))
		for i, s := range l {
			q[i] = strconv.Quote(s)
		}
		return strings.Join(q, ", ")
	}
	switch k.Type {
	case "string":
		return strconv.Quote(k.Value)
	case "hash":
		parts := make([]string, len(k.Hash))
		for i, f := range k.Hash {
			parts[i] = fmt.Sprintf("%q: %q", f.Name, f.Value)
		}
		return "hash {" + strings.Join(parts, ", ") + "}"
	case "list":
		return "list [" + quote(k.List) + "]"
	case "set":
		return "set {" + quote(k.Set) + "}"
	case "zset":
		parts := make([]string, len(k.ZSet))
		for i, m := range k.ZSet {
			parts[i] = fmt.Sprintf("%q: %s", m.Member, FormatScore(m.Score))
		}
		return "zset {" + strings.Join(parts, ", ") + "}"
	case "stream":
		return streamString(k.Stream)
	}
	return "a " + k.Type
}

// PutCommands are the commands that write k to a server under the name
// key, replacing what is there: DEL, then the contents in the Key's order
// (SET, HSET, RPUSH, SADD or ZADD, so a hash keeps its field order; a
// stream as streamPutCommands), then HPEXPIRE for each field with a TTL
// (Redis 7.4+), in field order, and PEXPIRE for a positive PTTL.
func PutCommands(k Key, key string) [][]string {
	cmds := [][]string{{"DEL", key}}
	var c []string
	switch k.Type {
	case "hash":
		c = []string{"HSET", key}
		for _, f := range k.Hash {
			c = append(c, f.Name, f.Value)
		}
	case "list":
		c = append([]string{"RPUSH", key}, k.List...)
	case "set":
		c = append([]string{"SADD", key}, k.Set...)
	case "zset":
		c = []string{"ZADD", key}
		for _, m := range k.ZSet {
			c = append(c, FormatScore(m.Score), m.Member)
		}
	case "stream":
		if k.Stream != nil {
			cmds = append(cmds, streamPutCommands(*k.Stream, key)...)
		}
	default:
		c = []string{"SET", key, k.Value}
	}
	if c != nil {
		cmds = append(cmds, c)
	}
	if k.Type == "hash" {
		for _, f := range k.Hash {
			if ms, ok := k.FieldTTL[f.Name]; ok && ms > 0 {
				cmds = append(cmds, []string{"HPEXPIRE", key, strconv.FormatInt(ms, 10), "FIELDS", "1", f.Name})
			}
		}
	}
	if k.PTTL > 0 {
		cmds = append(cmds, []string{"PEXPIRE", key, strconv.FormatInt(k.PTTL, 10)})
	}
	return cmds
}

// DoFunc sends one command to a server and returns its reply; err is a
// connection or protocol failure, never an error reply.
type DoFunc func(ctx context.Context, args ...string) (verify.Reply, error)

// ReadKey reads the key named key from a server as name: its type, its
// contents (GET, HGETALL, LRANGE 0 -1, SMEMBERS, ZRANGE 0 -1 WITHSCORES,
// XINFO STREAM FULL COUNT 0; a hash's field TTLs by HPTTL where the server
// has it) and its PTTL. ok is false when the key does not
// exist, or expired while it was read.
func ReadKey(ctx context.Context, do DoFunc, key, name string) (k Key, ok bool, err error) {
	t, err := do(ctx, "TYPE", key)
	if err != nil || t.Kind == verify.Error || t.Str == "none" {
		return Key{}, false, err
	}
	k = Key{Name: name, Type: t.Str, PTTL: -1}
	var cmd []string
	switch t.Str {
	case "string":
		cmd = []string{"GET", key}
	case "hash":
		cmd = []string{"HGETALL", key}
	case "list":
		cmd = []string{"LRANGE", key, "0", "-1"}
	case "set":
		cmd = []string{"SMEMBERS", key}
	case "zset":
		cmd = []string{"ZRANGE", key, "0", "-1", "WITHSCORES"}
	case "stream":
		cmd = []string{"XINFO", "STREAM", key, "FULL", "COUNT", "0"}
	}
	if cmd != nil {
		r, err := do(ctx, cmd...)
		if err != nil {
			return Key{}, false, err
		}
		if r.Kind == verify.Nil || (r.Kind == verify.Array && len(r.Elems) == 0) {
			return Key{}, false, nil // expired between TYPE and now
		}
		if r.Kind == verify.Error {
			if x, err := do(ctx, "EXISTS", key); err == nil && x.Kind == verify.Int && x.Int == 0 {
				return Key{}, false, nil // expired between TYPE and now
			}
			return Key{}, false, fmt.Errorf("%s %q: %s", cmd[0], key, r.Str)
		}
		if err := fill(&k, r); err != nil {
			return Key{}, false, fmt.Errorf("%s %q: %w", cmd[0], key, err)
		}
		if k.Type == "hash" {
			if err := readFieldTTLs(ctx, do, key, &k); err != nil {
				return Key{}, false, err
			}
		}
	}
	p, err := do(ctx, "PTTL", key)
	if err != nil {
		return Key{}, false, err
	}
	if p.Kind == verify.Int && p.Int == -2 {
		return Key{}, false, nil // expired between the reads
	}
	if p.Kind == verify.Int && p.Int >= 0 {
		k.PTTL = p.Int
	}
	return k, true, nil
}

// readFieldTTLs reads the TTLs of a hash's fields (HPTTL, Redis 7.4+); a
// server without hash-field expiry answers an error, and then no field has
// one.
func readFieldTTLs(ctx context.Context, do DoFunc, key string, k *Key) error {
	args := []string{"HPTTL", key, "FIELDS", strconv.Itoa(len(k.Hash))}
	for _, f := range k.Hash {
		args = append(args, f.Name)
	}
	r, err := do(ctx, args...)
	if err != nil || r.Kind != verify.Array || len(r.Elems) != len(k.Hash) {
		return err
	}
	for i, x := range r.Elems {
		if x.Kind == verify.Int && x.Int >= 0 {
			if k.FieldTTL == nil {
				k.FieldTTL = map[string]int64{}
			}
			k.FieldTTL[k.Hash[i].Name] = x.Int
		}
	}
	return nil
}

// fill sets k's contents from the reply of the command ReadKey sent. A
// RESP3 connection answers ZRANGE WITHSCORES as [member, score] pairs: they
// are read as RESP2's flat list.
func fill(k *Key, r verify.Reply) error {
	var strs []string
	for _, e := range r.Elems {
		if e.Kind == verify.Array {
			for _, x := range e.Elems {
				strs = append(strs, x.Str)
			}
			continue
		}
		strs = append(strs, e.Str)
	}
	switch k.Type {
	case "string":
		k.Value = r.Str
	case "hash":
		for i := 0; i+1 < len(strs); i += 2 {
			k.Hash = append(k.Hash, verify.Field{Name: strs[i], Value: strs[i+1]})
		}
	case "list":
		k.List = strs
	case "set":
		k.Set = strs
	case "zset":
		for i := 0; i+1 < len(strs); i += 2 {
			f, err := ParseScore(strs[i+1])
			if err != nil {
				return err
			}
			k.ZSet = append(k.ZSet, verify.ZMember{Member: strs[i], Score: f})
		}
	case "stream":
		st, err := readStream(r)
		if err != nil {
			return err
		}
		k.Stream = st
	}
	return nil
}

// JSONHash is a hash in the JSON reports: an object whose members are in
// the hash's field order.
type JSONHash []verify.Field

// MarshalJSON writes {"field": "value", ...} in order, with <, > and &
// as they are (the reports do not escape HTML).
func (h JSONHash) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, f := range h {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(f.Name); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(f.Value); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// JSONZSet is a sorted set in the JSON reports: [member, score] pairs, the
// score as text (FormatScore), since JSON numbers have no infinity.
func JSONZSet(z []verify.ZMember) [][2]string {
	if len(z) == 0 {
		return nil
	}
	out := make([][2]string, len(z))
	for i, m := range z {
		out[i] = [2]string{m.Member, FormatScore(m.Score)}
	}
	return out
}
