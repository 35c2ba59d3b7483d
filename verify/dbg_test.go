package verify

import (
	"context"
	"fmt"
	"testing"
)

func TestDbgLocals(t *testing.T) {
	e := New(Options{})
	r, err := e.Eval(context.Background(), []byte("local t = {} return -t"), nil, nil)
	fmt.Println(r, err, e.Warnings())
}
