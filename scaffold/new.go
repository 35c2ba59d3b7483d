package scaffold

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/scriptctl/scriptctl/internal/safefile"
	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/atomicfile"
	"github.com/scriptctl/scriptctl/internal/valueset"
	"github.com/scriptctl/scriptctl/manifest"
)

// IsFileName reports whether s can name a new scenario: lowercase letters,
// digits, _ and -.
func IsFileName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return s != ""
}

// IsScriptName reports whether s is a valid manifest script name.
func IsScriptName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return s != ""
}

// NewScenario writes lua_test/NAME.yaml beside the manifest: a scenario that
// calls script (default: the first script of the first caller, else the
// manifest's first script) once, with the caller's first sample values and
// "1" for every arg, and checks nothing yet. Scenarios are discovered, so
// the manifest is not changed. It returns the path written.
func NewScenario(m *manifest.Manifest, name, script string, force bool) (string, error) {
	if !IsFileName(name) {
		return "", fmt.Errorf("invalid scenario name %q: use lowercase letters, digits, _ and -", name)
	}
	if len(m.Scripts) == 0 {
		return "", fmt.Errorf("%s declares no script to call: add one first ('scriptctl new script NAME')", m.Path)
	}
	var caller *manifest.Caller
	if script == "" {
		script = m.Scripts[0].Name
		if len(m.Callers) > 0 && len(m.Callers[0].Scripts) > 0 {
			caller, script = m.Callers[0], m.Callers[0].Scripts[0]
		}
	}
	s := m.Script(script)
	if s == nil {
		return "", fmt.Errorf("%s declares no script %q", m.Path, script)
	}
	bound := caller != nil
	for _, c := range m.Callers {
		if !bound && slices.Contains(c.Scripts, script) {
			caller, bound = c, true
		}
	}
	if caller == nil && len(m.Callers) > 0 {
		// No caller binds the script: the scenario still runs in a
		// caller's context (its vars fill the templates), and names the
		// script's keys literally.
		caller = m.Callers[0]
	}
	var callerName, vars string
	if caller != nil {
		// Named even when it is the only caller: a second caller added
		// later must not leave the scenario without one.
		callerName = caller.Name
		var pairs []string
		seen := map[string]bool{}
		for _, k := range caller.Keys {
			for _, p := range placeholders(k.Template) {
				if seen[p] {
					continue
				}
				seen[p] = true
				v := placeholderValue(caller, p)
				pairs = append(pairs, fmt.Sprintf("%s: %q", p, v))
			}
		}
		vars = strings.Join(pairs, ", ")
	}
	var args []string
	for _, a := range s.Args {
		if a != "token" {
			args = append(args, a+`: "1"`)
		}
	}
	b := newScenarioYAML(name, callerName, vars, script, strings.Join(args, ", "))
	if !bound && len(s.Keys) > 0 {
		// No caller binds the script's keys: name them literally.
		keys := make([]string, len(s.Keys))
		for i, k := range s.Keys {
			keys[i] = fmt.Sprintf("%q", "{"+name+"}:"+k)
		}
		b = bytes.Replace(b, []byte("    call: "+script+"\n"), []byte("    call: "+script+"\n    keys: ["+strings.Join(keys, ", ")+"]\n"), 1)
	}
	rel := "lua_test/" + name + ".yaml"
	if err := writeFiles(m.Dir, []file{{rel, b}}, force); err != nil {
		return "", err
	}
	return filepath.Join(m.Dir, filepath.FromSlash(rel)), nil
}

// placeholderValue is the value a new scenario gives placeholder p of
// caller: its first sample; else "1" when the caller's declared values for
// p take it; else the first non-empty value without braces (or any value)
// found among them.
func placeholderValue(caller *manifest.Caller, p string) string {
	if samples := caller.Samples[p]; len(samples) > 0 {
		return samples[0]
	}
	ph, ok := caller.Placeholders[p]
	if !ok {
		return "1"
	}
	set, err := valueset.New(ph.Pattern, ph.NonEmpty, false)
	if err != nil || set.Contains("1") {
		return "1"
	}
	cands := set.Candidates(0)
	for _, v := range cands {
		if v != "" && !strings.ContainsAny(v, "{}") {
			return v
		}
	}
	if len(cands) > 0 {
		return cands[0]
	}
	return "1"
}

// placeholders returns the <name>s of a key template, in order.
func placeholders(tmpl string) []string {
	var out []string
	for {
		i := strings.IndexByte(tmpl, '<')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(tmpl[i:], '>')
		if j < 0 {
			return out
		}
		out = append(out, tmpl[i+1:i+j])
		tmpl = tmpl[i+j+1:]
	}
}

