package mutate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/safefile"
	"github.com/scriptctl/scriptctl/internal/yamlnode"
	"github.com/scriptctl/scriptctl/manifest"
)

// EquivalentFile is where a repository lists its equivalent mutants, beside
// the scenarios: released scripts are immutable (scripts.sum), so their
// equivalent mutants cannot be marked by a comment in the script.
const EquivalentFile = "lua_test/mutate/equivalent.yaml"

// maxEquivalentSize bounds the file.
const maxEquivalentSize = 1 << 20

// Equivalent is one entry of EquivalentFile: a mutant that cannot change
// what the script does, with the reason.
type Equivalent struct {
	Script   string
	Line     int // the mutated token's line in the script
	Column   int // its column (bytes, 1-based); 0 when the line has one such mutant
	Operator string
	From, To string
	Reason   string
	// At is the entry's line in EquivalentFile.
	At int
}

func (q Equivalent) matches(m Mutant) bool {
	return q.Script == m.Script && q.Line == m.Line && q.Operator == m.Operator && q.From == m.From && q.To == m.To &&
		(q.Column == 0 || q.Column == m.Col)
}

// LoadEquivalents reads m's EquivalentFile; a repository without one has
// none. Problems are manifest.Errors naming the file, line and field.
func LoadEquivalents(m *manifest.Manifest) ([]Equivalent, error) {
	path := filepath.Join(m.Dir, EquivalentFile)
	data, err := safefile.Read(path, maxEquivalentSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, manifest.Errors{{File: path, Msg: err.Error(), Err: err}}
	}
	return parseEquivalents(path, data, m)
}

func parseEquivalents(path string, data []byte, m *manifest.Manifest) ([]Equivalent, error) {
	var errs manifest.Errors
	report := func(at *yaml.Node, field, msg string) {
		e := &manifest.Error{File: path, Field: field, Msg: msg}
		if at != nil {
			e.Line, e.Col = at.Line, at.Column
		}
		errs = append(errs, e)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, manifest.Errors{{File: path, Msg: "not valid YAML: " + err.Error(), Err: err}}
	}
	root := &doc
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		root = doc.Content[0]
	}
	var out []Equivalent
	for _, kv := range yamlnode.Pairs(root, "", report) {
		if kv[0].Value != "equivalent" {
			report(kv[0], kv[0].Value, "unknown field: want equivalent")
			continue
		}
		list := yamlnode.Deref(kv[1])
		if list.Kind != yaml.SequenceNode {
			report(list, "equivalent", "must be a list of mutants, not "+yamlnode.Describe(list))
			continue
		}
		for i, item := range list.Content {
			field := fmt.Sprintf("equivalent[%d]", i)
			q := Equivalent{At: item.Line}
			seen := map[string]bool{}
			for _, p := range yamlnode.Pairs(yamlnode.Deref(item), field, report) {
				k, v := p[0].Value, yamlnode.Deref(p[1])
				f := yamlnode.Join(field, k)
				seen[k] = true
				if v.Kind != yaml.ScalarNode {
					report(v, f, "must be a scalar, not "+yamlnode.Describe(v))
					continue
				}
				switch k {
				case "script":
					q.Script = v.Value
					if m.Script(v.Value) == nil {
						msg := fmt.Sprintf("unknown script %q", v.Value)
						if s := manifest.Suggest(v.Value, m.ScriptNames()); s != "" {
							msg += fmt.Sprintf(" (did you mean %q?)", s)
						}
						report(v, f, msg)
					}
				case "line":
					if err := v.Decode(&q.Line); err != nil || q.Line < 1 {
						report(v, f, "must be a line number from 1, not "+yamlnode.Describe(v))
					}
				case "column":
					if err := v.Decode(&q.Column); err != nil || q.Column < 1 {
						report(v, f, "must be a column number from 1, not "+yamlnode.Describe(v))
					}
				case "operator":
					q.Operator = v.Value
					if !slices.Contains(Operators, v.Value) {
						report(v, f, fmt.Sprintf("unknown operator %q: want one of %s", v.Value, strings.Join(Operators, ", ")))
					}
				case "from":
					q.From = v.Value
				case "to":
					q.To = v.Value
				case "reason":
					q.Reason = strings.TrimSpace(v.Value)
				default:
					report(p[0], f, "unknown field: want script, line, column, operator, from, to, reason")
				}
			}
			for _, k := range []string{"script", "line", "operator", "from", "reason"} {
				if !seen[k] {
					report(item, field, "missing "+k)
				}
			}
			if seen["reason"] && q.Reason == "" {
				report(item, yamlnode.Join(field, "reason"), "must say why the mutant cannot change what the script does")
			}
			out = append(out, q)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// applyEquivalents marks the mutants the entries name as ignored, and
// reports every entry that names no mutant of the scripts (stale after a
// script changed), so that the list cannot silently stop applying.
func applyEquivalents(path string, qs []Equivalent, all []Result) error {
	var errs manifest.Errors
	for _, q := range qs {
		var hits []int
		for i := range all {
			if q.matches(all[i].Mutant) {
				hits = append(hits, i)
			}
		}
		switch {
		case len(hits) == 0:
			errs = append(errs, &manifest.Error{File: path, Line: q.At, Msg: fmt.Sprintf("no %s mutant `%s` → `%s` at %s line %d%s: the script changed, or the entry is wrong", q.Operator, q.From, q.To, q.Script, q.Line, colText(q.Column))})
		case len(hits) > 1:
			var cols []string
			for _, i := range hits {
				cols = append(cols, fmt.Sprint(all[i].Col))
			}
			errs = append(errs, &manifest.Error{File: path, Line: q.At, Msg: fmt.Sprintf("%d %s mutants `%s` → `%s` at %s line %d (columns %s): add column to name one", len(hits), q.Operator, q.From, q.To, q.Script, q.Line, strings.Join(cols, ", "))})
		default:
			if all[hits[0]].Ignored == "" {
				all[hits[0]].Ignored = q.Reason
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

func colText(col int) string {
	if col == 0 {
		return ""
	}
	return fmt.Sprintf(" column %d", col)
}
