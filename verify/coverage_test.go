package verify

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var updateCoverage = flag.Bool("update", false, "rewrite the coverage table in verify/README.md")

const (
	coverageBegin = "<!-- coverage:begin (go test ./verify -run TestCoverageTable -update) -->"
	coverageEnd   = "<!-- coverage:end -->"
)

// renderCoverage is the coverage section of verify/README.md.
func renderCoverage() string {
	rows := CoverageTable()
	counts := map[string]int{}
	for _, r := range rows {
		counts[r.Status]++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d commands of redis-server 7.0.15: %d implemented offline, %d partly (some forms answered, the others a RunError), %d answered with a `server-state` RunError, %d refused in scripts by Redis itself (noscript), %d not run offline.\n\n",
		len(rows), counts["implemented"], counts["partly"], counts["server state"], counts["not in scripts"], counts["not offline"]+counts["client only"])
	b.WriteString("| command | offline | note |\n|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", strings.ToUpper(r.Command), r.Status, r.Reason)
	}
	return b.String()
}

// TestCoverageTable keeps the table in verify/README.md equal to what the
// engine registers: every command of 7.0.15, implemented or not, with the
// reason for each not. go test ./verify -run TestCoverageTable -update
// rewrites it.
func TestCoverageTable(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, coverageBegin), strings.Index(s, coverageEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the coverage markers %q ... %q", coverageBegin, coverageEnd)
	}
	want := renderCoverage()
	got := s[i+len(coverageBegin)+1 : j]
	if got == want {
		return
	}
	if *updateCoverage {
		s = s[:i+len(coverageBegin)+1] + want + s[j:]
		if err := os.WriteFile("README.md", []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("verify/README.md's coverage table is stale: run go test ./verify -run TestCoverageTable -update")
}
