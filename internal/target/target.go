// Package target names the server builds scriptctl proves scripts against:
// a family (redis, valkey) and a major.minor line ("redis-7.0",
// "valkey-8.1"). It owns the list of known targets, the mapping from a
// running server's INFO to its target, and the upstream facts kept per line
// (which releases carry the 2025 Lua CVE fixes). It does not hold command
// tables or engine behaviour; those are keyed by target name elsewhere.
package target

import (
	"fmt"
	"strconv"
	"strings"
)

// Families.
const (
	Redis  = "redis"
	Valkey = "valkey"
)

// Target is one server line.
type Target struct {
	Name   string // "redis-7.0"
	Family string // Redis or Valkey
	Major  int
	Minor  int
	// Proof says how the offline engine is proven for this target: "live"
	// (a server of this line runs in CI) or "recorded" (outputs recorded
	// from the exact version named in Recorded).
	Proof    string
	Recorded string
}

// Default is the target of a manifest that lists none: the engine's
// original, Redis 7.0.
const Default = "redis-7.0"

// Known lists every target, by family, oldest first.
var Known = []Target{
	{Name: "redis-7.0", Family: Redis, Major: 7, Minor: 0, Proof: "live", Recorded: "7.0.15"},
	{Name: "redis-7.2", Family: Redis, Major: 7, Minor: 2, Proof: "recorded"},
	{Name: "redis-7.4", Family: Redis, Major: 7, Minor: 4, Proof: "recorded"},
	{Name: "redis-8.0", Family: Redis, Major: 8, Minor: 0, Proof: "live", Recorded: "8.0.2"},
	{Name: "valkey-7.2", Family: Valkey, Major: 7, Minor: 2, Proof: "recorded"},
	{Name: "valkey-8.0", Family: Valkey, Major: 8, Minor: 0, Proof: "recorded"},
	{Name: "valkey-8.1", Family: Valkey, Major: 8, Minor: 1, Proof: "live", Recorded: "8.1.1"},
	{Name: "valkey-9.1", Family: Valkey, Major: 9, Minor: 1, Proof: "live", Recorded: "9.1.2"},
}

// Names returns the known targets' names, in Known's order.
func Names() []string {
	out := make([]string, len(Known))
	for i, t := range Known {
		out[i] = t.Name
	}
	return out
}

// Lookup returns the known target called name.
func Lookup(name string) (Target, bool) {
	for _, t := range Known {
		if t.Name == name {
			return t, true
		}
	}
	return Target{}, false
}

// Parse returns the known target called name, or an error that lists the
// known ones.
func Parse(name string) (Target, error) {
	if t, ok := Lookup(name); ok {
		return t, nil
	}
	return Target{}, fmt.Errorf("unknown target %q: known targets are %s", name, strings.Join(Names(), ", "))
}

// Version is a server's release number.
type Version struct{ Major, Minor, Patch int }

// ParseVersion reads "8.0.2" (a missing patch is 0). ok is false for anything
// that is not two or three dot-separated numbers.
func ParseVersion(s string) (v Version, ok bool) {
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return v, false
	}
	nums := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		nums[i] = n
	}
	return Version{nums[0], nums[1], nums[2]}, true
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Less reports whether v is an older release than o.
func (v Version) Less(o Version) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Patch < o.Patch
}

// Line is the target name a server of family and version belongs to
// ("redis-8.0" for Redis 8.0.2), known or not; "" when version cannot be read.
func Line(family, version string) string {
	v, ok := ParseVersion(version)
	if !ok || family == "" {
		return ""
	}
	return fmt.Sprintf("%s-%d.%d", family, v.Major, v.Minor)
}

// Covered reports whether a server of family and version is one of targets
// (names): its major.minor line is listed.
func Covered(targets []string, family, version string) bool {
	line := Line(family, version)
	if line == "" {
		return false
	}
	for _, t := range targets {
		if t == line {
			return true
		}
	}
	return false
}
