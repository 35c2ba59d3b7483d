package refresh

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/slot"
)

// TestDefaultsMatchManifest keeps the defaults equal to the bundled
// manifest: the catalog_summary caller's templates, library and version.
func TestDefaultsMatchManifest(t *testing.T) {
	m, err := manifest.Load("../manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := m.Caller("catalog_summary")
	if c == nil {
		t.Fatal("manifest.yaml has no caller catalog_summary")
	}
	for _, k := range []struct{ name, want string }{{"lease", DefaultLeaseKey}, {"value", DefaultValueKey}, {"gen", DefaultGenKey}} {
		got, ok := c.Template(k.name)
		if !ok || got != k.want {
			t.Errorf("catalog_summary key %s = %q (found %v), default is %q", k.name, got, ok, k.want)
		}
	}
	if m.Library != DefaultLibrary || m.Version != DefaultVersion {
		t.Errorf("manifest library %s version %d, defaults %s %d", m.Library, m.Version, DefaultLibrary, DefaultVersion)
	}
	for _, s := range scriptNames {
		if !containsString(c.Scripts, s) {
			t.Errorf("catalog_summary does not use script %s", s)
		}
	}
	// The function names the runner calls are the manifest's.
	r := newRunner(nil, Options{Functions: true, Library: DefaultLibrary, Version: DefaultVersion})
	if got, want := r.names["publish"], m.FunctionName("publish"); got != want || got != "catalog_refresh_publish_v2" {
		t.Errorf("publish function %q, manifest names it %q", got, want)
	}
	if r.library != m.LibraryName() {
		t.Errorf("library %q, manifest %q", r.library, m.LibraryName())
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestOptionsDefaults(t *testing.T) {
	o, err := Options{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	want := Options{
		LeaseKey: DefaultLeaseKey, ValueKey: DefaultValueKey, GenKey: DefaultGenKey, Library: DefaultLibrary, Version: DefaultVersion,
		RenewAfter: DefaultRenewAfter,
		LeaseTTL:   DefaultLeaseTTL, CacheTTL: DefaultCacheTTL, WaitTimeout: DefaultWaitTimeout, PollInterval: DefaultPollInterval,
		MaxConcurrentLoads: DefaultMaxConcurrentLoads, MaxStaleEntries: DefaultMaxStaleEntries,
	}
	if o != want {
		t.Fatalf("defaults:\n got %+v\nwant %+v", o, want)
	}
	c, err := New(fakeClient{}, Options{StaleFor: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want.StaleFor = time.Second
	if got := c.Options(); got != want {
		t.Fatalf("Options() = %+v, want %+v", got, want)
	}
}

func TestNewRejectsNilClient(t *testing.T) {
	if _, err := New(nil, Options{}); err == nil {
		t.Fatal("New(nil) succeeded")
	}
}

func TestOptionsInvalid(t *testing.T) {
	for _, tc := range []struct {
		name  string
		o     Options
		field string
		msg   string
	}{
		{"lease ttl", Options{LeaseTTL: time.Microsecond}, "LeaseTTL", "at least 1ms"},
		{"negative lease ttl", Options{LeaseTTL: -time.Second}, "LeaseTTL", "at least 1ms"},
		{"cache ttl", Options{CacheTTL: -1}, "CacheTTL", "at least 1ms"},
		{"wait", Options{WaitTimeout: -1}, "WaitTimeout", "at least 1ms"},
		{"poll", Options{PollInterval: 10}, "PollInterval", "at least 1ms"},
		{"stale", Options{StaleFor: -time.Second}, "StaleFor", "negative"},
		{"loads", Options{MaxConcurrentLoads: -1}, "MaxConcurrentLoads", "positive"},
		{"stale entries", Options{MaxStaleEntries: -3}, "MaxStaleEntries", "positive"},
		{"version", Options{Version: -1}, "Version", "positive"},
		{"library", Options{Library: "bad-name"}, "Library", "library name"},
		{"reject policy", Options{OnRejected: RejectPolicy(7)}, "OnRejected", "unknown policy 7"},
		{"timeout policy", Options{OnWaitTimeout: -1}, "OnWaitTimeout", "unknown policy -1"},
		{"no placeholder", Options{LeaseKey: "catalog:{product}:lease"}, "LeaseKey", "exactly once"},
		{"two placeholders", Options{ValueKey: "c:{<id>}:<id>"}, "ValueKey", "exactly once"},
		{"other placeholder", Options{LeaseKey: "c:{<region>-<id>}:lease"}, "LeaseKey", "only the <id> placeholder"},
		{"stray bracket", Options{LeaseKey: "c:{<id>}>:lease"}, "LeaseKey", "only the <id> placeholder"},
		{"no hash tag", Options{LeaseKey: "catalog:product-<id>:lease", ValueKey: "catalog:product-<id>:value"}, "LeaseKey", "no hash tag"},
		{"value without tag", Options{ValueKey: "catalog:product-<id>:value"}, "ValueKey", "no hash tag"},
		{"tag without id", Options{LeaseKey: "{catalog}:<id>:lease", ValueKey: "{catalog}:<id>:value"}, "LeaseKey", "no hash tag"},
		{"unclosed tag", Options{LeaseKey: "c:{<id>:lease"}, "LeaseKey", "no hash tag"},
		{"different tags", Options{LeaseKey: "lease:{p-<id>}", ValueKey: "value:{product-<id>}"}, "ValueKey", "differs from the lease key's {p-<id>}"},
		{"brace before tag", Options{LeaseKey: "a}{b{<id>}"}, "LeaseKey", "no hash tag"},
		{"same key", Options{LeaseKey: "c:{<id>}", ValueKey: "c:{<id>}"}, "ValueKey", "also the LeaseKey template"},
		{"gen same as value", Options{GenKey: DefaultValueKey}, "GenKey", "also the ValueKey template"},
		{"gen without tag", Options{GenKey: "catalog:product-<id>:gen"}, "GenKey", "no hash tag"},
		{"gen other tag", Options{GenKey: "gen:{p-<id>}"}, "GenKey", "differs from the lease key's {product-<id>}"},
		{"gen two placeholders", Options{GenKey: "g:{<id>}:<id>"}, "GenKey", "exactly once"},
		{"renew fraction 1", Options{RenewAfter: 1}, "RenewAfter", "between 0 and 1"},
		{"renew fraction negative", Options{RenewAfter: -0.5}, "RenewAfter", "between 0 and 1"},
		{"renew gap under 1ms", Options{LeaseTTL: time.Millisecond, RenewAfter: 0.5}, "RenewAfter", "under 1ms"},
		{"empty selects the default", Options{LeaseKey: "c:{<id>}", ValueKey: ""}, "ValueKey", "differs from the lease key's {<id>}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(fakeClient{}, tc.o)
			var oe *OptionError
			if !errors.As(err, &oe) {
				t.Fatalf("New error = %v, want an *OptionError", err)
			}
			if !strings.Contains(err.Error(), "refresh: options: "+tc.field+": ") || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("New error = %q, want field %s and %q", err, tc.field, tc.msg)
			}
		})
	}
}

func TestOptionsValidTemplates(t *testing.T) {
	for _, tc := range []struct{ lease, value, gen string }{
		{DefaultLeaseKey, DefaultValueKey, DefaultGenKey},
		{"{<id>}:lease", "{<id>}:value", "{<id>}:gen"},
		{"lease:{tenant:<id>:x}", "value:{tenant:<id>:x}:data", "gen:{tenant:<id>:x}"},
		{"l{p<id>}{other}", "v{p<id>}", "{p<id>}g"},
	} {
		c, err := New(fakeClient{}, Options{LeaseKey: tc.lease, ValueKey: tc.value, GenKey: tc.gen})
		if err != nil {
			t.Errorf("New(%q, %q): %v", tc.lease, tc.value, err)
			continue
		}
		for _, id := range append(sampleIDs, "}", "{", "x}y", "{x}", "}}", "a{b}c", "42}") {
			k, err := c.keys(id)
			if err != nil {
				if slot.HashTag(render(tc.lease, id)) != render(tc.lease, id) {
					t.Errorf("%q: id %q rejected although the key has a hash tag: %v", tc.lease, id, err)
				}
				continue
			}
			if slot.Of(k.lease) != slot.Of(k.value) || slot.Of(k.lease) != slot.Of(k.gen) {
				t.Errorf("id %q: %s, %s and %s not in one slot", id, k.lease, k.value, k.gen)
			}
		}
	}
}

func TestKeysRejectsBadIDs(t *testing.T) {
	c, err := New(fakeClient{}, Options{LeaseKey: "{<id>}:lease", ValueKey: "{<id>}:value", GenKey: "{<id>}:gen"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.keys(""); err == nil || !strings.Contains(err.Error(), "empty id") {
		t.Errorf("keys(\"\") error = %v", err)
	}
	// "{}x}:lease" has an empty hash tag: Redis hashes the whole key.
	if _, err := c.keys("}x"); err == nil || !strings.Contains(err.Error(), "different slots") {
		t.Errorf("keys(\"}x\") error = %v, want different slots", err)
	}
	k, err := c.keys("42")
	if err != nil || k.lease != "{42}:lease" || k.value != "{42}:value" || k.gen != "{42}:gen" {
		t.Errorf("keys(42) = %+v, %v", k, err)
	}
}

func TestPolicyStrings(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{RejectReread.String(), "reread"}, {RejectServeStale.String(), "serve-stale"}, {RejectFail.String(), "fail"},
		{RejectPolicy(9).String(), "RejectPolicy(9)"},
		{TimeoutLoad.String(), "load"}, {TimeoutFail.String(), "fail"}, {TimeoutPolicy(5).String(), "TimeoutPolicy(5)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// FuzzKeyTemplates: New never panics, and when it accepts two templates every
// id it accepts puts both keys in one slot.
func FuzzKeyTemplates(f *testing.F) {
	f.Add(DefaultLeaseKey, DefaultValueKey, "42")
	f.Add("{<id>}:lease", "{<id>}:value", "}x")
	f.Add("a{<id>}", "b{<id>}c", "{")
	f.Add("lease:{p-<id>}", "value:{product-<id>}", "7")
	f.Add("{catalog}:<id>", "{catalog}:<id>:v", "1")
	f.Fuzz(func(t *testing.T, lease, value, id string) {
		c, err := New(fakeClient{}, Options{LeaseKey: lease, ValueKey: value, GenKey: value + ":gen"})
		if err != nil {
			return
		}
		k, err := c.keys(id)
		if err != nil {
			return
		}
		if slot.Of(k.lease) != slot.Of(k.value) || slot.Of(k.gen) != slot.Of(k.value) {
			t.Fatalf("templates %q %q id %q: %s, %s and %s not in one slot", lease, value, id, k.lease, k.value, k.gen)
		}
		if k.lease == k.value {
			t.Fatalf("templates %q %q id %q: one key %s", lease, value, id, k.lease)
		}
	})
}

// fakeClient satisfies rueidis.Client for tests that never reach Redis.
type fakeClient struct{ rueidis.Client }
