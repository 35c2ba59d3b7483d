package refresh

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/scriptctl/scriptctl/lua"
	"github.com/scriptctl/scriptctl/manifest"
)

// ManifestOptions returns Options whose key templates are those the
// manifest's caller binds to the keys "lease", "value" and "gen", and whose
// Library and Version are the manifest's (used with Functions). The caller
// must use the scripts acquire, publish, invalidate, renew and release, and
// each must be byte-for-byte the bundled script of that name, which is what
// Cache calls: anything else (a version 1 manifest, for one) is an error
// rather than a silent mismatch. Set the other fields on the result before
// New.
func ManifestOptions(m *manifest.Manifest, caller string) (Options, error) {
	c := m.Caller(caller)
	if c == nil {
		return Options{}, fmt.Errorf("refresh: %s: no caller %q", m.Path, caller)
	}
	var opts Options
	for _, k := range []struct {
		name string
		dst  *string
	}{{"lease", &opts.LeaseKey}, {"value", &opts.ValueKey}, {"gen", &opts.GenKey}} {
		tmpl, ok := c.Template(k.name)
		if !ok {
			return Options{}, fmt.Errorf("refresh: %s:%d: caller %s binds no key %q", m.Path, c.Line, caller, k.name)
		}
		*k.dst = tmpl
	}
	for _, name := range scriptNames {
		if !slices.Contains(c.Scripts, name) {
			return Options{}, fmt.Errorf("refresh: %s:%d: caller %s does not use script %s", m.Path, c.Line, caller, name)
		}
		s := m.Script(name)
		if s == nil || !bytes.Equal(s.Source, lua.MustSource(name+".lua")) {
			return Options{}, fmt.Errorf("refresh: %s: script %s is not the bundled lua/%s.lua that Cache calls", m.Path, name, name)
		}
	}
	opts.Library, opts.Version = m.Library, m.Version
	return opts, nil
}
