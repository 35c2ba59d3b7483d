package difftest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/verify"
)

// Snippet is one corpus entry.
type Snippet struct {
	Name       string     `yaml:"name"`
	Script     string     `yaml:"script"`
	ScriptFile string     `yaml:"file"` // instead of script: a file's exact bytes, path from the repository root
	Keys       []string   `yaml:"keys"`
	Args       []string   `yaml:"args"`
	Setup      [][]string `yaml:"setup"`
	After      [][]string `yaml:"after"`
	NoFunction string     `yaml:"no_function"`
	ReadOnly   bool       `yaml:"readonly"` // EVAL_RO; as a function: flags no-writes and FCALL_RO
	Library    string     `yaml:"library"`  // function mode only: this library's code, loaded as is
	Function   string     `yaml:"function"` // with library: the function FCALL calls
	Targets    []string   `yaml:"targets"`  // only on these targets (verify.Targets); empty: all
	// Topology "cluster" runs the snippet on a node of a 3-primary
	// cluster only (TestClusterCorpus); "" or "standalone" on a
	// standalone server.
	Topology string `yaml:"topology"`

	File string `yaml:"-"`
	Line int    `yaml:"-"`
}

// Pos is file:line of the snippet, for messages.
func (s Snippet) Pos() string { return fmt.Sprintf("%s:%d", s.File, s.Line) }

var snippetFields = map[string]bool{
	"name": true, "script": true, "file": true, "keys": true, "args": true,
	"setup": true, "after": true, "no_function": true, "readonly": true,
	"library": true, "function": true, "targets": true, "topology": true,
}

// runs reports whether s runs on a standalone server of target in the
// mode: a library snippet runs in function mode only, a no_function one in
// EVAL mode only, a snippet with targets only on those, and a cluster
// snippet never (runsCluster).
func (s Snippet) runs(target string, fcall bool) bool {
	if s.Topology == verify.TopologyCluster {
		return false
	}
	return s.runsOn(target, fcall)
}

// runsCluster is runs for the cluster snippets.
func (s Snippet) runsCluster(target string, fcall bool) bool {
	return s.Topology == verify.TopologyCluster && s.runsOn(target, fcall)
}

func (s Snippet) runsOn(target string, fcall bool) bool {
	if (fcall && s.NoFunction != "") || (!fcall && s.Library != "") {
		return false
	}
	if len(s.Targets) == 0 {
		return true
	}
	for _, n := range s.Targets {
		if n == target {
			return true
		}
	}
	return false
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// parseCorpus reads one snippet file. Syntax errors, unknown fields,
// missing names or scripts and empty commands are errors naming file:line
// and the field.
func parseCorpus(file string, data []byte) ([]Snippet, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := err.Error()
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			return nil, fmt.Errorf("%s:%s: %s", file, m[1], msg[len(m[0]):])
		}
		return nil, fmt.Errorf("%s: %s", file, strings.TrimPrefix(msg, "yaml: "))
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
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d: want a snippet (name, script, ...)", file, n.Line)
		}
		for i := 0; i < len(n.Content); i += 2 {
			if k := n.Content[i]; !snippetFields[k.Value] {
				return nil, fmt.Errorf("%s:%d: unknown field %q (want name, script, file, library, function, keys, args, setup, after, no_function, readonly, targets or topology)", file, k.Line, k.Value)
			}
		}
		var s Snippet
		if err := n.Decode(&s); err != nil {
			return nil, fmt.Errorf("%s:%d: %s", file, n.Line, strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  "))
		}
		s.File, s.Line = file, n.Line
		switch {
		case s.Name == "":
			return nil, fmt.Errorf("%s:%d: field name: missing", file, n.Line)
		case s.Library != "" && (s.Script != "" || s.ScriptFile != ""):
			return nil, fmt.Errorf("%s:%d: snippet %q: field library: a library snippet has no script or file", file, n.Line, s.Name)
		case s.Library != "" && s.Function == "":
			return nil, fmt.Errorf("%s:%d: snippet %q: field function: missing (the function to call)", file, n.Line, s.Name)
		case s.Library == "" && s.Function != "":
			return nil, fmt.Errorf("%s:%d: snippet %q: field function: only with library", file, n.Line, s.Name)
		case s.Library != "":
		case s.Script != "" && s.ScriptFile != "":
			return nil, fmt.Errorf("%s:%d: snippet %q: fields script and file: use one", file, n.Line, s.Name)
		case strings.TrimSpace(s.Script) == "" && s.ScriptFile == "":
			return nil, fmt.Errorf("%s:%d: snippet %q: field script: missing", file, n.Line, s.Name)
		}
		if s.Topology != "" && s.Topology != verify.TopologyCluster && s.Topology != verify.TopologyStandalone {
			return nil, fmt.Errorf("%s:%d: snippet %q: field topology: want cluster or standalone", file, n.Line, s.Name)
		}
		for _, name := range s.Targets {
			if err := verify.CheckTarget(name); err != nil {
				return nil, fmt.Errorf("%s:%d: snippet %q: field targets: %v", file, n.Line, s.Name, err)
			}
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

// repoRoot is where a snippet's file path starts.
const repoRoot = "../.."

// loadCorpus reads every testdata/snippets/*.yaml file and the script files
// snippets name; snippet names are unique across files.
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
		for i := range snips {
			s := &snips[i]
			if s.ScriptFile != "" {
				src, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(s.ScriptFile)))
				if err != nil {
					return nil, fmt.Errorf("%s: snippet %q: field file: %w", s.Pos(), s.Name, err)
				}
				s.Script = string(src)
			}
			if prev, ok := seen[s.Name]; ok {
				return nil, fmt.Errorf("%s: snippet name %q already used at %s", s.Pos(), s.Name, prev)
			}
			seen[s.Name] = s.Pos()
			all = append(all, *s)
		}
	}
	return all, nil
}
