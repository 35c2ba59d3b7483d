package rediscli

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/verify"
)

var (
	I = verify.IntReply
	B = verify.BulkReply
	S = verify.StatusReply
	E = verify.ErrorReply
	A = verify.ArrayReply
	N = verify.NilReply
)

func ints(n int) []verify.Reply {
	out := make([]verify.Reply, n)
	for i := range out {
		out[i] = I(int64(i + 1))
	}
	return out
}

// cases pairs a script with the reply it produces on Redis 7 and the text
// redis-cli --no-raw prints for it.
var cases = []struct {
	script string
	reply  verify.Reply
	want   string
}{
	{"return 1", I(1), "(integer) 1\n"},
	{"return -42", I(-42), "(integer) -42\n"},
	{"return 'x'", B("x"), "\"x\"\n"},
	{"return ''", B(""), "\"\"\n"},
	{"return 'a\\nb'", B("a\nb"), "\"a\\nb\"\n"},
	{"return '\\0\\255'", B("\x00\xff"), "\"\\x00\\xff\"\n"},
	{"return 'q\"\\\\ \\r\\t\\a\\b\\f\\v\\127~'", B("q\"\\ \r\t\a\b\f\v\x7f~"), "\"q\\\"\\\\ \\r\\t\\a\\b\\x0c\\x0b\\x7f~\"\n"},
	{"return 'caf\\195\\169'", B("caf\xc3\xa9"), "\"caf\\xc3\\xa9\"\n"},
	{"return false", N(), "(nil)\n"},
	{"return {ok='OK'}", S("OK"), "OK\n"},
	{"return {ok=''}", S(""), "\n"},
	{"return {err='boom'}", E("boom"), "(error) boom\n"},
	{"return {ok='a\\0b'}", S("a\x00b"), "a\n"},
	{"return {err='E\\0b'}", E("E\x00b"), "(error) E\n"},
	{"return {ok='\\255x'}", S("\xffx"), "\xffx\n"},
	{"return {err='ERR x\\ny'}", E("ERR x y"), "(error) ERR x y\n"},
	{"return {}", A(), "(empty array)\n"},
	{"return {1,'a',false}", A(I(1), B("a"), N()), "1) (integer) 1\n2) \"a\"\n3) (nil)\n"},
	{"return {{}}", A(A()), "1) (empty array)\n"},
	{"return {1,{2,{3,'a'}},'x'}", A(I(1), A(I(2), A(I(3), B("a"))), B("x")),
		"1) (integer) 1\n2) 1) (integer) 2\n   2) 1) (integer) 3\n      2) \"a\"\n3) \"x\"\n"},
	{"return {{ok='OK'},{err='no'}}", A(S("OK"), E("no")), "1) OK\n2) (error) no\n"},
	{"local t={} for i=1,10 do t[i]=i end return t", A(ints(10)...),
		" 1) (integer) 1\n 2) (integer) 2\n 3) (integer) 3\n 4) (integer) 4\n 5) (integer) 5\n 6) (integer) 6\n 7) (integer) 7\n 8) (integer) 8\n 9) (integer) 9\n10) (integer) 10\n"},
	{"local t={} for i=1,10 do t[i]=i end t[11]={1,2} t[12]={} return t", A(append(ints(10), A(I(1), I(2)), A())...), ""},
	{"local t={} for i=1,9 do t[i]=i end t[10]={1,2,3,4,5,6,7,8,9,10,11} return {t}", A(A(append(ints(9), A(ints(11)...))...)), ""},
	{"local t={} for i=1,100 do t[i]=i end return {1,t}", A(I(1), A(ints(100)...)), ""},
}

func TestFormat(t *testing.T) {
	for _, c := range cases {
		if c.want == "" {
			continue
		}
		if got := Format(c.reply); got != c.want {
			t.Errorf("Format(%s)\n got: %q\nwant: %q", c.reply, got, c.want)
		}
	}
}

func TestFormatWideIndexes(t *testing.T) {
	got := Format(A(append(ints(10), A(I(1), I(2)))...))
	if !strings.HasSuffix(got, " 9) (integer) 9\n10) (integer) 10\n11) 1) (integer) 1\n    2) (integer) 2\n") {
		t.Errorf("wide index layout:\n%s", got)
	}
}

func TestQuote(t *testing.T) {
	if got, want := Quote("\x00a\"\\\n"), `"\x00a\"\\\n"`; got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
}

// TestLiveRedisCLI runs every case through the real redis-cli and requires
// Format to print exactly its bytes.
func TestLiveRedisCLI(t *testing.T) {
	srv := redistest.Standalone(t)
	cli := redistest.CLI(t)
	for _, c := range cases {
		out, err := exec.Command(cli, "--no-raw", "-p", strconv.Itoa(srv.Port), "EVAL", c.script, "0").Output()
		if err != nil {
			t.Fatalf("redis-cli: %v", err)
		}
		if got := Format(c.reply); got != string(out) {
			t.Errorf("script %q\n redis-cli: %q\n Format:    %q", c.script, out, got)
		}
	}
}
