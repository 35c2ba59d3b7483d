package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/internal/testtier"
	"github.com/scriptctl/scriptctl/loader"
)

// readmeACL returns the permissions of the least-privilege ACL in the
// docs/deploy.md (the line "ACL SETUSER deployer on >PASSWORD ..."), without the
// user, "on" and the password.
func readmeACL(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^ACL SETUSER deployer on >PASSWORD (.+)$`).FindSubmatch(data)
	if line == nil {
		t.Fatal("docs/deploy.md has no line 'ACL SETUSER deployer on >PASSWORD ...'")
	}
	return strings.Fields(string(line[1]))
}

// TestLeastPrivilegeACLIsMinimal takes the ACL of docs/deploy.md as written: with all
// of it deploy, plan, status, prune and unlock work; without any one
// permission the command that needs it is refused before it changes
// anything, naming what is missing. (+cluster|nodes is read by cluster
// discovery only: TestLeastPrivilegeACLCluster removes it.)
func TestLeastPrivilegeACLIsMinimal(t *testing.T) {
	perms := readmeACL(t)
	s := redistest.Standalone(t)
	setUser := func(perms []string) {
		s.MustDo(append([]string{"ACL", "SETUSER", "deployer", "reset", "on", ">deploy-pw"}, perms...)...)
	}
	t.Setenv("SCRIPTCTL_URL", "redis://deployer@"+s.Addr)
	t.Setenv("SCRIPTCTL_PASSWORD", "deploy-pw")
	t.Setenv("REDISCLI_AUTH", "")
	path := loaderProject(t, "1")
	m := loadFor(t, path)
	lock := loader.LockKey(m.Library)

	setUser(perms)
	loaderExpect(t, 0, "deploy", "-m", path)
	loaderExpect(t, 0, "status", "-m", path)
	loaderExpect(t, 0, "plan", "-m", path, "--exit-code")
	s.MustDo("SET", lock, "0123 host=ci-7 pid=1 since=2026-01-02T03:04:05Z")
	loaderExpect(t, 0, "unlock", "-m", path, "--force", "--yes")
	setVersion(t, path, "2")
	loaderExpect(t, 0, "deploy", "-m", path)
	loaderExpect(t, 0, "prune", "-m", path, "--keep", "1")
	if got := libraries(t, s); !slices.Equal(got, []string{"catalog_refresh_v2"}) {
		t.Fatalf("libraries after prune: %v", got)
	}

	for i, p := range perms {
		if !strings.HasPrefix(p, "+") && !strings.HasPrefix(p, "~") {
			continue // -@all, resetkeys: not a permission
		}
		t.Run(p, func(t *testing.T) {
			if p == "+cluster|nodes" {
				t.Skip("needed by cluster discovery only: TestLeastPrivilegeACLCluster")
			}
			setUser(append(slices.Clone(perms[:i]), perms[i+1:]...))
			name := strings.TrimLeft(p, "+")
			if strings.HasPrefix(p, "~") {
				name = lock
			}
			if p == "+function|delete" {
				// Only prune deletes: an older version loaded as the
				// admin, prune refused.
				s.MustDo("FUNCTION", "LOAD", "#!lua name=catalog_refresh_v1\nredis.register_function('catalog_refresh_v1_x', function() return 1 end)")
				res := loaderExpect(t, 3, "prune", "-m", path, "--keep", "1")
				if !strings.Contains(res.errOut, "missing function|delete") {
					t.Fatalf("stderr does not name function|delete:\n%s", res.errOut)
				}
				if got := libraries(t, s); !slices.Contains(got, "catalog_refresh_v1") {
					t.Fatalf("libraries after a refused prune: %v", got)
				}
				assertNoLock(t, s, lock)
				s.MustDo("FUNCTION", "DELETE", "catalog_refresh_v1")
				return
			}
			s.MustDo("SCRIPT", "FLUSH")
			s.MustDo("FUNCTION", "FLUSH")
			res := loaderExpect(t, 3, "deploy", "-m", path)
			if !strings.Contains(res.errOut, name) {
				t.Fatalf("stderr does not name %s:\n%s", name, res.errOut)
			}
			for _, sc := range m.Scripts {
				if scriptExists(t, s, sc.SHA) {
					t.Errorf("script %s loaded by a refused deploy", sc.Name)
				}
			}
			if got := libraries(t, s); len(got) != 0 {
				t.Errorf("libraries after a refused deploy: %v", got)
			}
			assertNoLock(t, s, lock)
		})
	}

	// Each mode asks only for what it uses: functions only needs no
	// script permission.
	setUser(slices.DeleteFunc(slices.Clone(perms), func(p string) bool { return strings.HasPrefix(p, "+script|") }))
	s.MustDo("FUNCTION", "FLUSH")
	loaderExpect(t, 0, "deploy", "-m", path, "--mode", "functions")
	if got := libraries(t, s); !slices.Equal(got, []string{"catalog_refresh_v2"}) {
		t.Fatalf("libraries after a functions-only deploy: %v", got)
	}
}

// TestUnlock shows a held lock with the holder's text escaped, refuses a
// token that no longer holds it (exit 1, the lock kept), and clears it by
// token or by force.
func TestUnlock(t *testing.T) {
	s := redistest.Standalone(t)
	t.Setenv("SCRIPTCTL_URL", s.URL())
	t.Setenv("SCRIPTCTL_PASSWORD", "")
	t.Setenv("REDISCLI_AUTH", "")
	path := loaderProject(t, "1")
	lock := loader.LockKey(loadFor(t, path).Library)

	res := loaderExpect(t, 0, "unlock", "-m", path)
	if !strings.Contains(res.out, lock+" on "+s.Addr+": not held") {
		t.Fatalf("stdout: %s", res.out)
	}
	s.MustDo("SET", lock, "feedc0de host=ci-7\x1b[2J pid=42 since=2026-01-02T03:04:05Z", "PX", "60000")
	res = loaderExpect(t, 0, "unlock", "-m", path)
	if !strings.Contains(res.out, `held by host=ci-7\x1b[2J pid=42 since=2026-01-02T03:04:05Z (token feedc0de, lease `) || strings.Contains(res.out, "\x1b") {
		t.Fatalf("stdout: %q", res.out)
	}
	if !strings.Contains(res.errOut, "scriptctl unlock --holder feedc0de") {
		t.Fatalf("stderr: %s", res.errOut)
	}
	// A token that does not hold it: nothing deleted.
	loaderExpect(t, 1, "unlock", "-m", path, "--holder", "feed")
	loaderExpect(t, 1, "unlock", "-m", path, "--holder", "0badc0de")
	assertLock(t, s, lock, true)
	res = loaderExpect(t, 0, "unlock", "-m", path, "--holder", "feedc0de", "--format", "json")
	if !strings.Contains(res.out, `"released": true`) || !strings.Contains(res.out, `"token": "feedc0de"`) || !strings.Contains(res.out, `"holder": "host=ci-7\u001b[2J pid=42`) {
		t.Fatalf("json: %s", res.out)
	}
	assertLock(t, s, lock, false)

	s.MustDo("SET", lock, "c0ffee host=ci-8 pid=43 since=2026-01-02T03:04:05Z")
	res = loaderExpect(t, 0, "unlock", "-m", path, "--force", "--yes")
	if !strings.Contains(res.out, "released; it was held by host=ci-8 pid=43") || !strings.Contains(res.out, "no expiry") {
		t.Fatalf("stdout: %s", res.out)
	}
	assertLock(t, s, lock, false)
}

func assertLock(t *testing.T, s *redistest.Server, key string, want bool) {
	t.Helper()
	msg := s.MustDo("EXISTS", key)
	if n, _ := msg.AsInt64(); (n == 1) != want {
		t.Fatalf("lock %s exists: %v, want %v", key, n == 1, want)
	}
}

func assertNoLock(t *testing.T, s *redistest.Server, key string) {
	t.Helper()
	assertLock(t, s, key, false)
}

// TestLeastPrivilegeACLCluster: in a cluster the ACL of docs/deploy.md deploys to
// every node from one seed, and without +cluster|nodes discovery cannot
// read the members: the deploy is refused, naming the command, and
// nothing is loaded anywhere.
func TestLeastPrivilegeACLCluster(t *testing.T) {
	testtier.Full(t, "a 6-node cluster")
	perms := readmeACL(t)
	c := redistest.NewCluster(t)
	setUser := func(perms []string) {
		for _, n := range c.Nodes() {
			n.MustDo(append([]string{"ACL", "SETUSER", "deployer", "reset", "on", ">deploy-pw"}, perms...)...)
		}
	}
	t.Setenv("SCRIPTCTL_URL", "redis://deployer@"+c.Primaries[0].Addr)
	t.Setenv("SCRIPTCTL_PASSWORD", "deploy-pw")
	t.Setenv("REDISCLI_AUTH", "")
	path := loaderProject(t, "1")
	m := loadFor(t, path)

	setUser(slices.DeleteFunc(slices.Clone(perms), func(p string) bool { return p == "+cluster|nodes" }))
	res := loaderExpect(t, 3, "deploy", "-m", path)
	if !strings.Contains(res.errOut, "cluster|nodes") && !strings.Contains(res.errOut, "'cluster' command") {
		t.Fatalf("stderr does not name cluster|nodes:\n%s", res.errOut)
	}
	for _, n := range c.Nodes() {
		for _, sc := range m.Scripts {
			if scriptExists(t, n, sc.SHA) {
				t.Errorf("%s: script %s loaded by a refused deploy", n.Addr, sc.Name)
			}
		}
	}

	setUser(perms)
	loaderExpect(t, 0, "deploy", "-m", path)
	for _, n := range c.Nodes() {
		for _, sc := range m.Scripts {
			if !scriptExists(t, n, sc.SHA) {
				t.Errorf("%s: script %s not loaded", n.Addr, sc.Name)
			}
		}
	}
	loaderExpect(t, 0, "status", "-m", path)
}
