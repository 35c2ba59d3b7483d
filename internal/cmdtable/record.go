package cmdtable

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/rueidis"
)

// Record reads the command table of the server c is connected to: INFO
// server for the exact version, COMMAND INFO and COMMAND DOCS for the
// commands. RecordedWith is left for the caller.
func Record(ctx context.Context, c rueidis.Client, target string) (*Table, error) {
	do := func(args ...string) (any, error) {
		return c.Do(ctx, c.B().Arbitrary(args...).Build()).ToAny()
	}
	t := &Table{Target: target}
	info, err := c.Do(ctx, c.B().Info().Section("server").Build()).ToString()
	if err != nil {
		return nil, fmt.Errorf("INFO server: %w", err)
	}
	fields := infoFields(info)
	t.Server, t.RedisVersion = fields["server_name"], fields["redis_version"]
	if t.Server == "" {
		t.Server = "redis"
	}
	t.Version = fields[t.Server+"_version"]
	if t.Version == "" {
		t.Version = t.RedisVersion
	}
	infos, err := do("COMMAND", "INFO")
	if err != nil {
		return nil, fmt.Errorf("COMMAND INFO: %w", err)
	}
	docs, err := do("COMMAND", "DOCS")
	if err != nil {
		return nil, fmt.Errorf("COMMAND DOCS: %w", err)
	}
	list, _ := infos.([]any)
	for _, e := range list {
		cmds, err := parseInfo(e)
		if err != nil {
			return nil, err
		}
		t.Commands = append(t.Commands, cmds...)
	}
	if len(t.Commands) == 0 {
		return nil, fmt.Errorf("COMMAND INFO listed no command")
	}
	addDocs(t, docs)
	return link(t)
}

func infoFields(info string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			out[k] = v
		}
	}
	return out
}

// parseInfo turns one COMMAND INFO entry into the command and its
// subcommands (which follow it, named "parent|sub").
func parseInfo(e any) ([]*Command, error) {
	f, ok := e.([]any)
	if !ok || len(f) < 6 {
		return nil, fmt.Errorf("COMMAND INFO entry %v: not an array of at least 6 fields", e)
	}
	c := &Command{
		Name:  strings.ToLower(str(f[0])),
		Arity: num(f[1]),
		Flags: strs(f[2]),
		First: num(f[3]),
		Last:  num(f[4]),
		Step:  num(f[5]),
	}
	if len(f) > 6 {
		c.ACL = strs(f[6])
	}
	if len(f) > 7 {
		c.Tips = strs(f[7])
	}
	if len(f) > 8 {
		specs, _ := f[8].([]any)
		for _, s := range specs {
			c.Specs = append(c.Specs, parseSpec(s))
		}
	}
	out := []*Command{c}
	if len(f) > 9 {
		subs, _ := f[9].([]any)
		for _, s := range subs {
			sc, err := parseInfo(s)
			if err != nil {
				return nil, err
			}
			out = append(out, sc...)
		}
	}
	return out, nil
}

func parseSpec(s any) KeySpec {
	m := asMap(s)
	ks := KeySpec{Flags: strs(m["flags"])}
	bs := asMap(m["begin_search"])
	ks.BeginSearch = str(bs["type"])
	bspec := asMap(bs["spec"])
	switch ks.BeginSearch {
	case "index":
		ks.Index = num(bspec["index"])
	case "keyword":
		ks.Keyword = str(bspec["keyword"])
		ks.StartFrom = num(bspec["startfrom"])
	}
	fk := asMap(m["find_keys"])
	ks.FindKeys = str(fk["type"])
	fspec := asMap(fk["spec"])
	switch ks.FindKeys {
	case "range":
		ks.LastKey, ks.KeyStep, ks.Limit = num(fspec["lastkey"]), num(fspec["keystep"]), num(fspec["limit"])
	case "keynum":
		ks.KeyNumIdx, ks.FirstKey, ks.KeyStep = num(fspec["keynumidx"]), num(fspec["firstkey"]), num(fspec["keystep"])
	}
	return ks
}

// addDocs copies what COMMAND DOCS says of each command and subcommand.
func addDocs(t *Table, docs any) {
	byName := map[string]*Command{}
	for _, c := range t.Commands {
		byName[c.Name] = c
	}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for name, d := range m {
			doc := asMap(d)
			full := prefix + strings.ToLower(name)
			if c, ok := byName[full]; ok {
				c.Group = str(doc["group"])
				c.Since = str(doc["since"])
				c.DocFlags = strs(doc["doc_flags"])
				c.DeprecatedSince = str(doc["deprecated_since"])
				c.ReplacedBy = str(doc["replaced_by"])
			}
			walk("", asMap(doc["subcommands"]))
		}
	}
	walk("", asMap(docs))
}

// asMap reads a RESP3 map, or a RESP2 flat array of pairs.
func asMap(v any) map[string]any {
	switch m := v.(type) {
	case map[string]any:
		return m
	case []any:
		out := map[string]any{}
		for i := 0; i+1 < len(m); i += 2 {
			out[str(m[i])] = m[i+1]
		}
		return out
	}
	return nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) int {
	n, _ := v.(int64)
	return int(n)
}

func strs(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		out = append(out, str(x))
	}
	return out
}
