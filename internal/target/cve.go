package target

import "fmt"

// CVE is one published vulnerability of the servers' embedded Lua, with the
// first upstream release of each line that carries the fix.
type CVE struct {
	ID      string
	Summary string
	// FixedIn maps a family to the first fixed release of each line it
	// fixed ("8.0.4" for the 8.0 line). A line not listed is affected
	// throughout when it is older than every listed fix (end-of-life lines
	// such as Redis 7.0 got no fix) and unaffected when newer.
	FixedIn map[string][]string
}

// luaCVEs2025 were published together in October 2025 (the Lua parser's
// use-after-free and three related bugs), fixed upstream in the releases
// listed: Redis's advisory GHSA-4789-qfc9-5f9q and release notes, Valkey's
// release notes of 8.1.4, 8.0.6 and 7.2.11 (all 3 October 2025). Valkey 9.0.0
// came out after them with the fixes.
var luaCVEs2025 = map[string][]string{
	Redis:  {"6.2.20", "7.2.11", "7.4.6", "8.0.4", "8.2.2"},
	Valkey: {"7.2.11", "8.0.6", "8.1.4"},
}

// CVEs lists the Lua CVEs scriptctl warns about.
var CVEs = []CVE{
	{ID: "CVE-2025-49844", Summary: "use-after-free in the Lua parser (remote code execution by a script)", FixedIn: luaCVEs2025},
	{ID: "CVE-2025-46817", Summary: "integer overflow in Lua unpack (remote code execution by a script)", FixedIn: luaCVEs2025},
	{ID: "CVE-2025-46818", Summary: "a script can run code in another user's context", FixedIn: luaCVEs2025},
	{ID: "CVE-2025-46819", Summary: "out-of-bounds read in the Lua lexer", FixedIn: luaCVEs2025},
}

// Affected reports whether upstream release version of family is listed as
// affected by c: older than the fix of its own major.minor line, or on a
// line older than every fixed line and not fixed itself. Unknown families
// and unreadable versions are not judged (false).
func (c CVE) Affected(family, version string) bool {
	v, ok := ParseVersion(version)
	if !ok {
		return false
	}
	fixes := c.FixedIn[family]
	if len(fixes) == 0 {
		return false
	}
	newest := Version{}
	for _, f := range fixes {
		fv, _ := ParseVersion(f)
		if fv.Major == v.Major && fv.Minor == v.Minor {
			return v.Less(fv)
		}
		if newest.Less(fv) {
			newest = fv
		}
	}
	// A line with no fix of its own: affected when it is older than the
	// newest fixed line (an end-of-life line), unaffected when newer (a
	// line released after the fixes).
	return Version{v.Major, v.Minor, 0}.Less(Version{newest.Major, newest.Minor, 0})
}

// AffectingCVEs returns the CVEs whose upstream advisories list family's
// version as affected.
func AffectingCVEs(family, version string) []CVE {
	var out []CVE
	for _, c := range CVEs {
		if c.Affected(family, version) {
			out = append(out, c)
		}
	}
	return out
}

// CVEHint is what to do about a CVEWarning.
const CVEHint = "upgrade to a fixed release or check your distribution's advisory"

// CVEWarning words the finding for a node: upstream lists the version as
// affected, but a distribution build may carry the fix under the same version
// string (Debian's 8.0.2 does), so it never says the node is vulnerable for
// certain. CVEHint says what to do.
func CVEWarning(family, version string, cves []CVE) string {
	ids := ""
	for i, c := range cves {
		if i > 0 {
			ids += ", "
		}
		ids += c.ID
	}
	return fmt.Sprintf("upstream %s %s is affected by %s (Lua scripting) unless your build carries the fix", family, version, ids)
}
