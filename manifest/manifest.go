// Package manifest owns manifest.yaml: the schema, strict parsing with
// file:line:col errors, validation, the scripts.sum ledger, and the Functions
// library generated from the manifest's scripts. It does not talk to Redis and
// does not analyse Lua beyond reading a script's shebang line.
package manifest

import (
	"crypto/sha1"
	"encoding/hex"

	"github.com/scriptctl/scriptctl/contract"
)

// SchemaVersion is the only manifest schema this build understands.
const SchemaVersion = 1

// ScriptFlags are the flags a script may declare, as Redis 7 spells them in a
// shebang line (#!lua flags=...) and in redis.register_function.
var ScriptFlags = []string{"no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"}

// Manifest is a loaded and validated manifest.yaml.
type Manifest struct {
	// Path is the manifest file as given to Load; Dir is its folder, from
	// which script files resolve.
	Path string
	Dir  string

	Schema  int
	Library string
	Version int
	// LibraryLine is the line of the library field in the manifest (0 when
	// unknown), where a finding about the library points.
	LibraryLine int
	// Targets are the server lines (internal/target names such as
	// "redis-7.0", "valkey-8.1") the scripts are proven on; [redis-7.0]
	// when the manifest lists none.
	Targets []string
	// TargetsLine is the line of the targets field in the manifest (0 when
	// the manifest has none), where a finding about a node's server points.
	TargetsLine int
	Scripts     []*Script // in file order
	Callers     []*Caller // in file order

	// Topology is the server the offline runs imitate: TopologyCluster
	// (the default, also when the manifest has none) or
	// TopologyStandalone; TopologyLine is its line (0 when absent).
	Topology     string
	TopologyLine int
	// StrictKeys makes an offline run stop at a key not declared in KEYS
	// (strict_keys: true), as proxies that demand declared keys do;
	// StrictKeysLine is its line (0 when absent).
	StrictKeys     bool
	StrictKeysLine int
	// Bindings are the generated bindings the manifest keeps (bindings: in
	// the manifest): language ("go") -> folder relative to Dir. check's
	// bindings step and gen --check compare them with what gen writes.
	Bindings     map[string]string
	BindingsLine int
	// Deploy is how plan, deploy and status handle the scripts unless
	// --mode says otherwise: DeployBoth (the default: SCRIPT LOAD for
	// EVALSHA and a Functions library for FCALL), DeployScripts or
	// DeployFunctions (FCALL only: the manifest's flags always apply).
	Deploy string
	// AcceptCVEs are the Lua CVEs the team knows its servers' builds carry
	// the fix for (accept_cves: a list of {id, reason}): plan, deploy and
	// status do not warn about them. AcceptCVEsLine is the field's line (0
	// when absent).
	AcceptCVEs     []AcceptedCVE
	AcceptCVEsLine int
	// Environments are the named places the online commands connect to
	// with --env (environments: in the manifest), in file order.
	Environments []*Environment
	// Releases is where the manifest of each released version is kept
	// (releases: lua/v<version>/manifest.yaml), relative to Dir; "" when
	// the manifest has none. deploy --version reads it.
	Releases     string
	ReleasesLine int

	raw []byte // the manifest's bytes, for Digest
}

// AcceptedCVE is one entry of accept_cves.
type AcceptedCVE struct {
	ID     string // "CVE-2025-49844", one of scriptctl's Lua CVE table
	Reason string // why the warning does not apply; required
	Line   int    // the entry's line in the manifest
}

// AcceptedCVEs maps the acknowledged ids to their reasons.
func (m *Manifest) AcceptedCVEs() map[string]string {
	out := map[string]string{}
	for _, a := range m.AcceptCVEs {
		out[a.ID] = a.Reason
	}
	return out
}

// The values of the manifest's deploy field.
const (
	DeployBoth      = "both"
	DeployScripts   = "scripts"
	DeployFunctions = "functions"
)

// EvalRuns reports whether the manifest deploys its scripts for EVAL and
// EVALSHA (deploy both or scripts), which apply a script's shebang flags
// and not the manifest's.
func (m *Manifest) EvalRuns() bool { return m.Deploy != DeployFunctions }

// Script is one entry of the manifest's scripts mapping.
type Script struct {
	Name  string
	File  string   // as written in the manifest, relative to Manifest.Dir
	Path  string   // File resolved against Manifest.Dir
	Keys  []string // names of KEYS[1], KEYS[2], ...
	Args  []string // names of ARGV[1], ARGV[2], ...
	Flags []string // subset of ScriptFlags
	Line  int      // line of the script's name in the manifest

	// Reply is the script's reply contract (reply: in the manifest), nil
	// when it has none; ReplyLine is its line.
	Reply     *contract.Type
	ReplyLine int
	// Idempotent marks a script that may run twice for one call (a
	// generated binding retries it once after a timeout); false unless the
	// manifest says idempotent: true.
	Idempotent bool

	// Source is the exact bytes of the file; SHA is their SHA1 in lowercase
	// hex, the SHA that SCRIPT LOAD returns for them.
	Source []byte
	SHA    string
}

// Caller is one entry of the manifest's callers mapping: a service's use of
// some scripts and the key templates it binds to their key names.
type Caller struct {
	Name    string
	Scripts []string
	Keys    []KeyTemplate       // in file order, one per key name
	Samples map[string][]string // placeholder name -> sample values
	// Placeholders are the values the caller declares a placeholder can
	// take (placeholders: in the manifest), by placeholder name; a
	// placeholder without an entry takes any value.
	Placeholders map[string]Placeholder
	Line         int
}

// Placeholder is what a caller declares about the values of one of its
// placeholders: check-keys proves the caller's keys for those values only.
type Placeholder struct {
	Name string
	// NonEmpty excludes the empty string.
	NonEmpty bool
	// Pattern is a Go regular expression (RE2 syntax) every value matches,
	// as regexp.MatchString matches: unanchored unless it says ^ and $;
	// "" when the caller declares none.
	Pattern string
	// Line and Col are where the placeholder's entry is written.
	Line, Col int
}

// KeyTemplate binds a script key name (for example "lease") to a key name
// template such as "catalog:{product-<id>}:lease".
type KeyTemplate struct {
	Name     string
	Template string
	Line     int
	Col      int
}

// Script returns the script named name, or nil.
// ScriptNames lists the scripts' names, in file order.
func (m *Manifest) ScriptNames() []string {
	out := make([]string, len(m.Scripts))
	for i, s := range m.Scripts {
		out[i] = s.Name
	}
	return out
}

func (m *Manifest) Script(name string) *Script {
	for _, s := range m.Scripts {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Caller returns the caller named name, or nil.
func (m *Manifest) Caller(name string) *Caller {
	for _, c := range m.Callers {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Template returns the template the caller binds to key name, and whether
// there is one.
func (c *Caller) Template(name string) (string, bool) {
	for _, k := range c.Keys {
		if k.Name == name {
			return k.Template, true
		}
	}
	return "", false
}

// HasFlag reports whether the script declares flag.
func (s *Script) HasFlag(flag string) bool {
	for _, f := range s.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

// SHA1Hex returns the lowercase hex SHA1 of b, as Redis computes script SHAs.
func SHA1Hex(b []byte) string {
	sum := sha1.Sum(b)
	return hex.EncodeToString(sum[:])
}
