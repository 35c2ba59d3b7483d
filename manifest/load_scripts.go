package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/scriptctl/scriptctl/internal/safefile"
	"github.com/scriptctl/scriptctl/internal/yamlnode"
	"gopkg.in/yaml.v3"
)

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
