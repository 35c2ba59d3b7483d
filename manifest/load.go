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
	"sync"
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

// Error is one problem at a position: in a manifest, in a scripts.sum ledger
// or in a script file. Line and Col are 1-based; 0 means unknown.
type Error struct {
	File  string
	Line  int
	Col   int
	Field string // dotted path such as scripts.acquire.keys[1]; may be empty
	Msg   string
	Err   error // the underlying error, if any (for example an *os.PathError)
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Errors is every problem found in one manifest (or one scripts.sum), in file
// order. Load returns it (as error) when the manifest is invalid; it matches
// ErrInvalid with errors.Is.
type Errors []*Error

// Error prints the problem, or a count followed by one problem per line:
//
//	2 problems in manifest.yaml:
//	manifest.yaml:3:10: version: must be a positive integer, not 0
//	manifest.yaml:9:5: scripts.get.file: cannot read get.lua: no such file or directory
func (es Errors) Error() string {
	switch len(es) {
	case 0:
		return "no problems"
	case 1:
		return es[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems in %s:", len(es), es[0].File)
	for _, e := range es {
		b.WriteString("\n")
		b.WriteString(e.Error())
	}
	return b.String()
}

// Is reports whether target is ErrInvalid.
func (es Errors) Is(target error) bool { return target == ErrInvalid }

// Unwrap returns the problems, so errors.As finds an underlying error.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// ErrInvalid is matched by errors.Is for any manifest validation error.
var ErrInvalid = errors.New("manifest: invalid")

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

var scriptFields = []string{"file", "keys", "args", "flags", "reply", "idempotent"}

func (p *parser) scripts(n *yaml.Node) {
	pairs := p.pairs(n, "scripts")
	if v := yamlnode.Deref(n); v.Kind == yaml.MappingNode && len(v.Content) == 0 {
		p.errorf(n, "scripts", "at least one script is required")
	}
	var reads []scriptRead
	for _, kv := range pairs {
		k, v := kv[0], kv[1]
		name := yamlnode.Deref(k).Value
		field := "scripts." + name
		s := &Script{Name: name, Line: k.Line, Keys: []string{}, Args: []string{}, Flags: []string{}}
		if !isScriptName(name) {
			p.errorf(k, field, "invalid script name %q: use lowercase letters, digits and underscore", name)
		}
		f := p.fields(v, field, scriptFields)
		if yamlnode.Deref(v).Kind != yaml.MappingNode {
			p.m.Scripts = append(p.m.Scripts, s)
			continue
		}
		for _, req := range []string{"file", "keys", "args"} {
			if f[req] == nil {
				p.errorf(k, field+"."+req, "required field is missing")
			}
		}
		if f["file"] != nil {
			s.File = p.str(f["file"], field+".file")
			if isString(yamlnode.Deref(f["file"])) {
				s.File = p.filePath(f["file"], field+".file", s.File)
			}
		}
		if f["keys"] != nil {
			s.Keys = p.names(f["keys"], field+".keys", "key")
			if yamlnode.Deref(f["keys"]).Kind != yaml.SequenceNode || slices.Contains(s.Keys, "") {
				p.markBadKeys(name)
			}
		} else {
			p.markBadKeys(name)
		}
		if f["args"] != nil {
			s.Args = p.names(f["args"], field+".args", "arg")
		}
		if f["flags"] != nil {
			s.Flags = p.flags(f["flags"], field+".flags")
			if s.Flags == nil {
				s.Flags = []string{}
			}
		}
		if f["reply"] != nil {
			p.reply(s, f["reply"], field+".reply")
		}
		if n := f["idempotent"]; n != nil {
			if v := yamlnode.Deref(n); v.Kind == yaml.ScalarNode && v.Tag == "!!bool" {
				s.Idempotent = v.Value == "true"
			} else {
				p.errorf(n, field+".idempotent", "must be true or false, not %s", yamlnode.Describe(n))
			}
		}
		if s.File != "" {
			reads = append(reads, scriptRead{s: s, node: f["file"], field: field})
		}
		p.m.Scripts = append(p.m.Scripts, s)
	}
	p.readScripts(reads)
}

// scriptRead is a script whose file is still to be read.
type scriptRead struct {
	s     *Script
	node  *yaml.Node
	field string
	path  string
	data  []byte
	err   error // from Inside (the path leaves the folder)
	rerr  error // from reading
}

// readScripts reads the script files, several at once (a manifest may list
// hundreds), then checks each in manifest order.
func (p *parser) readScripts(reads []scriptRead) {
	realRoot, rootErr := filepath.EvalSymlinks(p.m.Dir)
	work := make(chan *scriptRead)
	var wg sync.WaitGroup
	for range min(len(reads), 8) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				if rootErr != nil {
					r.path, r.err = Inside(p.m.Dir, r.s.File) // the folder is unreadable: opening says so
				} else {
					r.path, r.err = inside(p.m.Dir, realRoot, r.s.File)
				}
				if r.err == nil {
					r.data, r.rerr = readFile(r.path)
				}
			}
		}()
	}
	for i := range reads {
		work <- &reads[i]
	}
	close(work)
	wg.Wait()
	for i := range reads {
		p.readScript(&reads[i])
	}
}

