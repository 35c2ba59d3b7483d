package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// envManifest writes a manifest with one script and extra appended, and
// parses it.
func envManifest(t *testing.T, extra string) (*Manifest, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.lua"), []byte("return 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := "schema: 1\nlibrary: lib\nversion: 1\ntargets: [redis-7.0, valkey-8.1]\nscripts:\n  a:\n    file: a.lua\n    keys: []\n    args: []\n" + extra
	return Parse(filepath.Join(dir, "manifest.yaml"), []byte(data))
}

func TestEnvironments(t *testing.T) {
	m, err := envManifest(t, `environments:
  staging:
    urls: [redis://staging-0:6379, redis://deployer@staging-1:6379]
    password_env: STAGING_PASSWORD
    targets: [valkey-8.1]
    topology: cluster
  prod:
    url_env: PROD_URL
    password_file: secrets/prod.pw
    tls: {ca: ca.pem, cert: c.pem, key: k.pem, server_name: redis.internal}
releases: old/v<version>/manifest.yaml
`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.EnvironmentNames(), ","); got != "staging,prod" {
		t.Fatalf("names %q", got)
	}
	s := m.Environment("staging")
	if len(s.URLs) != 2 || s.PasswordEnv != "STAGING_PASSWORD" || s.Topology != TopologyCluster || strings.Join(s.Targets, ",") != "valkey-8.1" || s.Line != 11 || s.TargetsLine != 14 {
		t.Fatalf("staging = %+v", s)
	}
	p := m.Environment("prod")
	if p.URLEnv != "PROD_URL" || p.PasswordFile != filepath.Join(m.Dir, "secrets/prod.pw") || p.TLSCA != filepath.Join(m.Dir, "ca.pem") || p.TLSServerName != "redis.internal" {
		t.Fatalf("prod = %+v", p)
	}
	if got := m.ReleasePath(1); got != filepath.Join(m.Dir, "old/v1/manifest.yaml") {
		t.Fatalf("ReleasePath(1) = %q", got)
	}
	_, err = m.LookupEnvironment("stagin")
	var ue *UnknownEnvironmentError
	if !errors.As(err, &ue) || ue.Suggest != "staging" || !strings.Contains(err.Error(), `(did you mean "staging"?)`) {
		t.Fatalf("LookupEnvironment(stagin) = %v", err)
	}
}

func TestEnvironmentErrors(t *testing.T) {
	for _, tc := range []struct {
		name, extra, want string
	}{
		{"password in url", "environments:\n  prod:\n    urls: [\"redis://u:secret@h:6379\"]\n",
			"manifest.yaml:12:12: environments.prod.urls[0]: a URL in the manifest must not carry a password"},
		{"no servers", "environments:\n  prod:\n    topology: cluster\n",
			"manifest.yaml:11:3: environments.prod: needs urls"},
		{"both", "environments:\n  prod:\n    urls: [redis://h:1]\n    url_env: X\n",
			"manifest.yaml:13:14: environments.prod.url_env: give urls or url_env, not both"},
		{"unknown field", "environments:\n  prod:\n    url: [redis://h:1]\n",
			`manifest.yaml:12:5: environments.prod.url: unknown field "url" (did you mean "urls"?)`},
		{"target not in manifest", "environments:\n  prod:\n    urls: [redis://h:1]\n    targets: [redis-8.0]\n",
			`manifest.yaml:13:15: environments.prod.targets[0]: target "redis-8.0" is not among the manifest's targets`},
		{"topology", "environments:\n  prod:\n    urls: [redis://h:1]\n    topology: sentinel\n",
			`environments.prod.topology: unknown topology "sentinel"`},
		{"bad url", "environments:\n  prod:\n    urls: [http://h:1]\n",
			`environments.prod.urls[0]: invalid URL "http://h:1"`},
		{"cert without key", "environments:\n  prod:\n    urls: [rediss://h:1]\n    tls: {cert: c.pem}\n",
			"environments.prod.tls: cert and key go together"},
		{"releases without version", "releases: old/manifest.yaml\n",
			"manifest.yaml:10:11: releases: must contain <version>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := envManifest(t, tc.extra)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestDigest(t *testing.T) {
	a, err := envManifest(t, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := envManifest(t, "# a comment\n")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.Digest(), "sha256:") || a.Digest() == b.Digest() {
		t.Fatalf("digests %s and %s", a.Digest(), b.Digest())
	}
	a.Scripts[0].SHA = "x"
	if c, _ := envManifest(t, ""); c.Digest() == a.Digest() {
		t.Fatal("a script's SHA does not change the digest")
	}
}
