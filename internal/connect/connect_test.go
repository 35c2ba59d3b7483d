package connect

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name     string
		urls     []string
		envURL   bool
		seeds    string
		user     string
		password string
		err      string
	}{
		{name: "default port", urls: []string{"redis://10.0.0.1"}, seeds: "10.0.0.1:6379"},
		{name: "several, deduplicated", urls: []string{"redis://a:7000", "redis://b:7001", "redis://a:7000"}, seeds: "a:7000 b:7001"},
		{name: "user", urls: []string{"redis://deployer@a:1"}, seeds: "a:1", user: "deployer"},
		{name: "ipv6", urls: []string{"redis://[::1]:7000"}, seeds: "[::1]:7000"},
		{name: "db 0 is fine", urls: []string{"redis://a:1/0"}, seeds: "a:1"},
		{name: "uppercase scheme", urls: []string{"REDIS://a:1"}, seeds: "a:1"},
		{name: "password in a flag", urls: []string{"redis://u:s3cret@a:1"}, err: "a password in a URL shows in ps"},
		{name: "password in the environment", urls: []string{"redis://u:s3cret@a:1"}, envURL: true, seeds: "a:1", user: "u", password: "s3cret"},
		{name: "none", err: "no server given"},
		{name: "scheme", urls: []string{"http://a:1"}, err: `"http://a:1": unsupported scheme`},
		{name: "no scheme", urls: []string{"a:1"}, err: "is not a URL"},
		{name: "no host", urls: []string{"redis://:1"}, err: "has no host"},
		{name: "port", urls: []string{"redis://a:0"}, err: `"redis://a:0": invalid port`},
		{name: "empty port is not the default", urls: []string{"redis://127.0.0.1:"}, err: "empty port after the host"},
		{name: "database", urls: []string{"redis://a:1/2"}, err: "has a database path"},
		{name: "query", urls: []string{"redis://a:1?protocol=3"}, err: "query parameters are not supported"},
		{name: "users differ", urls: []string{"redis://x@a:1", "redis://y@b:1"}, err: `user "y" differs`},
		{name: "tls mix", urls: []string{"redis://a:1", "rediss://b:1"}, err: "mixing redis:// and rediss://"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Resolve(Settings{URLs: tc.urls}, tc.envURL)
			if tc.err != "" {
				var ie *InputError
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &ie) {
					t.Fatalf("err = %v, want an InputError containing %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Fatalf("the password shows in %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(c.Seeds, " "); got != tc.seeds {
				t.Errorf("seeds %q, want %q", got, tc.seeds)
			}
			opt := c.Option(c.Seeds[0])
			if opt.Username != tc.user || opt.Password != tc.password {
				t.Errorf("user %q password %q, want %q %q", opt.Username, opt.Password, tc.user, tc.password)
			}
			if !opt.ForceSingleClient || !opt.DisableCache || !opt.DisableRetry || c.Timeout != DefaultTimeout {
				t.Errorf("options %+v", opt)
			}
		})
	}
}