// NewScript writes lua/NAME.lua beside the manifest at manifestPath with
// the given keys and args (nil: one key "key" and one arg "value"; empty:
// none) and registers it under scripts: in the manifest, keeping the
// manifest's comments and layout: the entry is inserted as text after the
// last script, at the indentation the file uses. The edited manifest is
// validated before anything is written. It returns the paths written.
func NewScript(manifestPath, name string, keys, args []string, force bool) ([]string, error) {
	if !IsScriptName(name) {
		return nil, fmt.Errorf("invalid script name %q: use lowercase letters, digits and _", name)
	}
	m, err := manifest.Load(manifestPath)
	if err != nil {
		return nil, err
	}
	if m.Script(name) != nil {
		return nil, fmt.Errorf("%s already declares script %q", m.Path, name)
	}
	src, err := safefile.Read(manifestPath, manifest.MaxManifestSize)
	if err != nil {
		return nil, err
	}
	rel := "lua/" + name + ".lua"
	if keys == nil {
		keys = []string{"key"}
	}
	if args == nil {
		args = []string{"value"}
	}
	edited, err := AddScript(src, name, rel, keys, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", manifestPath, err)
	}
	body := newScriptLua(name, keys, args)
	// Parse reads the script, so it is written first and removed again
	// when the edited manifest does not validate.
	if _, err := os.Stat(filepath.Join(m.Dir, rel)); err == nil && !force {
		return nil, &ExistsError{Dir: m.Dir, Files: []string{rel}}
	}
	if err := writeFiles(m.Dir, []file{{rel, body}}, true); err != nil {
		return nil, err
	}
	scriptPath := filepath.Join(m.Dir, filepath.FromSlash(rel))
	if _, err := manifest.Parse(manifestPath, edited); err != nil {
		os.Remove(scriptPath)
		return nil, fmt.Errorf("the edited manifest does not validate (nothing written): %w", err)
	}
	if err := atomicfile.Write(manifestPath, edited); err != nil {
		os.Remove(scriptPath)
		return nil, err
	}
	return []string{scriptPath, manifestPath}, nil
}

// AddScript returns manifest source src with a script entry added at the end
// of its scripts: mapping. A block mapping gets the entry as text after its
// last script, so every comment and blank line stays where it was; a
// missing, empty or flow-style scripts: is rewritten through yaml.v3's node
// tree (which keeps comments, though not always their exact layout).
func AddScript(src []byte, name, file string, keys, args []string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("not a YAML mapping")
	}
	top := doc.Content[0]
	var scripts *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "scripts" {
			scripts = top.Content[i+1]
		}
	}
	if scripts != nil && scripts.Kind == yaml.MappingNode && scripts.Style&yaml.FlowStyle == 0 && len(scripts.Content) >= 2 {
		indent := scripts.Content[0].Column - 1
		field := scripts.Content[1]
		fieldIndent := indent + 2
		if field.Kind == yaml.MappingNode && len(field.Content) > 0 && field.Style&yaml.FlowStyle == 0 {
			fieldIndent = field.Content[0].Column - 1
		}
		last := lastLine(scripts.Content[len(scripts.Content)-1])
		pad, fpad := strings.Repeat(" ", indent), strings.Repeat(" ", fieldIndent)
		entry := fmt.Sprintf("%s%s:\n%sfile: %s\n%skeys: [%s]\n%sargs: [%s]\n", pad, name, fpad, file, fpad, strings.Join(keys, ", "), fpad, strings.Join(args, ", "))
		lines := strings.SplitAfter(string(src), "\n")
		if last > len(lines) {
			last = len(lines)
		}
		if !strings.HasSuffix(lines[last-1], "\n") {
			lines[last-1] += "\n"
		}
		out := strings.Join(lines[:last], "") + entry + strings.Join(lines[last:], "")
		return []byte(out), nil
	}
	entry := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "file"}, {Kind: yaml.ScalarNode, Value: file},
		{Kind: yaml.ScalarNode, Value: "keys"}, flowList(keys),
		{Kind: yaml.ScalarNode, Value: "args"}, flowList(args),
	}}
	if scripts == nil {
		scripts = &yaml.Node{Kind: yaml.MappingNode}
		top.Content = append(top.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "scripts"}, scripts)
	}
	if scripts.Kind != yaml.MappingNode {
		scripts.Kind, scripts.Tag, scripts.Value, scripts.Content = yaml.MappingNode, "!!map", "", nil
	}
	scripts.Style = 0
	scripts.Content = append(scripts.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, entry)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func flowList(items []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range items {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: s})
	}
	return n
}

// lastLine is the last source line a node's value occupies (1-based): the
// greatest line of the node and its descendants.
func lastLine(n *yaml.Node) int {
	l := n.Line
	if n.Kind == yaml.ScalarNode && (n.Style&(yaml.LiteralStyle|yaml.FoldedStyle)) != 0 {
		l += strings.Count(strings.TrimRight(n.Value, "\n"), "\n") + 1
	}
	for _, c := range n.Content {
		l = max(l, lastLine(c))
	}
	return l
}
