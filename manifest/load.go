package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/scriptctl/scriptctl/internal/safefile"
	"github.com/scriptctl/scriptctl/internal/target"
	"github.com/scriptctl/scriptctl/internal/yamlnode"
	"gopkg.in/yaml.v3"
)

// MaxScriptSize bounds the size of one script file. Redis has no such limit,
// but a script this large is a mistake (a wrong path, a data file), and the
// limit keeps Load from reading a device or a huge file.
const MaxScriptSize = 4 << 20

// MaxManifestSize bounds the manifest file: a manifest is a few kilobytes of
// YAML, and a larger one is a mistake, not a deployment.
const MaxManifestSize = 16 << 20

// Load reads, parses and validates the manifest at path. Script files are
// read and hashed. When the manifest is invalid, or cannot be read, the error
// is an Errors value listing every problem (errors.Is(err, ErrInvalid)); an
// unreadable manifest also unwraps to its *os.PathError.
func Load(path string) (*Manifest, error) {
	data, err := safefile.Read(path, MaxManifestSize)
	if err != nil {
		msg := "cannot read the manifest"
		var pe *os.PathError
		if errors.As(err, &pe) {
			msg += ": " + pe.Err.Error()
		}
		return nil, Errors{{File: path, Msg: msg, Err: err}}
	}
	return Parse(path, data)
}

// Parse parses and validates manifest data as if read from path: script files
// resolve from path's folder.
func Parse(path string, data []byte) (*Manifest, error) {
	p := &parser{file: path, m: &Manifest{Path: path, Dir: filepath.Dir(path), raw: data}}
	p.parse(data)
	if len(p.errs) > 0 {
		sort.SliceStable(p.errs, func(i, j int) bool {
			a, b := p.errs[i], p.errs[j]
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Col < b.Col
		})
		return nil, p.errs
	}
	return p.m, nil
}

type parser struct {
	file string
	m    *Manifest
	errs Errors
	// badKeys names the scripts whose keys list is unusable, so callers
	// of them do not report every binding as undeclared.
	badKeys map[string]bool
}

