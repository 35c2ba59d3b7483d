package difftest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Snippet is one corpus entry.
type Snippet struct {
	Name       string     `yaml:"name"`
	Script     string     `yaml:"script"`
	Keys       []string   `yaml:"keys"`
	Args       []string   `yaml:"args"`
	Setup      [][]string `yaml:"setup"`
	After      [][]string `yaml:"after"`
	NoFunction string     `yaml:"no_function"`

	File string `yaml:"-"`
	Line int    `yaml:"-"`
}

// Pos is file:line of the snippet, for messages.
func (s Snippet) Pos() string { return fmt.Sprintf("%s:%d", s.File, s.Line) }

// parseCorpus reads one snippet file. Unknown fields, missing names or
// scripts and empty commands are errors naming file:line and the field.
func parseCorpus(file string, data []byte) ([]Snippet, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: want a list of snippets", file, list.Line)
	}
	var out []Snippet
	for _, n := range list.Content {
		var s Snippet
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		if err := enc.Encode(n); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, n.Line, err)
		}
		dec := yaml.NewDecoder(&buf)
		dec.KnownFields(true)
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, n.Line, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		s.File, s.Line = file, n.Line
		switch {
		case s.Name == "":
			return nil, fmt.Errorf("%s:%d: field name: missing", file, n.Line)
		case strings.TrimSpace(s.Script) == "":
			return nil, fmt.Errorf("%s:%d: snippet %q: field script: missing", file, n.Line, s.Name)
		}
		for _, cmds := range [][][]string{s.Setup, s.After} {
			for _, c := range cmds {
				if len(c) == 0 {
					return nil, fmt.Errorf("%s:%d: snippet %q: empty command in setup or after", file, n.Line, s.Name)
				}
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// loadCorpus reads every testdata/snippets/*.yaml file; snippet names are
// unique across files.
func loadCorpus(dir string) ([]Snippet, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	seen := map[string]string{}
	var all []Snippet
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		snips, err := parseCorpus(filepath.Base(f), data)
		if err != nil {
			return nil, err
		}
		for _, s := range snips {
			if prev, ok := seen[s.Name]; ok {
				return nil, fmt.Errorf("%s: snippet name %q already used at %s", s.Pos(), s.Name, prev)
			}
			seen[s.Name] = s.Pos()
			all = append(all, s)
		}
	}
	return all, nil
}
