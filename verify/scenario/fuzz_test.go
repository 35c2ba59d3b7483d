package scenario

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzScenario feeds arbitrary bytes to the parser and the binder: they
// must never panic, and a scenario that parses has steps.
func FuzzScenario(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "lua_test", "*.yaml"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(minimal))
	m := repoManifest(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			if s != nil {
				t.Fatal("Parse returned a scenario and an error")
			}
			return
		}
		if len(s.Steps) == 0 {
			t.Fatal("a parsed scenario has no steps")
		}
		if err := s.Bind(m); err == nil && s.bound == nil {
			t.Fatal("Bind succeeded without a binding")
		}
	})
}

// FuzzKeys checks that whatever ParseKeys accepts, WriteKeys writes back in
// a form ParseKeys reads as the same keys.
func FuzzKeys(f *testing.F) {
	f.Add([]byte("k: {value: v, ttl_ms: 10}\nh: {hash: {f: '1'}}\n"))
	f.Add([]byte("\"a\\nb\": {value: '007'}\n"))
	f.Add([]byte("{}"))
	f.Add([]byte("l: {list: [b, a, b]}\ns: {set: [x, '1']}\nh: {hash: {z: a, a: z}}\n"))
	f.Add([]byte("z: {zset: [[m, 1e3], [n, -inf], [o, 0x1p-3], [p, -0]]}\nzm: {zset: {a: .inf, b: '2.5'}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, err := ParseKeys("fuzz.yaml", data)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteKeys(&buf, keys); err != nil {
			t.Fatalf("WriteKeys: %v", err)
		}
		again, err := ParseKeys("again.yaml", buf.Bytes())
		if err != nil {
			t.Fatalf("ParseKeys of WriteKeys output:\n%s\n%v", buf.String(), err)
		}
		byName := map[string]Key{}
		for _, k := range keys {
			k.Line = 0
			byName[k.Name] = k
		}
		for _, k := range again {
			k.Line = 0
			if !reflect.DeepEqual(byName[k.Name], k) {
				t.Fatalf("round trip changed %q: %+v -> %+v", k.Name, byName[k.Name], k)
			}
		}
		if len(again) != len(keys) {
			t.Fatalf("round trip: %d keys -> %d", len(keys), len(again))
		}
	})
}
