package manifest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLoad loads the repository's manifest: YAML parsing, validation,
// and reading and hashing the three scripts.
func BenchmarkLoad(b *testing.B) {
	path := filepath.Join("..", "manifest.yaml")
	for b.Loop() {
		if _, err := Load(path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseSum parses a ledger of 1,000 versions of 3 scripts.
func BenchmarkParseSum(b *testing.B) {
	var sb strings.Builder
	for v := 1; v <= 1000; v++ {
		for _, s := range []string{"acquire", "publish", "release"} {
			fmt.Fprintf(&sb, "%d %s %s\n", v, s, shaA)
		}
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseSum("scripts.sum", data); err != nil {
			b.Fatal(err)
		}
	}
}
