package explore

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/contract"
)

// A reply that breaks the script's reply contract is a violation named
// reply-contract, with the path inside the reply, the reply and the
// timeline that reached it; the bundled contracts hold on every reply.
func TestReplyContract(t *testing.T) {
	m := v2Manifest(t)
	path := filepath.Join("..", "lua_test", "models", "invalidation_race.yaml")
	if res := explore(t, loadModel(t, m, path), Options{}); res.Violation != nil {
		t.Fatalf("bundled contracts: %s: %s", res.Violation.Invariant, res.Violation.Message)
	}
	wrong, err := contract.Parse(`["cached", string, string] | ["acquired", gen: integer] | ["busy", integer]`)
	if err != nil {
		t.Fatal(err)
	}
	m.Script("acquire").Reply = wrong
	res := explore(t, loadModel(t, m, path), Options{})
	v := res.Violation
	if v == nil || v.Invariant != ReplyContract {
		t.Fatalf("violation = %+v, want %s", v, ReplyContract)
	}
	if !strings.Contains(v.Message, `breaks its contract: reply[1]: want integer, got "0" (the reply: ["acquired", "0"])`) {
		t.Errorf("message = %q", v.Message)
	}
	if last := v.Timeline[len(v.Timeline)-1]; last.Action != "acquire" || last.Reply != `["acquired", "0"]` {
		t.Errorf("last step = %+v", last)
	}
}
