package verify

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// replyCase is a script and its reply as Reply.String prints it, an error
// cut before " script: <sha>"; the replies are redis-server 7.0.15's.
type replyCase struct {
	name, src, want string
}

func runReplyCases(t *testing.T, cases []replyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := mustEval(t, New(Options{}), tc.src, nil, nil)
			got := r.String()
			if r.IsError() {
				got, _, _ = strings.Cut(got, " script: ")
			}
			if got != tc.want {
				t.Errorf("%s\ngot  %s\nwant %s", tc.src, got, tc.want)
			}
		})
	}
}

func TestNumericFor(t *testing.T) {
	runReplyCases(t, []replyCase{
		{"initial value", "for i = 'a', 2 do end", "-ERR user_script:1: 'for' initial value must be a number"},
		{"limit", "for i = 1, 'b' do end", "-ERR user_script:1: 'for' limit must be a number"},
		{"step", "for i = 1, 2, {} do end", "-ERR user_script:1: 'for' step must be a number"},
		{"all nil", "for i = nil, nil, nil do end", "-ERR user_script:1: 'for' initial value must be a number"},
		{"limit before step", "for i = 1, nil, 'x' do end", "-ERR user_script:1: 'for' limit must be a number"},
		{"values first", "for i = 'a', error('first') do end", "-ERR user_script:1: first"},
		{"line of do", "local function f()\n  for i = 1,\n    {}\n  do end\nend\nf()", "-ERR user_script:4: 'for' limit must be a number"},
		{"line of do, step", "for i = 1, 2,\n'z' do end", "-ERR user_script:2: 'for' step must be a number"},
		{"two loops on a line", "for i = 1, 2 do end for j = 1,\n{} do end", "-ERR user_script:2: 'for' limit must be a number"},
		{"in pcall", "return {pcall(function() for i = 1, 2, false do end end)}", `[(nil), "user_script:1: 'for' step must be a number"]`},
		{"strings", "local s = 0 for i = '1', '3' do s = s + i end return s", "6"},
		{"hex and spaces", "local t = {} for i = ' 0x10 ', 18, '1' do t[#t+1] = i end return t", "[16, 17, 18]"},
		{"string step", "local t = {} for i = 3, 1, '-1' do t[#t+1] = i end return t", "[3, 2, 1]"},
		{"nested", "local n = 0 for i = 1, 2 do for j = i, '3' do n = n + j end end return n", "11"},
		{"fractions", "local t = {} for i = 1.5, '3' do t[#t+1] = tostring(i) end return t", `["1.5", "2.5"]`},
		{"loadstring", `return {loadstring('local n = 0 for i = \'1\', 2 do n = n + i end return n')(), pcall(loadstring('for i = 1, {} do end'))}`, `[3, (nil), "[string \"for i = 1, {} do end\"]:1: 'for' limit must be a number"]`},
		{"coroutine", "local co = coroutine.create(function() for i = 1, 'x' do end end) return {coroutine.resume(co)}", `[(nil), "user_script:1: 'for' limit must be a number"]`},
		{"literals", "local n = 0 for i = 10, -10, -2.5 do n = n + 1 end return n", "9"},
		{"variables", "local a, b = 1, #KEYS + 3 local n = 0 for i = a, b do n = n + i end return n", "6"},
	})
}

// Engines asking for the same chunk at once (the pre-flight's one engine
// per target) share one compile: every caller gets the same result.
func TestCompileCachedOnceForConcurrentCallers(t *testing.T) {
	src := []byte(fmt.Sprintf("return %d -- %s\n", time.Now().UnixNano(), t.Name()))
	const n = 8
	before := compiles.Load()
	got := make([]*compiled, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = compileCached(src, "@user_script")
		}()
	}
	wg.Wait()
	if k := compiles.Load() - before; k != 1 {
		t.Errorf("%d callers compiled the chunk %d times, want once", n, k)
	}
	for i, c := range got {
		if c != got[0] {
			t.Fatalf("caller %d got another compile", i)
		}
		if c.proto == nil || c.err != nil {
			t.Fatalf("caller %d: proto %v, err %v", i, c.proto, c.err)
		}
	}
}

// TestCompileBigChunkBothCompilers: a chunk of bigSource bytes or more is
// compiled by gopher-lua and Lua 5.1's compiler at once; the run gets
// gopher-lua's prototype when both accept it and Lua 5.1's error when it
// refuses it past a limit (61 upvalues), whatever gopher-lua makes of it.
func TestCompileBigChunkBothCompilers(t *testing.T) {
	var body strings.Builder
	body.WriteString("local x = 0\n")
	for body.Len() < bigSource {
		body.WriteString("x = x + 1\n")
	}
	lines := strings.Count(body.String(), "\n")
	ok := fmt.Sprintf("%sreturn x -- %s\n", body.String(), t.Name())
	c := compileCached([]byte(ok), "@user_script")
	if c.err != nil || c.proto == nil {
		t.Fatalf("big chunk: %v", c.err)
	}
	r := mustEval(t, New(Options{}), ok, nil, nil)
	if want := IntReply(int64(lines - 1)); !r.Equal(want) {
		t.Errorf("big chunk: got %s, want %s", r, want)
	}
	var ups, sum []string
	for i := range 61 {
		ups = append(ups, fmt.Sprintf("local u%d = %d", i, i))
		sum = append(sum, fmt.Sprintf("u%d", i))
	}
	bad := body.String() + strings.Join(ups, " ") + "\nreturn function() return " + strings.Join(sum, " + ") + " end\n"
	c = compileCached([]byte(bad), "@user_script")
	want := fmt.Sprintf("user_script:%d: function at line %d has more than 60 upvalues", lines+2, lines+2)
	if c.err == nil || c.err.Error() != want {
		t.Errorf("big chunk past a limit: %v, want %q", c.err, want)
	}
	if _, exact := c.err.(*syntaxError); !exact {
		t.Errorf("Lua 5.1's error is not marked exact: %T", c.err)
	}
}
