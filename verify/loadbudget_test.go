package verify

import "testing"

// TestLoadBudgetSpent: a library load stopped by Options.LoadStepLimit
// answers Redis's FUNCTION LOAD timeout and says the budget stopped it; a
// load that fails otherwise, or succeeds, does not.
func TestLoadBudgetSpent(t *testing.T) {
	e := New(Options{LoadStepLimit: 1000})
	r, err := e.FunctionLoad([]byte("#!lua name=spin\nwhile true do end"), false)
	if err != nil || !r.Equal(ErrorReply("ERR Error registering functions: ERR FUNCTION LOAD timeout")) {
		t.Fatalf("got %s %v", r, err)
	}
	if steps, spent := e.LoadBudgetSpent(); !spent || steps != 1000 {
		t.Fatalf("LoadBudgetSpent = %d %t, want 1000 true", steps, spent)
	}
	for _, lib := range []string{
		"#!lua name=bad\nerror('no')",
		"#!lua name=syntax\nlocal = 1",
		"#!lua name=ok\nredis.register_function('f', function() return 1 end)",
	} {
		if _, err := e.FunctionLoad([]byte(lib), false); err != nil {
			t.Fatal(err)
		}
		if _, spent := e.LoadBudgetSpent(); spent {
			t.Errorf("%q: LoadBudgetSpent after a load the budget did not stop", lib)
		}
	}
	// The default stands for Redis's 500 ms.
	if steps, _ := New(Options{}).LoadBudgetSpent(); steps != DefaultLoadStepLimit {
		t.Errorf("default budget %d, want %d", steps, DefaultLoadStepLimit)
	}
}
