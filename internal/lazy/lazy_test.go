package lazy

import "testing"

func TestRegexpCompilesOnce(t *testing.T) {
	re := Regexp(`^a+$`)
	first := re.Get()
	if !first.MatchString("aaa") || first.MatchString("ab") {
		t.Fatal("the expression does not match as compiled")
	}
	if re.Get() != first {
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
	re.Get()
}

var built int

var counted = Value[map[string]int]{New: func() map[string]int {
	built++
	return map[string]int{"a": built}
}}

func TestValueBuildsOnce(t *testing.T) {
	first := counted.Get()
	if first["a"] != 1 || built != 1 {
		t.Fatalf("first Get: %v, built %d times, want a=1 built once", first, built)
	}
	if again := counted.Get(); again["a"] != 1 || built != 1 {
		t.Errorf("second Get: %v, built %d times, want the first value and no second build", again, built)
	}
}

var runs int

var once = Once{F: func() { runs++ }}

func TestOnceRunsOnce(t *testing.T) {
	once.Do()
	once.Do()
	if runs != 1 {
		t.Errorf("F ran %d times, want 1", runs)
	}
}
