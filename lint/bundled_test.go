package lint

import (
	"context"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
)

// TestBundledScriptsClean: the repository's own lua/ scripts, with the
// repository's manifest, lint clean.
func TestBundledScriptsClean(t *testing.T) {
	m, err := manifest.Load("../manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := ManifestFiles(m)
	if len(files) != 5 {
		t.Fatalf("got %d scripts, want 5", len(files))
	}
	ds, err := Run(context.Background(), Config{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) > 0 {
		t.Errorf("bundled scripts have findings:\n%s", lines(ds))
	}
}
