package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/yamlnode"
)

// Environment is one entry of the manifest's environments mapping: where
// the online commands connect with --env NAME, and what they expect to
// find there. It holds no secret: a password comes from a file or an
// environment variable it names.
type Environment struct {
	Name string
	// URLs are the servers (no password in them); URLEnv names an
	// environment variable holding them instead, comma-separated. Exactly
	// one is set.
	URLs   []string
	URLEnv string
	// PasswordEnv names an environment variable holding the password;
	// PasswordFile is a file (resolved against the manifest's folder)
	// whose first line is. At most one is set.
	PasswordEnv  string
	PasswordFile string
	// TLS files (resolved against the manifest's folder) and the server
	// name to verify.
	TLSCA, TLSCert, TLSKey, TLSServerName string
	// Targets are the server lines expected there (a subset of the
	// manifest's targets; nil: the manifest's), TargetsLine their line.
	Targets     []string
	TargetsLine int
	// Topology is the topology expected there (TopologyCluster or
	// TopologyStandalone), "" when any.
	Topology string
	Line     int // line of the environment's name
}

// Environment returns the environment named name, or nil.
func (m *Manifest) Environment(name string) *Environment {
	for _, e := range m.Environments {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// EnvironmentNames lists the environments' names in file order.
func (m *Manifest) EnvironmentNames() []string {
	var out []string
	for _, e := range m.Environments {
		out = append(out, e.Name)
	}
	return out
}

// UnknownEnvironmentError is an --env name the manifest does not declare.
type UnknownEnvironmentError struct {
	Name    string
	Path    string   // the manifest
	Known   []string // the names it declares
	Suggest string   // the closest known name, or ""
}

func (e *UnknownEnvironmentError) Error() string {
	msg := fmt.Sprintf("unknown environment %q", e.Name)
	if e.Suggest != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", e.Suggest)
	}
	if len(e.Known) == 0 {
		return msg + ": " + e.Path + " declares no environments"
	}
	return msg + ": " + e.Path + " declares " + strings.Join(e.Known, ", ")
}

// LookupEnvironment returns the environment named name, or an
// *UnknownEnvironmentError with a did-you-mean.
func (m *Manifest) LookupEnvironment(name string) (*Environment, error) {
	if e := m.Environment(name); e != nil {
		return e, nil
	}
	known := m.EnvironmentNames()
	return nil, &UnknownEnvironmentError{Name: name, Path: m.Path, Known: known, Suggest: suggest(name, known)}
}

var environmentFields = []string{"urls", "url_env", "password_env", "password_file", "tls", "targets", "topology"}
var tlsFields = []string{"ca", "cert", "key", "server_name"}

// environments reads the environments mapping: name -> connection and
// expectations. The manifest's targets are read before.
func (p *parser) environments(n *yaml.Node) {
	for _, kv := range p.pairs(n, "environments") {
		k, v := kv[0], kv[1]
		name := yamlnode.Deref(k).Value
		field := yamlnode.Join("environments", name)
		if !isEnvName(name) {
			p.errorf(k, field, "invalid environment name %q: use letters, digits, '-' and '_'", name)
			continue
		}
		e := &Environment{Name: name, Line: k.Line}
		seen := p.fields(v, field, environmentFields)
		if n := seen["urls"]; n != nil {
			list, _ := p.strList(n, field+".urls")
			if len(list) == 0 && yamlnode.Deref(n).Kind == yaml.SequenceNode {
				p.errorf(n, field+".urls", "must list at least one URL")
			}
			for i, raw := range list {
				if raw == "" {
					continue
				}
				if msg := envURLProblem(raw); msg != "" {
					p.errorf(item(n, i), fmt.Sprintf("%s.urls[%d]", field, i), "%s", msg)
					continue
				}
				e.URLs = append(e.URLs, raw)
			}
		}
		if n := seen["url_env"]; n != nil {
			e.URLEnv = p.envVar(n, field+".url_env")
		}
		switch {
		case seen["urls"] != nil && seen["url_env"] != nil:
			p.errorf(seen["url_env"], field+".url_env", "give urls or url_env, not both")
		case seen["urls"] == nil && seen["url_env"] == nil:
			p.errorf(k, field, "needs urls (the servers) or url_env (an environment variable holding them)")
		}
		if n := seen["password_env"]; n != nil {
			e.PasswordEnv = p.envVar(n, field+".password_env")
		}
		if n := seen["password_file"]; n != nil {
			e.PasswordFile = p.envFile(n, field+".password_file")
			if seen["password_env"] != nil {
				p.errorf(n, field+".password_file", "give password_env or password_file, not both")
			}
		}
		if n := seen["tls"]; n != nil {
			tf := p.fields(n, field+".tls", tlsFields)
			if x := tf["ca"]; x != nil {
				e.TLSCA = p.envFile(x, field+".tls.ca")
			}
			if x := tf["cert"]; x != nil {
				e.TLSCert = p.envFile(x, field+".tls.cert")
			}
			if x := tf["key"]; x != nil {
				e.TLSKey = p.envFile(x, field+".tls.key")
			}
			if x := tf["server_name"]; x != nil {
				e.TLSServerName = p.str(x, field+".tls.server_name")
			}
			if (tf["cert"] == nil) != (tf["key"] == nil) {
				p.errorf(n, field+".tls", "cert and key go together: give both or neither")
			}
		}
		if n := seen["targets"]; n != nil {
			e.TargetsLine = n.Line
			list, _ := p.strList(n, field+".targets")
			if len(list) == 0 && yamlnode.Deref(n).Kind == yaml.SequenceNode {
				p.errorf(n, field+".targets", "must list at least one target (the manifest's: %s)", strings.Join(p.m.Targets, ", "))
			}
			for i, t := range list {
				if t == "" {
					continue
				}
				if !slices.Contains(p.m.Targets, t) {
					msg := fmt.Sprintf("target %q is not among the manifest's targets (%s)", t, strings.Join(p.m.Targets, ", "))
					if s := suggest(t, p.m.Targets); s != "" {
						msg = fmt.Sprintf("target %q is not among the manifest's targets (did you mean %q?)", t, s)
					}
					p.errorf(item(n, i), fmt.Sprintf("%s.targets[%d]", field, i), "%s", msg)
					continue
				}
				if !slices.Contains(e.Targets, t) {
					e.Targets = append(e.Targets, t)
				}
			}
		}
		if n := seen["topology"]; n != nil {
			switch t := p.str(n, field+".topology"); t {
			case TopologyCluster, TopologyStandalone:
				e.Topology = t
			case "":
			default:
				p.errorf(n, field+".topology", "unknown topology %q: want cluster or standalone", t)
			}
		}
		p.m.Environments = append(p.m.Environments, e)
	}
}

// envURLProblem says what is wrong with an environment's URL for the
// manifest, or "": it must be redis:// or rediss:// and carry no password
// (a manifest is committed).
func envURLProblem(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
		return fmt.Sprintf("invalid URL %q: want redis://[user@]host:port or rediss://...", raw)
	}
	if _, ok := u.User.Password(); ok || u.RawQuery != "" {
		return "a URL in the manifest must not carry a password (the manifest is committed): use password_env or password_file"
	}
	return ""
}

