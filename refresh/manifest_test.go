package refresh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
)

func TestManifestOptionsBundled(t *testing.T) {
	m, err := manifest.Load("../manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	opts, err := ManifestOptions(m, "catalog_summary")
	if err != nil {
		t.Fatal(err)
	}
	want := Options{LeaseKey: DefaultLeaseKey, ValueKey: DefaultValueKey, GenKey: DefaultGenKey, Library: DefaultLibrary, Version: DefaultVersion}
	if opts != want {
		t.Fatalf("ManifestOptions = %+v, want %+v", opts, want)
	}
	if _, err := opts.withDefaults(); err != nil {
		t.Fatalf("the manifest's options do not pass New's checks: %v", err)
	}
}

// copyManifest writes the bundled manifest and scripts into a temporary
// folder with edit applied to the manifest, and loads it.
func copyManifest(t *testing.T, editManifest func(string) string, editScript map[string]string) *manifest.Manifest {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile("../manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.yaml"), []byte(editManifest(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "lua"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range scriptNames {
		src, err := os.ReadFile("../lua/" + name + ".lua")
		if err != nil {
			t.Fatal(err)
		}
		if extra, ok := editScript[name]; ok {
			src = append(src, extra...)
		}
		if err := os.WriteFile(filepath.Join(dir, "lua", name+".lua"), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestManifestOptionsOwnTemplates(t *testing.T) {
	m := copyManifest(t, func(s string) string {
		s = strings.ReplaceAll(s, "catalog:{product-<id>}:lease", "shop:{sku-<id>}:lease")
		s = strings.ReplaceAll(s, "catalog:{product-<id>}:value", "shop:{sku-<id>}:value")
		s = strings.ReplaceAll(s, "catalog:{product-<id>}:gen", "shop:{sku-<id>}:gen")
		return strings.Replace(s, "version: 2\n", "version: 3\n", 1)
	}, nil)
	opts, err := ManifestOptions(m, "catalog_summary")
	if err != nil {
		t.Fatal(err)
	}
	if opts.LeaseKey != "shop:{sku-<id>}:lease" || opts.ValueKey != "shop:{sku-<id>}:value" || opts.GenKey != "shop:{sku-<id>}:gen" || opts.Version != 3 || opts.Library != DefaultLibrary {
		t.Fatalf("ManifestOptions = %+v", opts)
	}
	if _, err := opts.withDefaults(); err != nil {
		t.Fatalf("the manifest's options do not pass New's checks: %v", err)
	}
}

func TestManifestOptionsRefused(t *testing.T) {
	bundled, err := manifest.Load("../manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ManifestOptions(bundled, "nobody"); err == nil || !strings.Contains(err.Error(), `no caller "nobody"`) {
		t.Errorf("unknown caller: %v", err)
	}
	changed := copyManifest(t, func(s string) string { return s }, map[string]string{"publish": "\n-- a local edit\n"})
	if _, err := ManifestOptions(changed, "catalog_summary"); err == nil || !strings.Contains(err.Error(), "script publish is not the bundled lua/publish.lua") {
		t.Errorf("edited publish.lua: %v", err)
	}
	// A version 1 manifest (no invalidate, renew or gen key) is refused.
	v1 := copyManifest(t, func(s string) string {
		s = strings.Replace(s, "scripts: [acquire, publish, invalidate, renew, release]", "scripts: [acquire, publish, release]", 1)
		return s
	}, nil)
	if _, err := ManifestOptions(v1, "catalog_summary"); err == nil || !strings.Contains(err.Error(), "does not use script invalidate") {
		t.Errorf("caller without invalidate: %v", err)
	}
}
