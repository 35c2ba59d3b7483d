package main

import (
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

func TestHasDelifeq(t *testing.T) {
	for _, tc := range []struct {
		family, version string
		want            bool
	}{
		{"valkey", "9.0.0", true}, {"valkey", "9.1.2", true}, {"valkey", "8.1.1", false}, {"redis", "9.0.0", false}, {"valkey", "x", false},
	} {
		if got := hasDelifeq(tc.family, tc.version); got != tc.want {
			t.Errorf("hasDelifeq(%q, %q) = %v, want %v", tc.family, tc.version, got, tc.want)
		}
	}
}

func TestHasSetIfeq(t *testing.T) {
	for _, tc := range []struct {
		family, version string
		want            bool
	}{
		{"valkey", "8.1.1", true}, {"valkey", "8.0.1", false}, {"valkey", "9.0.0", true}, {"valkey", "7.2.7", false},
		{"redis", "8.4.0", true}, {"redis", "8.0.2", false}, {"redis", "7.0.15", false}, {"redis", "9.0.0", true},
		{"redis", "", false}, {"redis", "8", false}, {"other", "9.9.9", false}, {"valkey", "x.1", false},
	} {
		if got := hasSetIfeq(tc.family, tc.version); got != tc.want {
			t.Errorf("hasSetIfeq(%q, %q) = %v, want %v", tc.family, tc.version, got, tc.want)
		}
	}
}

// TestPlanSetIfeqNote: plan notes SET ... IFEQ on Valkey 8.1 and says
// nothing of it on Redis 7.0 and 8.0.
func TestPlanSetIfeqNote(t *testing.T) {
	for _, kind := range redistest.Kinds {
		t.Run(kind.Name, func(t *testing.T) {
			s := redistest.Standalone(t, redistest.WithKind(kind))
			noConnEnv(t)
			res := loaderExpect(t, 0, "plan", "-m", repoManifest, "--url", s.URL())
			has := strings.Contains(res.errOut, "has SET ... IFEQ")
			if want := kind.Target() == "valkey-8.1" || kind.Target() == "valkey-9.1"; has != want {
				t.Fatalf("plan on %s: IFEQ note %v, want %v; stderr:\n%s", kind.Name, has, want, res.errOut)
			}
			if has && !strings.Contains(res.errOut, "(1 node(s)) has SET ... IFEQ") {
				t.Fatalf("note does not name the family, version and node count:\n%s", res.errOut)
			}
			del := strings.Contains(res.errOut, "has DELIFEQ: package refresh releases leases there without the release script")
			if want := kind.Name == "valkey-9.1"; del != want {
				t.Fatalf("plan on %s: DELIFEQ note %v, want %v; stderr:\n%s", kind.Name, del, want, res.errOut)
			}
		})
	}
}