func (p *parser) errorf(n *yaml.Node, field, format string, args ...any) {
	e := &Error{File: p.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	p.errs = append(p.errs, e)
}

var topFields = []string{"schema", "library", "version", "targets", "topology", "strict_keys", "deploy", "accept_cves", "scripts", "callers", "environments", "releases", "bindings"}

func (p *parser) parse(data []byte) {
	if len(bytes.TrimSpace(data)) == 0 {
		p.errs = append(p.errs, &Error{File: p.file, Line: 1, Col: 1, Msg: "the manifest is empty: want schema, library, version and scripts"})
		return
	}
	if line, col, msg := textPosition(data); msg != "" {
		p.errs = append(p.errs, &Error{File: p.file, Line: line, Col: col, Msg: msg})
		return
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err == io.EOF {
		p.errs = append(p.errs, &Error{File: p.file, Line: 1, Col: 1, Msg: "the manifest is empty: want schema, library, version and scripts"})
		return
	} else if err != nil {
		p.yamlError(err, data)
		return
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == io.EOF:
	case err != nil:
		p.yamlError(err, data)
		return
	default:
		p.errorf(&extra, "", "a manifest holds one YAML document; remove the second one (after ---)")
	}
	if len(doc.Content) == 0 {
		p.errs = append(p.errs, &Error{File: p.file, Line: 1, Col: 1, Msg: "the manifest is empty: want schema, library, version and scripts"})
		return
	}
	root := yamlnode.Deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		p.errorf(doc.Content[0], "", "the manifest must be a YAML mapping, not %s", yamlnode.Describe(doc.Content[0]))
		return
	}
	seen := p.fields(root, "", topFields)
	for _, req := range []string{"schema", "library", "version", "scripts"} {
		if seen[req] == nil {
			p.errorf(root, req, "required field is missing")
		}
	}
	if n := seen["schema"]; n != nil {
		p.m.Schema = p.posInt(n, "schema")
		if p.m.Schema != 0 && p.m.Schema != SchemaVersion {
			p.errorf(n, "schema", "unsupported schema %d: this scriptctl understands schema %d", p.m.Schema, SchemaVersion)
		}
	}
	if n := seen["library"]; n != nil {
		p.m.Library = p.str(n, "library")
		p.m.LibraryLine = n.Line
		if v := yamlnode.Deref(n); p.m.Library == "" && isString(v) {
			p.errorf(n, "library", "must not be empty")
		} else if p.m.Library != "" && !isLibraryName(p.m.Library) {
			p.errorf(n, "library", "invalid library name %q: use letters, digits and underscore", p.m.Library)
		}
	}
	if n := seen["version"]; n != nil {
		p.m.Version = p.posInt(n, "version")
	}
	p.m.Targets = []string{target.Default}
	if n := seen["targets"]; n != nil {
		p.m.TargetsLine = keyLine(root, "targets", n)
		p.targets(n)
	}
	p.keyRules(root, seen)
	p.m.Deploy = DeployBoth
	if n := seen["deploy"]; n != nil {
		switch d := p.str(n, "deploy"); d {
		case DeployBoth, DeployScripts, DeployFunctions:
			p.m.Deploy = d
		case "":
		default:
			p.errorf(n, "deploy", "invalid deploy %q: want both, scripts or functions", d)
		}
	}
	if n := seen["accept_cves"]; n != nil {
		p.m.AcceptCVEsLine = keyLine(root, "accept_cves", n)
		p.acceptCVEs(n)
	}
	if n := seen["scripts"]; n != nil {
		p.scripts(n)
	}
	if n := seen["callers"]; n != nil {
		p.callers(n)
	}
	if n := seen["environments"]; n != nil {
		p.environments(n)
	}
	if n := seen["releases"]; n != nil {
		p.releases(n)
	}
	if n := seen["bindings"]; n != nil {
		p.m.BindingsLine = keyLine(root, "bindings", n)
		p.bindings(n)
	}
}

// keyLine is the line of field name's key in mapping root, whose value is
// v: a block list starts on the line after its key. A field that root does
// not hold itself (one merged in with <<) is at v's line.
func keyLine(root *yaml.Node, name string, v *yaml.Node) int {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if yamlnode.Deref(root.Content[i]).Value == name && root.Content[i+1] == v {
			return root.Content[i].Line
		}
	}
	return v.Line
}

// yamlParserErrors are the messages of yaml.v3's parser (as opposed to its
// scanner). yaml.v3 reports their line 0-based (and omits line 0), while
// scanner errors are 1-based.
var yamlParserErrors = []string{
	"did not find expected <stream-start>",
	"did not find expected <document start>",
	"found undefined tag handle",
	"did not find expected node content",
	"did not find expected '-' indicator",
	"did not find expected key",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found duplicate %TAG directive",
}

func (p *parser) yamlError(err error, data []byte) {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		for _, msg := range te.Errors {
			p.errs = append(p.errs, &Error{File: p.file, Line: 1, Col: 1, Msg: msg})
		}
		return
	}
	// yaml.v3 errors read "yaml: line N: message" or "yaml: message"; the
	// column is not reported, so it is 1.
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line, col := 0, 1
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.Index(rest, ": "); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil && n > 0 {
				line = n
				msg = rest[i+2:]
			}
		}
	}
	if slices.Contains(yamlParserErrors, msg) {
		line++
	}
	if name, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
		name, _, _ = strings.Cut(name, "'")
		if i := bytes.Index(data, []byte("*"+name)); i >= 0 {
			line = bytes.Count(data[:i], []byte("\n")) + 1
			col = i - bytes.LastIndexByte(data[:i], '\n')
		}
	}
	if msg == "found a tab character that violates indentation" {
		// yaml.v3 names the line of the enclosing scalar; point at the
		// first line indented with a tab from there on.
		lines := strings.Split(string(data), "\n")
		for i := max(line-1, 0); i < len(lines); i++ {
			indent := lines[i][:len(lines[i])-len(strings.TrimLeft(lines[i], " \t"))]
			if j := strings.IndexByte(indent, '\t'); j >= 0 {
				line, col = i+1, j+1
				break
			}
		}
	}
	if at, c, note, ok := yamlnode.IndentContext(data, line, msg); ok {
		// yaml.v3 names where the block started; point at the line whose
		// indentation is wrong.
		msg = fmt.Sprintf("%s: %s (the parser noticed at line %d)", msg, note, max(line, 1))
		line, col = at, c
	}
	line = max(line, 1)
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Col: col, Msg: "invalid YAML: " + msg})
}

