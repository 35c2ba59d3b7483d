package loader

import (
	"testing"

	"github.com/scriptctl/scriptctl/internal/perf/floor"
)

// TestFloorScripts: the deploy floor (internal/perf/funcdeploy) sends the
// lock's release and the permission probes scriptctl's deploy sends.
func TestFloorScripts(t *testing.T) {
	for _, c := range []struct{ name, floor, ours string }{
		{"release", floor.ReleaseScript, releaseScript},
		{"probe library", floor.ProbeLibrary, aclProbeLibrary},
		{"ACL script", floor.ACLInnerScript, aclInnerScript},
	} {
		if c.floor != c.ours {
			t.Errorf("%s: the floor sends %q, scriptctl %q", c.name, c.floor, c.ours)
		}
	}
}
