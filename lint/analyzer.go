package lint

import (
	"fmt"
	"sync"
)

// Analyzer is one rule: Name is its stable code (as in "global-write"),
// Analyze returns its diagnostics for one script.
type Analyzer interface {
	Name() string
	Analyze(*Pass) []Diagnostic
}

// Rule describes a registered analyzer: what it checks, how severe its
// findings are and whether it needs the manifest's declarations.
type Rule struct {
	Code          string
	Severity      Severity
	Summary       string // one line
	Help          string // what it catches, why, and how to fix it
	NeedsManifest bool
	// Profile is the Config.Profile that turns the rule on; empty for a
	// rule that is on by default.
	Profile string
	// StrictSeverity is the severity under strict keys (Config.StrictKeys,
	// or the strict-proxy profile) when it differs from Severity: a key
	// rule that is a warning because servers run the script, and an error
	// where keys must be declared. Empty for the other rules.
	StrictSeverity Severity
}

// SeverityText is the rule's severity as the rules listing shows it:
// "warning", or "warning (error with strict keys)".
func (r Rule) SeverityText() string {
	if r.StrictSeverity != "" {
		return fmt.Sprintf("%s (%s with strict keys)", r.Severity, r.StrictSeverity)
	}
	return string(r.Severity)
}

// rule is the Analyzer behind every registered code.
type rule struct {
	code          string
	severity      Severity
	summary       string
	help          string
	needsManifest bool
	withoutParse  bool     // runs even when the script does not parse
	linesOnly     bool     // reads only the lines and the shebang: needs no parse
	profile       string   // off by default; on with this Config.Profile
	strict        Severity // the severity under strict keys; "" is severity
	run           func(p *Pass, r *rule) []Diagnostic
}

func (r *rule) Name() string                 { return r.code }
func (r *rule) Analyze(p *Pass) []Diagnostic { return r.run(p, r) }

// at builds a diagnostic of the rule.
func (r *rule) at(pos Pos, format string, args ...any) Diagnostic {
	return Diagnostic{Pos: pos, Code: r.code, Severity: r.severity, Message: fmt.Sprintf(format, args...)}
}

var (
	registry  []Analyzer
	byCode    map[string]*rule
	rulesOnce sync.Once
)

// loadRules registers the rules (registerRules) once, on first use:
// registering them in init cost every scriptctl process, `scriptctl
// version` included, its start time.
func loadRules() {
	rulesOnce.Do(func() {
		byCode = map[string]*rule{}
		registerRules()
	})
}

// register adds a rule; a duplicate code is a programming error and panics
// when the rules load.
func register(r *rule) {
	if _, dup := byCode[r.code]; dup {
		panic("lint: duplicate analyzer code " + r.code)
	}
	byCode[r.code] = r
	registry = append(registry, r)
}

// Analyzers returns every registered analyzer, in registration order.
func Analyzers() []Analyzer {
	loadRules()
	return append([]Analyzer(nil), registry...)
}

// Rules returns the description of every registered rule, in registration
// order.
func Rules() []Rule {
	loadRules()
	out := make([]Rule, 0, len(registry))
	for _, a := range registry {
		r := a.(*rule)
		out = append(out, r.describe())
	}
	return out
}

// Lookup returns the rule with code, and whether there is one.
func Lookup(code string) (Rule, bool) {
	loadRules()
	r, ok := byCode[code]
	if !ok {
		return Rule{}, false
	}
	return r.describe(), true
}

func (r *rule) describe() Rule {
	return Rule{Code: r.code, Severity: r.severity, Summary: r.summary, Help: r.help, NeedsManifest: r.needsManifest, Profile: r.profile, StrictSeverity: r.strict}
}

// severityIn is the severity of r's findings in a run: r.strict under
// strict keys, else r.severity.
func (r *rule) severityIn(cfg Config) Severity {
	if r.strict != "" && cfg.strictKeys() {
		return r.strict
	}
	return r.severity
}