// textPosition finds the first byte of data that cannot appear in a YAML
// manifest: invalid UTF-8 or a control character other than tab, LF and CR.
// It returns its 1-based line and column (in characters) and a message, or
// an empty message.
func textPosition(data []byte) (line, col int, msg string) {
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return line, col, fmt.Sprintf("the manifest is not valid UTF-8 (byte 0x%02x)", data[i])
		case r == '\n':
			line, col = line+1, 0
		case r < 0x20 && r != '\t' && r != '\r' || r == 0x7f:
			return line, col, fmt.Sprintf("control character %U is not allowed in YAML", r)
		}
		i += size
		col++
	}
	return 0, 0, ""
}

// deref follows an alias to the node it names.
func isString(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!str" }

// fields checks that n is a mapping with keys from allowed, without
// duplicates, and returns the value node of each key present.
func (p *parser) fields(n *yaml.Node, path string, allowed []string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	for _, kv := range p.pairs(n, path) {
		k, v := kv[0], kv[1]
		name := yamlnode.Deref(k).Value
		if !slices.Contains(allowed, name) {
			msg := fmt.Sprintf("unknown field %q", name)
			if s := suggest(name, allowed); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				msg += fmt.Sprintf(": want one of %s", strings.Join(allowed, ", "))
			}
			p.errorf(k, yamlnode.Join(path, name), "%s", msg)
			continue
		}
		out[name] = v
	}
	return out
}

// pairs returns the key/value pairs of mapping n; see yamlnode.Pairs.
func (p *parser) pairs(n *yaml.Node, path string) [][2]*yaml.Node {
	return yamlnode.Pairs(n, path, func(at *yaml.Node, field, msg string) { p.errorf(at, field, "%s", msg) })
}

// str returns the string scalar n, reporting anything else.
func (p *parser) str(n *yaml.Node, field string) string {
	v := yamlnode.Deref(n)
	if !isString(v) {
		msg := fmt.Sprintf("must be a string, not %s", yamlnode.Describe(n))
		if v.Kind == yaml.ScalarNode && (v.Tag == "!!int" || v.Tag == "!!float" || v.Tag == "!!bool") {
			msg += fmt.Sprintf(" (quote it: \"%s\")", v.Value)
		}
		p.errorf(n, field, "%s", msg)
		return ""
	}
	return v.Value
}

// posInt returns the positive decimal integer n, reporting anything else.
func (p *parser) posInt(n *yaml.Node, field string) int {
	v := yamlnode.Deref(n)
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
		msg := fmt.Sprintf("must be a positive integer, not %s", yamlnode.Describe(n))
		if isString(v) && isDecimal(v.Value) {
			msg += " (remove the quotes)"
		}
		p.errorf(n, field, "%s", msg)
		return 0
	}
	if !isDecimal(v.Value) {
		p.errorf(n, field, "must be a positive integer, not %s", v.Value)
		return 0
	}
	i, err := strconv.ParseInt(v.Value, 10, 32)
	if err != nil {
		p.errorf(n, field, "%s is too large (at most %d)", v.Value, int32(^uint32(0)>>1))
		return 0
	}
	return int(i)
}

