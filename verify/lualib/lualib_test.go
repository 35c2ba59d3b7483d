package lualib

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// run executes src in a bare gopher-lua state with the libraries opened
// and returns its first result printed the way redis-cli --no-raw prints
// the reply Redis would build from it, or "(error) <message>" with the
// message as Redis's error handler reports it (position included).
func run(t testing.TB, src string) string {
	t.Helper()
	L := lua.NewState()
	defer L.Close()
	Open(L)
	// The engine's tostring prints numbers as Lua 5.1 does, and names
	// cjson.null.
	L.SetGlobal("tostring", L.NewFunction(func(L *lua.LState) int {
		if n, ok := L.Get(1).(lua.LNumber); ok {
			L.Push(lua.LString(FormatNumber(float64(n))))
		} else if IsNull(L.Get(1)) {
			L.Push(lua.LString(NullName))
		} else {
			L.Push(L.ToStringMeta(L.Get(1)))
		}
		return 1
	}))
	fn, err := L.Load(strings.NewReader(src), "user_script")
	if err != nil {
		t.Fatalf("compile %q: %v", src, err)
	}
	L.Push(fn)
	if err := L.PCall(0, 1, nil); err != nil {
		msg := err.Error()
		if ae, ok := err.(*lua.ApiError); ok {
			msg = ae.Object.String()
		}
		return "(error) " + msg + "\n"
	}
	var b strings.Builder
	formatValue(&b, L.Get(-1), "")
	return b.String()
}

// formatValue converts a Lua value to a reply as Redis does and prints it
// as redis-cli does. It covers what the library tests return.
func formatValue(b *strings.Builder, v lua.LValue, prefix string) {
	switch x := v.(type) {
	case lua.LNumber:
		fmt.Fprintf(b, "(integer) %d\n", truncInt64(float64(x)))
	case lua.LString:
		b.WriteString(quote(string(x)) + "\n")
	case lua.LBool:
		if x {
			b.WriteString("(integer) 1\n")
		} else {
			b.WriteString("(nil)\n")
		}
	case *lua.LTable:
		if e, ok := x.RawGetString("err").(lua.LString); ok {
			b.WriteString("(error) " + string(e) + "\n")
			return
		}
		var elems []lua.LValue
		for i := 1; ; i++ {
			e := x.RawGetInt(i)
			if e == lua.LNil {
				break
			}
			elems = append(elems, e)
		}
		if len(elems) == 0 {
			b.WriteString("(empty array)\n")
			return
		}
		w := len(strconv.Itoa(len(elems)))
		for i, e := range elems {
			if i > 0 {
				b.WriteString(prefix)
			}
			fmt.Fprintf(b, "%*d) ", w, i+1)
			formatValue(b, e, prefix+strings.Repeat(" ", w+2))
		}
	default:
		b.WriteString("(nil)\n")
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\a':
			b.WriteString(`\a`)
		case c == '\b':
			b.WriteString(`\b`)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, `\x%02x`, c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var update = flag.Bool("update", false, "rewrite testdata/libcases.golden from a live redis-server")

const goldenFile = "testdata/libcases.golden"

type goldenCase struct {
	Script string `json:"script"`
	Reply  string `json:"reply"` // redis-cli --no-raw output; errors reduced to their message
}

func readGolden(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("read golden file (regenerate with go test -run TestLiveLibraries -update): %v", err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("parse %s: %v", goldenFile, err)
	}
	m := make(map[string]string, len(cases))
	for _, c := range cases {
		m[c.Script] = c.Reply
	}
	return m
}

// TestLibrariesGolden runs every library case offline and compares it with
// the reply a real Redis 7.0.15 gave, recorded in testdata/libcases.golden.
func TestLibrariesGolden(t *testing.T) {
	golden := readGolden(t)
	for _, c := range libCases {
		want, ok := golden[c]
		if !ok {
			t.Errorf("script %q has no recorded reply: run go test -run TestLiveLibraries -update", c)
			continue
		}
		if got := run(t, c); got != want {
			t.Errorf("script %q\n redis:   %q\n offline: %q", c, want, got)
		}
	}
}

var liveErr = regexp.MustCompile(`(?s)^\(error\) ERR (.*) script: [0-9a-f]{40}, on @user_script:\d+\.\n$`)

// TestLiveLibraries runs every library case on a real redis-server and
// offline, and requires the same output. Error replies are compared by
// their message ("user_script:N: text"), since the script SHA suffix is the
// engine's business. With -update it rewrites the golden file.
func TestLiveLibraries(t *testing.T) {
	srv := redistest.Standalone(t)
	cli := redistest.CLI(t)
	var recorded []goldenCase
	for _, c := range libCases {
		// Library configuration (cjson.encode_max_depth...) lives in the
		// server's Lua state until SCRIPT FLUSH recreates it; every
		// offline run starts from a fresh state.
		srv.MustDo("SCRIPT", "FLUSH")
		live, err := exec.Command(cli, "--no-raw", "-p", strconv.Itoa(srv.Port), "EVAL", c, "0").Output()
		if err != nil {
			t.Fatalf("redis-cli: %v", err)
		}
		want := string(live)
		if m := liveErr.FindStringSubmatch(want); m != nil {
			want = "(error) " + m[1] + "\n"
		}
		recorded = append(recorded, goldenCase{Script: c, Reply: want})
		if got := run(t, c); got != want {
			t.Errorf("script %q\n live:    %q\n offline: %q", c, want, got)
		}
	}
	if *update {
		data, err := json.MarshalIndent(recorded, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenFile, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
