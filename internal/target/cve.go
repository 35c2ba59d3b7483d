package target

import (
	"fmt"
	"strings"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// CVE is one published vulnerability of the servers' embedded Lua and, per
// family and major.minor line, what each line's releases are: affected
// before a patch release, affected throughout, or never affected. The
// table is data: a new advisory, or a line released since, is a new entry
// or a new row, with the advisory it comes from.
type CVE struct {
	ID      string
	Summary string
	// Advisories name, per family, where its rows come from: a GHSA id
	// (its URL is AdvisoryURL) or a release-notes URL.
	Advisories map[string][]string
	// Lines maps a family to its lines ("8.0") and each line to the first
	// release of the line that carries the fix ("8.0.4"), or to
	// LineAffected (no release of the line is fixed: end of life when the
	// advisory came out) or LineUnaffected (the line came out with the fix,
	// or never had the bug). A line that is not listed is not known: a
	// node of it is reported as unknown, never guessed.
	Lines map[string]map[string]string
	// Notes say, per family, which rows are less certain than the
	// advisory itself, and why; none when every row is from the advisory or
	// the release notes.
	Notes map[string]string
}

// The values of CVE.Lines besides a fixed release.
const (
	LineAffected   = "affected"
	LineUnaffected = "unaffected"
)

// Verdict is what the table says about one release for one CVE.
type Verdict int

const (
	// NotJudged: a family the table does not cover (neither Redis nor
	// Valkey), or one the CVE does not concern.
	NotJudged Verdict = iota
	// Unaffected: the release carries the fix, or its line never had the
	// bug.
	Unaffected
	// Affected: upstream lists the release as affected. A distribution
	// build may carry the fix under the same version string.
	Affected
	// Unknown: the table has no row for the release's line, or the
	// version cannot be read; it is not guessed.
	Unknown
)

// lua2025 are the four Lua CVEs published together on 3 October 2025 (the
// Lua parser's use-after-free and three related bugs). Redis: the
// advisories and the release notes of 8.2.2, 8.0.4, 7.4.6, 7.2.11 and
// 6.2.20; Valkey: the release notes of 8.1.4, 8.0.6 and 7.2.11 (same day).
// Redis 8.4 and Valkey 9.0 came out after them with the fixes.
func lua2025() map[string]map[string]string {
	return map[string]map[string]string{
		Redis: {"6.0": LineAffected, "6.2": "6.2.20", "7.0": LineAffected, "7.2": "7.2.11", "7.4": "7.4.6",
			"8.0": "8.0.4", "8.2": "8.2.2", "8.4": LineUnaffected},
		Valkey: {"7.2": "7.2.11", "8.0": "8.0.6", "8.1": "8.1.4", "9.0": LineUnaffected, "9.1": LineUnaffected},
	}
}

// adv2025 names a 2025 CVE's Redis advisory and Valkey's release notes.
func adv2025(ghsa string) map[string][]string {
	return map[string][]string{Redis: {ghsa}, Valkey: {"https://github.com/valkey-io/valkey/releases/tag/8.1.4"}}
}

// notes2025 say where the 2025 rows are less sure.
func notes2025() map[string]string {
	return map[string]string{Valkey: "Valkey 8.0.6 and 7.2.11 are from Valkey's release notes of 3 October 2025 as this table's authors read them, not from an advisory"}
}

// cves is the table of Lua CVEs scriptctl warns about, newest first; built
// on first use (a command that meets no server never needs it).
var cves = lazy.Value[[]CVE]{New: func() []CVE {
	lua2025, notes2025 := lua2025(), notes2025()
	return []CVE{
		// February 2026: a CR or LF in a Lua error reply splits the RESP reply
		// (lint's reply-injection rule names it). Redis: the release notes of
		// 7.4.8, 8.0.6, 8.2.5 and 8.4.2 describe the fix; Valkey: 9.0.2,
		// 8.1.6, 8.0.7 and 7.2.12 (the advisory's fixed versions); Valkey 9.1
		// came out with it.
		{ID: "CVE-2025-67733", Summary: "a Lua error reply with CR or LF injects data into the client's reply stream",
			Advisories: map[string][]string{
				Redis:  {"https://github.com/redis/redis/releases/tag/8.0.6", "https://github.com/redis/redis/releases/tag/7.4.8"},
				Valkey: {"https://github.com/valkey-io/valkey/releases/tag/9.0.2", "https://osv.dev/vulnerability/BIT-valkey-2025-67733"},
			},
			Lines: map[string]map[string]string{
				Redis:  {"6.0": LineAffected, "7.0": LineAffected, "7.4": "7.4.8", "8.0": "8.0.6", "8.2": "8.2.5", "8.4": "8.4.2"},
				Valkey: {"7.2": "7.2.12", "8.0": "8.0.7", "8.1": "8.1.6", "9.0": "9.0.2", "9.1": LineUnaffected},
			},
			Notes: map[string]string{Redis: "Redis's February 2026 release notes describe the fix (CR LF injected into an error reply) without naming the CVE; Debian's security changelogs name it for the same fix (Debian 12's 7.0.15 and 13's 8.0.2 builds carry it). No 6.2 or 7.2 release is recorded with it: those lines are unknown"}},
		{ID: "CVE-2025-49844", Summary: "use-after-free in the Lua parser, remote code execution by a script",
			Advisories: adv2025("GHSA-4789-qfc9-5f9q"), Lines: lua2025, Notes: notes2025},
		{ID: "CVE-2025-46817", Summary: "integer overflow in Lua unpack, remote code execution by a script",
			Advisories: adv2025("GHSA-m8fj-85cg-7vhp"), Lines: lua2025, Notes: notes2025},
		{ID: "CVE-2025-46818", Summary: "a script can run code in another user's context through basic types' metatables",
			Advisories: adv2025("GHSA-qrv7-wcrx-q5jp"), Lines: lua2025, Notes: notes2025},
		{ID: "CVE-2025-46819", Summary: "out-of-bounds read in the Lua lexer",
			Advisories: adv2025("GHSA-4c68-q8q8-3g4f"), Lines: lua2025, Notes: notes2025},
		// January 2025: Redis 7.4.2, 7.2.7, 6.2.17; Valkey 8.0.2 and 7.2.8
		// (valkey#1536 notes the fix in both released lines).
		{ID: "CVE-2024-46981", Summary: "use-after-free through the Lua garbage collector, remote code execution by a script",
			Advisories: map[string][]string{Redis: {"https://github.com/redis/redis/releases/tag/7.4.2"}, Valkey: {"https://github.com/valkey-io/valkey/releases/tag/8.0.2"}},
			Lines: map[string]map[string]string{
				Redis:  {"6.0": LineAffected, "6.2": "6.2.17", "7.0": LineAffected, "7.2": "7.2.7", "7.4": "7.4.2", "8.0": LineUnaffected, "8.2": LineUnaffected, "8.4": LineUnaffected},
				Valkey: {"7.2": "7.2.8", "8.0": "8.0.2", "8.1": LineUnaffected, "9.0": LineUnaffected, "9.1": LineUnaffected},
			},
			Notes: map[string]string{Valkey: "the Valkey rows (8.0.2, 7.2.8) are from Valkey's January 2025 releases as this table's authors read them, not from an advisory"}},
		// October 2024: Redis 7.4.1, 7.2.6, 6.2.16 (release notes, redis#13583,
		// #13582, #13584); Valkey applied the same fixes for 8.0.1 and 7.2.7
		// (valkey#1113, #1114).
		{ID: "CVE-2024-31449", Summary: "stack overflow in the Lua bit library, remote code execution by a script",
			Advisories: map[string][]string{Redis: {"GHSA-whxg-wx83-85p5"}, Valkey: {"https://github.com/valkey-io/valkey/pull/1113", "https://github.com/valkey-io/valkey/pull/1114"}},
			Lines: map[string]map[string]string{
				Redis:  {"6.0": LineAffected, "6.2": "6.2.16", "7.0": LineAffected, "7.2": "7.2.6", "7.4": "7.4.1", "8.0": LineUnaffected, "8.2": LineUnaffected, "8.4": LineUnaffected},
				Valkey: {"7.2": "7.2.7", "8.0": "8.0.1", "8.1": LineUnaffected, "9.0": LineUnaffected, "9.1": LineUnaffected},
			},
			Notes: map[string]string{Valkey: "the Valkey rows (8.0.1, 7.2.7) are from Valkey's security-fix pull requests of 2 October 2024, not from an advisory"}},
		// July 2023: Redis 7.0.12, 6.2.13, 6.0.20. Valkey forked from Redis
		// 7.2.4, after the fix.
		{ID: "CVE-2022-24834", Summary: "heap overflow in the Lua cjson and cmsgpack libraries, remote code execution by a script",
			Advisories: map[string][]string{Redis: {"GHSA-p8x2-9v9q-c838"}},
			Lines: map[string]map[string]string{
				Redis:  {"6.0": "6.0.20", "6.2": "6.2.13", "7.0": "7.0.12", "7.2": LineUnaffected, "7.4": LineUnaffected, "8.0": LineUnaffected, "8.2": LineUnaffected, "8.4": LineUnaffected},
				Valkey: {"7.2": LineUnaffected, "8.0": LineUnaffected, "8.1": LineUnaffected, "9.0": LineUnaffected, "9.1": LineUnaffected},
			}},
		// October 2021: Redis 6.2.6, 6.0.16; the 7.x lines came out after it.
		{ID: "CVE-2021-32626", Summary: "heap overflow through a Lua stack overflow, remote code execution by a script",
			Advisories: map[string][]string{Redis: {"GHSA-p486-xggp-782c"}},
			Lines: map[string]map[string]string{
				Redis:  {"6.0": "6.0.16", "6.2": "6.2.6", "7.0": LineUnaffected, "7.2": LineUnaffected, "7.4": LineUnaffected, "8.0": LineUnaffected, "8.2": LineUnaffected, "8.4": LineUnaffected},
				Valkey: {"7.2": LineUnaffected, "8.0": LineUnaffected, "8.1": LineUnaffected, "9.0": LineUnaffected, "9.1": LineUnaffected},
			}},
	}
}}

// CVEs returns the table of Lua CVEs scriptctl warns about (cves).
func CVEs() []CVE { return cves.Get() }

// LookupCVE returns the table's entry for id ("CVE-2025-49844").
func LookupCVE(id string) (CVE, bool) {
	for _, c := range CVEs() {
		if c.ID == id {
			return c, true
		}
	}
	return CVE{}, false
}

// CVEIDs returns the table's ids, in its order.
func CVEIDs() []string {
	out := make([]string, len(CVEs()))
	for i, c := range CVEs() {
		out[i] = c.ID
	}
	return out
}

// Judge says what the table knows about upstream release version of
// family for c: Affected before its line's fix (or on a line no release
// of which is fixed), Unaffected from the fix on (or on a line that never
// had the bug), Unknown on a line the table has no row for or for a
// version that cannot be read, NotJudged for other families.
func (c CVE) Judge(family, version string) Verdict {
	lines, ok := c.Lines[family]
	if !ok {
		return NotJudged
	}
	v, ok := ParseVersion(version)
	if !ok {
		return Unknown
	}
	row, ok := lines[fmt.Sprintf("%d.%d", v.Major, v.Minor)]
	switch {
	case !ok:
		return Unknown
	case row == LineAffected:
		return Affected
	case row == LineUnaffected:
		return Unaffected
	}
	fixed, ok := ParseVersion(row)
	if !ok {
		return Unknown
	}
	if v.Less(fixed) {
		return Affected
	}
	return Unaffected
}

// FixedIn is the first fixed release of version's line ("8.0.4"); "" when
// the line has none (no release of it is fixed, it was never affected, or
// the table has no row for it).
func (c CVE) FixedIn(family, version string) string {
	v, ok := ParseVersion(version)
	if !ok {
		return ""
	}
	switch row := c.Lines[family][fmt.Sprintf("%d.%d", v.Major, v.Minor)]; row {
	case LineAffected, LineUnaffected:
		return ""
	default:
		return row
	}
}

// AdvisoryURL is the web page of an advisory name: a GHSA id's global
// advisory page, a URL as it is.
func AdvisoryURL(a string) string {
	if strings.HasPrefix(a, "GHSA-") {
		return "https://github.com/advisories/" + a
	}
	return a
}

// AffectingCVEs returns the CVEs whose upstream advisories list family's
// version as affected.
func AffectingCVEs(family, version string) []CVE {
	return judged(family, version, Affected)
}

// UnknownCVEs returns the CVEs the table cannot judge for family's version
// (a line it has no row for, or an unreadable version).
func UnknownCVEs(family, version string) []CVE {
	return judged(family, version, Unknown)
}

func judged(family, version string, v Verdict) []CVE {
	var out []CVE
	for _, c := range CVEs() {
		if c.Judge(family, version) == v {
			out = append(out, c)
		}
	}
	return out
}

// CVEHint is what to do about an affected node.
const CVEHint = "upgrade to a fixed release or check your distribution's advisory; accept_cves in the manifest acknowledges a build known to carry the fix"

// CVEWarning words the finding for c: upstream lists the releases (such as
// "redis 8.0.2") as affected, but a distribution build may carry the fix
// under the same version string (Debian's 8.0.2 does), so it never says a
// node is vulnerable for certain.
func CVEWarning(c CVE, releases []string) string {
	verb := "is"
	if len(releases) > 1 {
		verb = "are"
	}
	return fmt.Sprintf("%s (%s): upstream %s %s affected unless your build carries the fix", c.ID, c.Summary, strings.Join(releases, ", "), verb)
}