// envVar reads an environment variable's name.
func (p *parser) envVar(n *yaml.Node, field string) string {
	s := p.str(n, field)
	if s != "" && !isEnvVarName(s) {
		p.errorf(n, field, "invalid environment variable name %q: use letters, digits and '_', not starting with a digit", s)
		return ""
	}
	return s
}

// envFile reads a file path, relative to the manifest, and returns it
// resolved against the manifest's folder.
func (p *parser) envFile(n *yaml.Node, field string) string {
	s := p.str(n, field)
	if s == "" {
		if isString(yamlnode.Deref(n)) {
			p.errorf(n, field, "must not be empty")
		}
		return ""
	}
	if filepath.IsAbs(s) {
		return s
	}
	return filepath.Join(p.m.Dir, s)
}

func isEnvName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func isEnvVarName(s string) bool {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// releases reads the releases field: where the manifest of each released
// version is kept, a path relative to the manifest with <version> in it.
func (p *parser) releases(n *yaml.Node) {
	s := p.str(n, "releases")
	switch {
	case s == "":
		if isString(yamlnode.Deref(n)) {
			p.errorf(n, "releases", "must not be empty")
		}
	case !strings.Contains(s, "<version>"):
		p.errorf(n, "releases", "must contain <version>, where the version number goes (for example lua/v<version>/manifest.yaml)")
	case filepath.IsAbs(s):
		p.errorf(n, "releases", "%s is an absolute path: write it relative to the manifest", s)
	default:
		p.m.Releases = s
		p.m.ReleasesLine = n.Line
	}
}

// ReleasePath returns the path of the manifest kept for released version
// v (from the releases field), or "" when the manifest has no releases
// field.
func (m *Manifest) ReleasePath(v int) string {
	if m.Releases == "" {
		return ""
	}
	return filepath.Join(m.Dir, strings.ReplaceAll(m.Releases, "<version>", strconv.Itoa(v)))
}

// Digest identifies what the manifest deploys: its own bytes, and each
// script's name and SHA1. A saved plan records it; a changed manifest or
// script changes it. "sha256:" and hex.
func (m *Manifest) Digest() string {
	h := sha256.New()
	h.Write(m.raw)
	for _, s := range m.Scripts {
		fmt.Fprintf(h, "\x00%s %s", s.Name, s.SHA)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
