package manifest

import (
	"errors"
	"strings"
	"testing"
)

func TestLoadKeyRules(t *testing.T) {
	m, err := loadIn(t, validManifest, defaultFiles())
	if err != nil {
		t.Fatal(err)
	}
	if m.Topology != TopologyCluster || m.StrictKeys || m.TopologyLine != 0 || m.StrictKeysLine != 0 {
		t.Errorf("defaults: topology %q strict %v lines %d %d", m.Topology, m.StrictKeys, m.TopologyLine, m.StrictKeysLine)
	}
	m, err = loadIn(t, edit("version: 3\n", "version: 3\ntopology: standalone\nstrict_keys: true\n"), defaultFiles())
	if err != nil {
		t.Fatal(err)
	}
	if m.Topology != TopologyStandalone || !m.StrictKeys || m.TopologyLine != 4 || m.StrictKeysLine != 5 {
		t.Errorf("topology %q strict %v lines %d %d", m.Topology, m.StrictKeys, m.TopologyLine, m.StrictKeysLine)
	}
	for _, tc := range []struct{ field, want string }{
		{"topology: sentinel", `manifest.yaml:4:11: topology: unknown topology "sentinel": want cluster or standalone`},
		{"topology: ''", "manifest.yaml:4:11: topology: must be cluster or standalone, not an empty string"},
		{"topology: 1", "manifest.yaml:4:11: topology: must be a string"},
		{"strict_keys: yes please", "manifest.yaml:4:14: strict_keys: must be true or false"},
		{"strict_keys: 'true'", "manifest.yaml:4:14: strict_keys: must be true or false"},
		{"strict_key: true", `strict_key`},
	} {
		_, err := loadIn(t, edit("version: 3\n", "version: 3\n"+tc.field+"\n"), defaultFiles())
		var es Errors
		if !errors.As(err, &es) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.field, err, tc.want)
		}
	}
}