// filePath checks a script path as written in the manifest and returns it,
// or "" when it is unusable.
func (p *parser) filePath(n *yaml.Node, field, file string) string {
	switch {
	case file == "":
		p.errorf(n, field, "must not be empty")
		return ""
	case filepath.IsAbs(file) || strings.HasPrefix(file, "/"):
		p.errorf(n, field, "%s is an absolute path: write it relative to the manifest", file)
		return ""
	case strings.ContainsRune(file, 0):
		p.errorf(n, field, "contains a NUL byte")
		return ""
	}
	return file
}

// names reads a list of unique identifiers (key or arg names).
func (p *parser) names(n *yaml.Node, field, what string) []string {
	list, ok := p.strList(n, field)
	if !ok {
		return []string{}
	}
	seen := map[string]int{}
	for i, name := range list {
		c := item(n, i)
		if !isString(yamlnode.Deref(c)) {
			continue // already reported
		}
		at := fmt.Sprintf("%s[%d]", field, i)
		if !isScriptName(name) {
			p.errorf(c, at, "invalid %s name %q: use lowercase letters, digits and underscore", what, name)
		}
		if j, dup := seen[name]; dup {
			p.errorf(c, at, "duplicate %s name %q (also %s[%d])", what, name, field, j)
			continue
		}
		seen[name] = i
	}
	return list
}

// flags reads a script's flags list; nil when the list is unusable or names
// an unknown flag.
func (p *parser) flags(n *yaml.Node, field string) []string {
	list, ok := p.strList(n, field)
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	for i, fl := range list {
		c := item(n, i)
		if !isString(yamlnode.Deref(c)) {
			continue
		}
		at := fmt.Sprintf("%s[%d]", field, i)
		if !isFlag(fl) {
			msg := fmt.Sprintf("unknown flag %q", fl)
			if s := suggest(fl, ScriptFlags); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			p.errorf(c, at, "%s: want one of %s", msg, strings.Join(ScriptFlags, ", "))
			ok = false
			continue
		}
		if seen[fl] {
			p.errorf(c, at, "duplicate flag %q", fl)
		}
		seen[fl] = true
	}
	if !ok {
		return nil
	}
	return list
}

// readScript reads and checks the script file and fills Path, Source and
// SHA. A shebang it cannot parse (another engine, an unknown option or
// flag) is invalid input; whether the shebang's flags match the manifest's
// is lint's shebang-flags rule, reported at the script's line 1.
func (p *parser) readScript(r *scriptRead) {
	s, fileNode, ff := r.s, r.node, r.field+".file"
	if r.err != nil {
		p.errorf(fileNode, ff, "%v", r.err)
		return
	}
	s.Path = r.path
	data, err := r.data, r.rerr
	if err != nil {
		p.errorf(fileNode, ff, "cannot read %s: %v", s.File, err)
		return
	}
	if msg := textProblem(data); msg != "" {
		p.errorf(fileNode, ff, "%s is not a Lua script: %s", s.File, msg)
		return
	}
	s.Source = data
	s.SHA = SHA1Hex(data)
	flags, _, err := Shebang(data)
	if err != nil {
		p.errorf(fileNode, ff, "%s:1: %v", s.File, err)
		return
	}
	for _, fl := range flags {
		if !isFlag(fl) {
			p.errorf(fileNode, ff, "%s:1: unknown shebang flag %q: want one of %s", s.File, fl, strings.Join(ScriptFlags, ", "))
		}
	}
}

// ReadScriptFile reads a script file that is not in the manifest itself (a
// scenario's control, a model's script) as the manifest reads its own: a
// regular file of at most MaxScriptSize bytes. The error names no path.
func ReadScriptFile(path string) ([]byte, error) { return readFile(path) }