// isDecimal reports whether s is a positive integer in canonical decimal
// form: no sign, no leading zero, no underscores.
func isDecimal(s string) bool {
	if s == "" || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// strList returns the list of strings n; items that are not strings are
// reported and returned as "". ok is false when n is not a list.
func (p *parser) strList(n *yaml.Node, field string) (list []string, ok bool) {
	v := yamlnode.Deref(n)
	if v.Kind != yaml.SequenceNode {
		p.errorf(n, field, "must be a list, not %s", yamlnode.Describe(n))
		return nil, false
	}
	out := make([]string, 0, len(v.Content))
	for i, c := range v.Content {
		out = append(out, p.str(c, fmt.Sprintf("%s[%d]", field, i)))
	}
	return out, true
}

// item returns the i-th item node of list n (which strList accepted).
func item(n *yaml.Node, i int) *yaml.Node { return yamlnode.Deref(n).Content[i] }

// targets reads the server lines the manifest's scripts are proven on:
// known target names, no repeats, at least one.
func (p *parser) targets(n *yaml.Node) {
	list, ok := p.strList(n, "targets")
	if !ok {
		return
	}
	if len(list) == 0 {
		p.errorf(n, "targets", "must list at least one target (known targets: %s)", strings.Join(target.Names(), ", "))
		return
	}
	seen := map[string]bool{}
	var out []string
	for i, name := range list {
		field := fmt.Sprintf("targets[%d]", i)
		switch {
		case name == "":
			continue // str reported it
		case seen[name]:
			p.errorf(item(n, i), field, "target %q is listed twice", name)
			continue
		}
		seen[name] = true
		if _, err := target.Parse(name); err != nil {
			p.errorf(item(n, i), field, "%v", err)
			continue
		}
		out = append(out, name)
	}
	if len(out) > 0 {
		p.m.Targets = out
	}
}

var acceptCVEFields = []string{"id", "reason"}

// acceptCVEs reads the acknowledged Lua CVEs: a list of {id, reason}, each
// id one of scriptctl's CVE table and listed once, each with a reason.
func (p *parser) acceptCVEs(n *yaml.Node) {
	v := yamlnode.Deref(n)
	if v.Kind != yaml.SequenceNode {
		p.errorf(n, "accept_cves", "must be a list of {id, reason}, not %s", yamlnode.Describe(n))
		return
	}
	seen := map[string]bool{}
	for i, e := range v.Content {
		field := fmt.Sprintf("accept_cves[%d]", i)
		if yamlnode.Deref(e).Kind != yaml.MappingNode {
			p.errorf(e, field, "must be a mapping {id, reason}, not %s (write each entry as {id: CVE-..., reason: ...})", yamlnode.Describe(e))
			continue
		}
		f := p.fields(e, field, acceptCVEFields)
		a := AcceptedCVE{Line: e.Line}
		if f["id"] == nil {
			p.errorf(e, field+".id", "required field is missing")
		} else if a.ID = p.str(f["id"], field+".id"); a.ID != "" {
			switch _, known := target.LookupCVE(a.ID); {
			case seen[a.ID]:
				p.errorf(f["id"], field+".id", "%s is listed twice", a.ID)
				a.ID = ""
			case !known:
				p.errorf(f["id"], field+".id", "%s is not a Lua CVE scriptctl warns about (known: %s)", a.ID, strings.Join(target.CVEIDs(), ", "))
				a.ID = ""
			default:
				seen[a.ID] = true
			}
		}
		if f["reason"] == nil {
			p.errorf(e, field+".reason", "required field is missing: say why the warning does not apply (such as the distribution advisory whose build carries the fix)")
		} else if a.Reason = strings.TrimSpace(p.str(f["reason"], field+".reason")); a.Reason == "" && isString(yamlnode.Deref(f["reason"])) {
			p.errorf(f["reason"], field+".reason", "must not be empty: say why the warning does not apply")
		}
		if a.ID != "" && a.Reason != "" {
			p.m.AcceptCVEs = append(p.m.AcceptCVEs, a)
		}
	}
}

func (p *parser) scriptNames() []string { return p.m.ScriptNames() }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