func TestPasswordPrecedence(t *testing.T) {
	// An explicit password wins over one in an environment URL.
	c, err := Resolve(Settings{URLs: []string{"redis://:fromurl@a:1"}, Password: "fromfile"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Option("a:1").Password; got != "fromfile" {
		t.Fatalf("password %q, want fromfile", got)
	}
}

func TestRedactAndScrub(t *testing.T) {
	for in, want := range map[string]string{
		"redis://u:pw@h:1":    "redis://u:xxxxx@h:1",
		"redis://:pw@h:1":     "redis://:xxxxx@h:1",
		"redis://u@h:1":       "redis://u@h:1",
		"redis://h:1":         "redis://h:1",
		"no url at all":       "no url at all",
		"redis://u:p@w@h:1/x": "redis://u:xxxxx@h:1/x",
		// Malformed: whatever stands between a scheme-like prefix and the
		// last @ is a secret.
		"redis//u:NoSchemeSecret@127.0.0.1:7720":       "redis//xxxxx@127.0.0.1:7720",
		"redis:/u:NoSchemeSecret@127.0.0.1:7720":       "redis:/xxxxx@127.0.0.1:7720",
		"redis:u:NoSchemeSecret@127.0.0.1:7720":        "redis:xxxxx@127.0.0.1:7720",
		"redis://u:12345/EnvTailSecret@127.0.0.1:7720": "redis://u:xxxxx@127.0.0.1:7720",
		"u:bare@h":             "u:xxxxx@h",
		"redis://u/x:Secret@h": "redis://xxxxx@h",
		// A query or a fragment is hidden whole: "?password=" is a password.
		"redis://h:1/?password=QuerySecret":    "redis://h:1/?xxxxx",
		"redis://h:1?password=QuerySecret&x=1": "redis://h:1?xxxxx",
		"redis://u:pw@h:1/#FragSecret":         "redis://u:xxxxx@h:1/#xxxxx",
		"redis://h:1/?password=Query@Secret":   "redis://xxxxx",
		"redis://u:Pass?Secret@h:1":            "redis://xxxxx",
		"redis://u:Pass#Secret@h:1":            "redis://xxxxx",
		"redis://u:Pass%40Secret@h:1":          "redis://u:xxxxx@h:1",
		"redis://u:pa,ss Secret\t\x00\xff@h:1": "redis://u:xxxxx@h:1",
		"redis://%75ser:PctSecret@h:1":         "redis://xxxxx@h:1",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	c, _ := Resolve(Settings{URLs: []string{"redis://h:1"}, Password: "topsecret"}, false)
	base := errors.New("auth topsecret failed")
	err := c.Scrub(base)
	if err.Error() != "auth xxxxx failed" || !errors.Is(err, base) {
		t.Fatalf("Scrub = %q (Is %v)", err, errors.Is(err, base))
	}
	if got := c.ScrubString("a topsecret b"); got != "a xxxxx b" {
		t.Fatalf("ScrubString = %q", got)
	}
}

func TestReadPasswordFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if pw, err := ReadPasswordFile(write("a", "s3cret\r\nignored\n")); err != nil || pw != "s3cret" {
		t.Fatalf("got %q, %v", pw, err)
	}
	if _, err := ReadPasswordFile(write("b", "\nx")); err == nil || !strings.Contains(err.Error(), "the first line is empty") {
		t.Fatalf("empty first line: %v", err)
	}
	if _, err := ReadPasswordFile(filepath.Join(dir, "none")); err == nil || !strings.HasSuffix(err.Error(), "none: no such file or directory") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestSplitURLs(t *testing.T) {
	for in, want := range map[string]string{
		" redis://a:1, redis://b:2\tredis://c:3,,": "redis://a:1|redis://b:2|redis://c:3",
		// A separator not followed by a URL belongs to the URL before it:
		// a comma or a space in a password.
		"redis://deployer:pa,ss@h:1":           "redis://deployer:pa,ss@h:1",
		"redis://u:p,q@h:1,rediss://u:p,q@h:2": "redis://u:p,q@h:1|rediss://u:p,q@h:2",
		"redis://u:a b,,c@h:1 ,\n REDIS://h:2": "redis://u:a b,,c@h:1|REDIS://h:2",
		"h:1,redis://h:2":                      "h:1|redis://h:2",
		"redis://h:1,h:2":                      "redis://h:1,h:2",
		"":                                     "",
		" , ":                                  "",
	} {
		if got := strings.Join(SplitURLs(in), "|"); got != want {
			t.Errorf("SplitURLs(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestResolveCommaPassword: a password with a comma, in SCRIPTCTL_URL's
// list, is the whole password.
func TestResolveCommaPassword(t *testing.T) {
	c, err := Resolve(Settings{URLs: SplitURLs("redis://deployer:pa,ss@h:1,redis://deployer:pa,ss@h:2")}, true)
	if err != nil {
		t.Fatal(err)
	}
	if c.password != "pa,ss" || c.Username != "deployer" || strings.Join(c.Seeds, "|") != "h:1|h:2" {
		t.Fatalf("password %q, user %q, seeds %q", c.password, c.Username, c.Seeds)
	}
}

// TestQueryErrorRedacted: the error for a query names no parameter value.
func TestQueryErrorRedacted(t *testing.T) {
	_, err := Resolve(Settings{URLs: []string{"redis://h:1/?password=QuerySecret"}}, true)
	if want := `--url #1: "redis://h:1/?xxxxx": query parameters are not supported: use the --tls-* and --timeout flags`; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

func TestDialUnreachableAndCancelled(t *testing.T) {
	c, _ := Resolve(Settings{URLs: []string{"redis://127.0.0.1:1"}, Timeout: time.Second}, false)
	if _, err := c.Dial(context.Background(), "127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("dial a closed port: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Dial(ctx, "127.0.0.1:1"); err == nil {
		t.Fatal("dial with a cancelled context succeeded")
	}
}

// TestDialCancelledInHandshake: a node that accepts and never answers the
// HELLO holds Dial in its handshake; when the caller's context ends, Dial
// returns its error and the connection is closed at once (the node reads
// EOF), not when the --timeout of an hour ends it.
func TestDialCancelledInHandshake(t *testing.T) {
	addr, got, closed := redistest.Silent(t)
	cfg, err := Resolve(Settings{URLs: []string{"redis://" + addr}, Timeout: time.Hour}, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() {
		c, err := cfg.Dial(ctx, addr)
		if c != nil {
			c.Close()
		}
		res <- err
	}()
	if cmd := <-got; cmd != "HELLO 2" {
		t.Fatalf("first command %q, want HELLO 2", cmd)
	}
	cancel()
	if err := <-res; !errors.Is(err, context.Canceled) {
		t.Fatalf("Dial cancelled in its handshake: %v, want context.Canceled", err)
	}
	// The bound only turns a connection left open into a failure, not a
	// hang: a close takes microseconds.
	select {
	case err := <-closed:
		if !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "reset") {
			t.Fatalf("the node's connection after the cancel: %v, want EOF", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the connection in its handshake is still open a minute after the cancel")
	}
}

// TestTLS dials a TLS-only port of a real redis-server with a CA, a client
// certificate, and the checks that must refuse.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := writeCA(t, dir)
	writeLeaf(t, dir, "server", ca, caKey)
	writeLeaf(t, dir, "client", ca, caKey)
	port := freePort(t)
	s := redistest.Standalone(t, redistest.WithArgs(
		"--tls-port", strconv.Itoa(port),
		"--tls-cert-file", filepath.Join(dir, "server.pem"),
		"--tls-key-file", filepath.Join(dir, "server-key.pem"),
		"--tls-ca-cert-file", filepath.Join(dir, "ca.pem"),
		"--tls-auth-clients", "yes"))
	_ = s
	addr := "127.0.0.1:" + strconv.Itoa(port)
	settings := Settings{URLs: []string{"rediss://" + addr}, TLSCA: filepath.Join(dir, "ca.pem"),
		TLSCert: filepath.Join(dir, "client.pem"), TLSKey: filepath.Join(dir, "client-key.pem"), Timeout: time.Minute}
	// A minute: on a loaded machine a TLS handshake can take seconds, and a
	// dial the certificate check refuses fails at once whatever the bound.
	c, err := Resolve(settings, false)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := c.Dial(context.Background(), addr)
	if err != nil {
		t.Fatalf("TLS dial: %v", err)
	}
	got, err := cl.Do(context.Background(), cl.B().Ping().Build()).ToString()
	cl.Close()
	if err != nil || got != "PONG" {
		t.Fatalf("PING over TLS = %q, %v", got, err)
	}

	// Without the CA the server certificate is not trusted.
	noCA := settings
	noCA.TLSCA = ""
	c, _ = Resolve(noCA, false)
	if _, err := c.Dial(context.Background(), addr); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("dial without the CA: %v, want a certificate error", err)
	}
	// --tls-insecure skips the check (the client certificate still counts).
	insecure := noCA
	insecure.TLSInsecure = true
	c, _ = Resolve(insecure, false)
	cl, err = c.Dial(context.Background(), addr)
	if err != nil {
		t.Fatalf("dial with --tls-insecure: %v", err)
	}
	cl.Close()
	// A wrong server name is refused.
	wrongName := settings
	wrongName.TLSServer = "redis.example"
	c, _ = Resolve(wrongName, false)
	if _, err := c.Dial(context.Background(), addr); err == nil {
		t.Fatal("dial with a wrong --tls-server-name succeeded")
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func writeCA(t *testing.T, dir string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "scriptctl test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", der)
	cert, _ := x509.ParseCertificate(der)
	return cert, key
}

func writeLeaf(t *testing.T, dir, name string, ca *x509.Certificate, caKey *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, name+".pem"), "CERTIFICATE", der)
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, name+"-key.pem"), "EC PRIVATE KEY", kder)
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"redis://127.0.0.1:6379", "rediss://u:pw@h:1/0", "redis://[::1]:7000", "redis://h", "http://x",
		"redis://u:p@w@h:1", "redis://h:99999", "redis://h:1?x=1", "redis://%zz", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := parseURL(raw)
		if err != nil {
			// An error never repeats a password.
			if _, rest, ok := strings.Cut(raw, "://"); ok {
				if at := strings.LastIndex(rest, "@"); at > 0 {
					if _, pw, ok := strings.Cut(rest[:at], ":"); ok && len(pw) >= 4 && strings.Contains(err.Error(), pw) && !strings.Contains(Redact(raw), pw) {
						t.Fatalf("error %q repeats the password of %q", err, raw)
					}
				}
			}
			return
		}
		host, port, err := net.SplitHostPort(p.addr)
		if err != nil || host == "" {
			t.Fatalf("parseURL(%q) gave address %q", raw, p.addr)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			t.Fatalf("parseURL(%q) gave port %q", raw, port)
		}
	})
}

// A client from Dial says HELLO and nothing else before the caller's
// first command: no CLIENT SETINFO, which a least-privilege user may not
// run (docs/deploy.md, "Least privilege"; each refusal is an ACL log
// entry on servers that know the command).
func TestDialSendsOnlyHello(t *testing.T) {
	var mu sync.Mutex
	var got []string
	addr := redistest.Fake(t, func(conn net.Conn) {
		defer conn.Close()
		r := bufio.NewReader(conn)
		for {
			args, err := redistest.ReadCommand(r)
			if err != nil {
				return
			}
			mu.Lock()
			got = append(got, strings.ToUpper(strings.Join(args, " ")))
			mu.Unlock()
			if _, err := io.WriteString(conn, "+OK\r\n"); err != nil {
				return
			}
		}
	})
	cfg, err := Resolve(Settings{URLs: []string{"redis://" + addr}, Timeout: 5 * time.Second}, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := cfg.Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Do(ctx, c.B().Ping().Build()).Error(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"HELLO 2", "PING"}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("a dial and one PING sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A client from Dial holds one connection to its node, whatever the
// commands' keys: rueidis would dial another for a keyed command.
func TestDialOneConnection(t *testing.T) {
	s := redistest.Standalone(t)
	cfg, err := Resolve(Settings{URLs: []string{s.URL()}, Timeout: 5 * time.Second}, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := cfg.Dial(ctx, s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// rueidis picks a connection at random for each keyed command: 40 of
	// them would all land on one of two connections once in 2^39 runs.
	for i := range 40 {
		if err := c.Do(ctx, c.B().Set().Key(fmt.Sprint("k", i)).Value("v").Build()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	list, err := c.Do(ctx, c.B().ClientList().Build()).ToString()
	if err != nil {
		t.Fatal(err)
	}
	// Our connections are the ones whose last command was one of ours;
	// the test helper's own connection ran neither.
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
		if strings.Contains(l, " cmd=set ") || strings.Contains(l, " cmd=client|list ") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("Dial and keyed commands used %d connections, want 1:\n%s", n, list)
	}
}