// readFile reads a regular file of at most MaxScriptSize bytes. It refuses
// directories, devices and pipes rather than block or read without end.
func readFile(path string) ([]byte, error) {
	data, err := safefile.Read(path, MaxScriptSize)
	if err != nil {
		return nil, unwrapPath(err)
	}
	return data, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

var callerFields = []string{"scripts", "keys", "samples", "placeholders"}

func (p *parser) callers(n *yaml.Node) {
	for _, kv := range p.pairs(n, "callers") {
		k, v := kv[0], kv[1]
		name := yamlnode.Deref(k).Value
		field := "callers." + name
		c := &Caller{Name: name, Line: k.Line, Scripts: []string{}, Samples: map[string][]string{}, Placeholders: map[string]Placeholder{}}
		p.m.Callers = append(p.m.Callers, c)
		if !isCallerName(name) {
			p.errorf(k, field, "invalid caller name %q: use lowercase letters, digits, underscore and hyphen", name)
		}
		f := p.fields(v, field, callerFields)
		if yamlnode.Deref(v).Kind != yaml.MappingNode {
			continue
		}
		// need maps each key name the caller's scripts declare to the
		// scripts that declare it, in order.
		need := map[string][]string{}
		var needOrder []string
		// scriptsOK is false when the caller's scripts, or their keys,
		// are not all known: the key bindings cannot be checked then, and
		// reporting each one would only repeat that problem.
		scriptsOK := f["scripts"] != nil
		if f["scripts"] == nil {
			p.errorf(k, field+".scripts", "required field is missing")
		} else if list, ok := p.strList(f["scripts"], field+".scripts"); !ok {
			scriptsOK = false
		} else {
			if len(list) == 0 {
				p.errorf(f["scripts"], field+".scripts", "at least one script is required")
				scriptsOK = false
			}
			seen := map[string]bool{}
			for i, sn := range list {
				c0 := item(f["scripts"], i)
				if !isString(yamlnode.Deref(c0)) {
					scriptsOK = false
					continue
				}
				at := fmt.Sprintf("%s.scripts[%d]", field, i)
				if seen[sn] {
					p.errorf(c0, at, "duplicate script %q", sn)
					continue
				}
				seen[sn] = true
				c.Scripts = append(c.Scripts, sn)
				s := p.m.Script(sn)
				if s == nil || p.badKeys[sn] {
					scriptsOK = false
				}
				if s == nil {
					msg := fmt.Sprintf("unknown script %q", sn)
					if sug := suggest(sn, p.scriptNames()); sug != "" {
						msg += fmt.Sprintf(" (did you mean %q?)", sug)
					}
					p.errorf(c0, at, "%s", msg)
					continue
				}
				for _, key := range s.Keys {
					if key == "" {
						continue
					}
					if need[key] == nil {
						needOrder = append(needOrder, key)
					}
					need[key] = append(need[key], sn)
				}
			}
		}
		placeholders := map[string]bool{}
		templatesOK := true
		bound := map[string]bool{}
		if f["keys"] != nil {
			for _, kv := range p.pairs(f["keys"], field+".keys") {
				key := yamlnode.Deref(kv[0]).Value
				kf := field + ".keys." + key
				t := p.str(kv[1], kf)
				bound[key] = true
				if scriptsOK && need[key] == nil {
					msg := fmt.Sprintf("key %q is not declared by any of the caller's scripts", key)
					if len(c.Scripts) > 0 {
						msg += fmt.Sprintf(" (%s)", strings.Join(c.Scripts, ", "))
					}
					if sug := suggest(key, needOrder); sug != "" {
						msg += fmt.Sprintf("; did you mean %q?", sug)
					}
					p.errorf(kv[0], kf, "%s", msg)
				}
				if !isString(yamlnode.Deref(kv[1])) {
					templatesOK = false
				} else {
					names, msg := parseTemplate(t)
					if msg != "" {
						p.errorf(kv[1], kf, "%s", msg)
						templatesOK = false
					}
					for _, ph := range names {
						placeholders[ph] = true
					}
				}
				c.Keys = append(c.Keys, KeyTemplate{Name: key, Template: t, Line: kv[1].Line, Col: kv[1].Column})
			}
		}
		if f["keys"] != nil && yamlnode.Deref(f["keys"]).Kind != yaml.MappingNode {
			templatesOK = false
		}
		if scriptsOK && yamlnode.Deref(vOr(f["keys"], v)).Kind == yaml.MappingNode {
			at := k
			af := field + ".keys"
			if f["keys"] != nil {
				at = f["keys"]
			}
			for _, key := range needOrder {
				if !bound[key] {
					p.errorf(at, af, "missing template for key %q of %s %s", key, plural(len(need[key]), "script", "scripts"), strings.Join(need[key], ", "))
				}
			}
		}
		if f["samples"] != nil {
			p.samples(c, f["samples"], field+".samples", placeholders, templatesOK)
		}
		if f["placeholders"] != nil {
			p.placeholderDomains(c, f["placeholders"], field+".placeholders", placeholders, templatesOK, f["samples"])
		}
	}
}

func (p *parser) markBadKeys(script string) {
	if p.badKeys == nil {
		p.badKeys = map[string]bool{}
	}
	p.badKeys[script] = true
}

func vOr(n, def *yaml.Node) *yaml.Node {
	if n != nil {
		return n
	}
	return def
}

// samples reads a caller's samples. A name no template uses is reported
// only when every template is well formed (known).
func (p *parser) samples(c *Caller, n *yaml.Node, field string, placeholders map[string]bool, known bool) {
	names := make([]string, 0, len(placeholders))
	for ph := range placeholders {
		names = append(names, ph)
	}
	sort.Strings(names)
	for _, kv := range p.pairs(n, field) {
		name := yamlnode.Deref(kv[0]).Value
		sf := field + "." + name
		if known && !placeholders[name] {
			msg := fmt.Sprintf("no key template of caller %s uses the placeholder <%s>", c.Name, name)
			if sug := suggest(name, names); sug != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", sug)
			}
			p.errorf(kv[0], sf, "%s", msg)
		}
		list, ok := p.strList(kv[1], sf)
		if !ok {
			continue
		}
		if len(list) == 0 {
			p.errorf(kv[1], sf, "give at least one sample value, or remove the entry")
		}
		c.Samples[name] = list
	}
}

func (p *parser) scriptNames() []string { return p.m.ScriptNames() }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
