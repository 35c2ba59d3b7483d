package explore

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
)

// repoManifest is the bundled manifest.
func repoManifest(t testing.TB) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Load(filepath.Join("..", "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func loadModel(t testing.TB, m *manifest.Manifest, path string) *Model {
	t.Helper()
	md, err := Load(path, m)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

func explore(t testing.TB, md *Model) *Result {
	t.Helper()
	res, err := Run(context.Background(), md, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func timelineText(v *Violation) string {
	var b strings.Builder
	for _, l := range v.Timeline {
		fmt.Fprintf(&b, "%d %s %s -> %s | %q rev %d\n", l.N, l.Actor, l.Action, l.Reply, l.Value, l.Revision)
	}
	return b.String()
}

func TestDebug(t *testing.T) {
	m := repoManifest(t)
	m2, err := manifest.Load(filepath.Join("testdata", "v2", "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"paused_writer_v1.yaml", "paused_writer_control.yaml", "invalidation_race_v1.yaml", "invalidation_race.yaml", "paused_writer.yaml"} {
		mm := m
		if f == "invalidation_race.yaml" || f == "paused_writer.yaml" {
			mm = m2
		}
		md := loadModel(t, mm, filepath.Join("..", "lua_test", "models", f))
		res := explore(t, md)
		t.Logf("%s: states %d transitions %d interleavings %d depth %d", f, res.States, res.Transitions, res.Interleavings, res.Depth)
		if res.Violation != nil {
			t.Logf("%s: %s\n%s", res.Violation.Invariant, res.Violation.Message, timelineText(res.Violation))
		}
	}
}
