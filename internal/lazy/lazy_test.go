package lazy

import "testing"

func TestRegexpCompilesOnce(t *testing.T) {
	re := Regexp(`^a+$`)
	first := re()
	if !first.MatchString("aaa") || first.MatchString("ab") {
		t.Fatal("the expression does not match as compiled")
	}
	if re() != first {
		t.Error("a second call compiled again")
	}
}

func TestRegexpPanicsOnInvalid(t *testing.T) {
	re := Regexp(`(`)
	defer func() {
		if recover() == nil {
			t.Error("an invalid expression did not panic on first use")
		}
	}()
	re()
}
