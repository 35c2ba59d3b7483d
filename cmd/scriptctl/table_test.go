package main

import (
	"regexp"
	"strings"
	"testing"
)

// tableHeader matches the header row of an aligned table: upper-case column
// names separated by at least two spaces.
var tableHeader = regexp.MustCompile(`^[A-Z][A-Z0-9_]*(  +[A-Z][A-Z0-9_]*)*$`)

// tableRows turns an aligned table with a header row (iostreams.Table) into
// tab-separated rows without the header, so tests compare cells; the
// columns start where the header's names start. Text that does not begin
// with a header row is returned as it is.
func tableRows(s string) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) == 0 || !tableHeader.MatchString(strings.TrimSuffix(lines[0], "\n")) {
		return s
	}
	header := lines[0]
	var starts []int
	for i := 0; i < len(header); i++ {
		if header[i] != ' ' && header[i] != '\n' && (i == 0 || header[i-1] == ' ') {
			starts = append(starts, i)
		}
	}
	var b strings.Builder
	for _, l := range lines[1:] {
		nl := strings.HasSuffix(l, "\n")
		l = strings.TrimSuffix(l, "\n")
		if l == "" {
			if nl {
				b.WriteString("\n")
			}
			continue
		}
		cells := make([]string, len(starts))
		for i, st := range starts {
			end := len(l)
			if i+1 < len(starts) {
				end = min(starts[i+1], len(l))
			}
			if st < len(l) {
				cells[i] = strings.TrimRight(l[st:end], " ")
			}
		}
		b.WriteString(strings.Join(cells, "\t"))
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func TestTableRows(t *testing.T) {
	in := "NODE    ROLE     SERVER        DETAIL\na:1     primary  redis 7.0.15  -\nbbbb:2  replica  redis 8.0.2   not in the script cache\n"
	want := "a:1\tprimary\tredis 7.0.15\t-\nbbbb:2\treplica\tredis 8.0.2\tnot in the script cache\n"
	if got := tableRows(in); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := tableRows("{\"a\": 1}\n"); got != "{\"a\": 1}\n" {
		t.Fatalf("JSON changed: %q", got)
	}
}
