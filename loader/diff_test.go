package loader

import (
	"context"
	"slices"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// TestDiffOlderReleaseCached: a node that caches version 1 of a script but
// not the repository's version 2 is named with the release it holds, and
// where the server has SCRIPT SHOW (Valkey 8) the old source comes back for
// the diff; Redis cannot read it back.
func TestDiffOlderReleaseCached(t *testing.T) {
	for _, kind := range []string{"redis-7.0", "valkey-8.1"} {
		t.Run(kind, func(t *testing.T) {
			k, _ := redistest.LookupKind(kind)
			s := redistest.Standalone(t, redistest.WithKind(k))
			m1 := loadManifest(t, 1)
			for _, sc := range m1.Scripts {
				s.MustDo("SCRIPT", "LOAD", string(sc.Source))
			}
			s.MustDo("FUNCTION", "LOAD", string(m1.FunctionsLibrary()))
			m2 := changedManifest(t, 2)
			ledger := map[int]map[string]string{1: {}, 2: {}}
			for i := range m1.Scripts {
				ledger[1][m1.Scripts[i].Name] = m1.Scripts[i].SHA
				ledger[2][m2.Scripts[i].Name] = m2.Scripts[i].SHA
			}
			tp := topo(t, "", s)
			r, err := Diff(context.Background(), tp, m2, Options{Ledger: ledger})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Differs() || len(r.Items) != 1+len(m2.Scripts) {
				t.Fatalf("differs %v, %d items", r.Differs(), len(r.Items))
			}
			lib := r.Items[0]
			if lib.Name != "catalog_refresh_v2" || len(lib.Groups) != 1 || lib.Groups[0].State != DiffAbsent ||
				!slices.Equal(lib.Groups[0].Holds, []string{"catalog_refresh_v1"}) {
				t.Fatalf("library item %+v", lib)
			}
			changed := r.Items[1]
			g := changed.Groups[0]
			if changed.Name != m2.Scripts[0].Name || g.State != DiffMissing || !slices.Equal(g.Holds, []string{"v1 " + m1.Scripts[0].SHA}) {
				t.Fatalf("changed script %+v", changed)
			}
			if kind == "valkey-8.1" {
				if string(g.Code) != string(m1.Scripts[0].Source) || g.CodeSHA != m1.Scripts[0].SHA {
					t.Fatalf("SCRIPT SHOW on valkey gave %q", g.Code)
				}
			} else if g.Code != nil {
				t.Fatalf("redis has no SCRIPT SHOW, yet code %q", g.Code)
			}
			// The unchanged scripts are the same in both versions.
			for _, it := range r.Items[2:] {
				if it.Differs() || it.Groups[0].State != DiffSame {
					t.Errorf("script %s: %+v", it.Name, it.Groups)
				}
			}
		})
	}
}
