package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/connect"
	"github.com/scriptctl/scriptctl/internal/iostreams"
)

// secretMarker is the password every case hides in a URL.
const secretMarker = "MarkerPw7720"

// secretURLSeeds are the malformed URLs that once leaked their password,
// and their neighbours.
var secretURLSeeds = []string{
	"redis//u:" + secretMarker + "@127.0.0.1:1",
	"redis:/u:" + secretMarker + "@127.0.0.1:1",
	"redis:u:" + secretMarker + "@127.0.0.1:1",
	"redis://u:12345/" + secretMarker + "@127.0.0.1:1",
	"redis://u:" + secretMarker + "@127.0.0.1:1/2",
	"redis://u:" + secretMarker + "@bad host:1",
	"http://u:" + secretMarker + "@h:1",
	"redis://u:" + secretMarker + "@h:99999",
	"redis://u:" + secretMarker + "@h:1?x=1",
	"rediss://u:" + secretMarker + "@",
	"u:" + secretMarker + "@h",
	"redis://:" + secretMarker + "@[::1",
	// A password in a query parameter, percent-encoded, or holding a
	// separator of SCRIPTCTL_URL's list (each half carries the marker, so
	// printing either half is caught).
	"redis://127.0.0.1:1/?password=" + secretMarker,
	"redis://127.0.0.1:1?password=" + secretMarker + "&x=1",
	"redis://127.0.0.1:1/#" + secretMarker,
	"redis://127.0.0.1:1/?password=" + secretMarker + "@x",
	"redis://u:" + secretMarker + "?x@127.0.0.1:1",
	"redis://u:" + secretMarker + "%2C%40@127.0.0.1:1",
	"redis://deployer:" + secretMarker + "," + secretMarker + "@127.0.0.1:1",
	"redis://deployer:" + secretMarker + ", " + secretMarker + "@127.0.0.1:1,redis://x.invalid:1",
	"redis://127.0.0.1:1," + secretMarker + ":" + secretMarker + "@127.0.0.1:1",
}

// urlCommands are every command that takes a server URL, with the way the
// URL reaches it.
func urlCommands(u string) [][]string {
	return [][]string{
		{"status", "--url", u},
		{"plan", "--url", u},
		{"deploy", "--url", u},
		{"prune", "--url", u},
		{"status", "--url", "redis://127.0.0.1:1", "--url", u},
		{"verify", "--against", u},
		{"eval", "--against", u, "../../lua/release.lua", "k", ",", "t"},
	}
}

// safeToRun keeps the fuzzer away from real servers: a URL that resolves
// to an address is run only when every seed is a reserved, unresolvable
// .invalid name or port 1 on loopback, where nothing listens.
func safeToRun(u string) bool {
	cfg, err := connect.Resolve(connect.Settings{URLs: connect.SplitURLs(u), Timeout: time.Second}, true)
	if err != nil {
		return true // refused before any connection
	}
	for _, s := range cfg.Seeds {
		if !strings.HasSuffix(s, ".invalid:1") && s != "127.0.0.1:1" {
			return false
		}
	}
	return true
}

// secretPlaced reports whether u holds the marker, and only as a password:
// after the ":" of user:password, before the last "@", or in a query
// or fragment (after the first "?" or "#"), in u as a whole (one --url) and
// in each URL of its list (SCRIPTCTL_URL). A marker that is a host, a user
// name or the whole value is not a password.
func secretPlaced(u string) bool {
	if !strings.Contains(u, secretMarker) {
		return false
	}
	for _, piece := range append(connect.SplitURLs(u), u) {
		at := strings.LastIndex(piece, "@")
		q := strings.IndexAny(piece, "?#")
		for i := 0; ; {
			j := strings.Index(piece[i:], secretMarker)
			if j < 0 {
				break
			}
			start := i + j
			userinfo := 0
			if k := strings.Index(piece, "://"); k >= 0 && k < start {
				userinfo = k + 3
			}
			password := start+len(secretMarker) <= at && strings.Contains(piece[userinfo:start], ":")
			if !password && !(q >= 0 && start > q) {
				return false
			}
			i = start + 1
		}
	}
	return true
}

func assertNoSecret(t *testing.T, args []string, env string) {
	t.Helper()
	if env != "" {
		t.Setenv("SCRIPTCTL_URL", env)
	} else {
		t.Setenv("SCRIPTCTL_URL", "")
	}
	ios, _, out, errOut := iostreams.Test()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	run(ctx, ios, append(args, "-m", "../../manifest.yaml", "--timeout", "300ms"))
	for _, s := range []string{out.String(), errOut.String()} {
		if strings.Contains(s, secretMarker) {
			t.Fatalf("scriptctl %q (SCRIPTCTL_URL=%q) printed the password:\n%s", args, env, s)
		}
	}
}

// FuzzSecretNeverPrinted feeds URLs hiding a marker password to every
// command that takes --url, SCRIPTCTL_URL or --against, in text and JSON,
// and fails if the marker appears in stdout or stderr.
func FuzzSecretNeverPrinted(f *testing.F) {
	for _, s := range secretURLSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		if !secretPlaced(u) || !safeToRun(u) || strings.ContainsRune(u, 0) {
			return
		}
		for _, args := range urlCommands(u) {
			// -m is not a flag of eval; the manifest of the others.
			if args[0] == "eval" {
				continue
			}
			assertNoSecret(t, args, "")
			assertNoSecret(t, append(args, "--format", "json"), "")
		}
		assertNoSecret(t, []string{"status"}, u)
		assertNoSecret(t, []string{"plan", "--format", "json"}, u)
	})
}

// TestURLSourceNamed: the error names where the URL came from.
func TestURLSourceNamed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"status", "--url", "redis//x"}, "", "--url #1: "},
		{[]string{"status"}, "redis//x", "SCRIPTCTL_URL: "},
		{[]string{"status"}, "redis://h:1,redis//x", "SCRIPTCTL_URL #2: "},
		{[]string{"verify", "--against", "redis//x"}, "", "--against: "},
	} {
		t.Setenv("SCRIPTCTL_URL", tc.env)
		ios, _, _, errOut := iostreams.Test()
		code := run(context.Background(), ios, append(tc.args, "-m", "../../manifest.yaml"))
		if code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%q env %q: exit %d, stderr %q; want exit 2 naming %q", tc.args, tc.env, code, errOut.String(), tc.want)
		}
	}
}
