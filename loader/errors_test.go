package loader

import (
	"errors"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err   string
		class string
		hint  string
	}{
		{"WRONGPASS invalid username-password pair or user is disabled.", ClassAuth, "SCRIPTCTL_PASSWORD"},
		{"NOAUTH Authentication required.", ClassAuth, "--password-file"},
		{"received unknown message type: 72", ClassNotRedis, "Redis protocol"},
		{"dial tcp 127.0.0.1:1: connect: connection refused", ClassUnreachable, ""},
	} {
		err := classify(errors.New(tc.err))
		if got := Class(err); got != tc.class {
			t.Errorf("%q: class %q, want %q", tc.err, got, tc.class)
		}
		if !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), tc.hint) {
			t.Errorf("%q: message %q lacks the error or hint %q", tc.err, err, tc.hint)
		}
	}
	if Class(errors.New("x")) != ClassUnreachable {
		t.Error("an unclassified error is unreachable")
	}
}
