package difftest

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"github.com/scriptctl/scriptctl/verify"
)

// The library cases of package lualib, recorded from a real Redis 7.0.15
// (errors reduced to their message).
const libCasesGolden = "../lualib/testdata/libcases.golden"

var errSuffix = regexp.MustCompile(`(?s)^\(error\) ERR (.*) script: [0-9a-f]{40}, on @user_script:\d+\.\n$`)

// TestLibCasesThroughEngine runs lualib's recorded cases through the whole
// engine (sandbox, readonly globals, reply conversion, error handler)
// rather than a bare gopher-lua state, offline only.
func TestLibCasesThroughEngine(t *testing.T) {
	data, err := os.ReadFile(libCasesGolden)
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Script string `json:"script"`
		Reply  string `json:"reply"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("parse %s: %v", libCasesGolden, err)
	}
	if len(cases) < 200 {
		t.Fatalf("%s has %d cases, want at least 200", libCasesGolden, len(cases))
	}
	for _, c := range cases {
		e := verify.New(verify.Options{})
		got := offline(e.Eval(context.Background(), []byte(c.Script), nil, nil))
		if m := errSuffix.FindStringSubmatch(got); m != nil {
			got = "(error) " + m[1] + "\n"
		}
		if got != c.Reply {
			t.Errorf("script %q\n redis:  %q\n engine: %q", c.Script, c.Reply, got)
		}
	}
}
