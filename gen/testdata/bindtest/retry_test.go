package bindtest

import (
	"context"
	"errors"
	"net"
	"testing"

	"example.com/bindtest/catalogrefresh"
)

// script is a Conn that replies from a list, recording the commands.
type scripted struct {
	replies []func() (catalogrefresh.Value, error)
	sent    []catalogrefresh.Command
}

func (s *scripted) Do(ctx context.Context, cmd catalogrefresh.Command) (catalogrefresh.Value, error) {
	s.sent = append(s.sent, cmd)
	if len(s.replies) == 0 {
		return catalogrefresh.Value{Kind: catalogrefresh.KindError, Str: "ERR nothing scripted"}, nil
	}
	f := s.replies[0]
	s.replies = s.replies[1:]
	return f()
}

type timeout struct{}

func (timeout) Error() string   { return "i/o timeout" }
func (timeout) Timeout() bool   { return true }
func (timeout) Temporary() bool { return true }

var _ net.Error = timeout{}

func val(v catalogrefresh.Value) func() (catalogrefresh.Value, error) {
	return func() (catalogrefresh.Value, error) { return v, nil }
}

func fail(err error) func() (catalogrefresh.Value, error) {
	return func() (catalogrefresh.Value, error) { return catalogrefresh.Value{}, err }
}

var one = catalogrefresh.Value{Kind: catalogrefresh.KindInt, Int: 1}

func names(cmds []catalogrefresh.Command) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = c.Name
	}
	return out
}

func TestNoRetryAfterTimeout(t *testing.T) {
	ctx := context.Background()
	// publish is not idempotent: a timeout is returned, never resent.
	s := &scripted{replies: []func() (catalogrefresh.Value, error){fail(timeout{}), val(one)}}
	k := must(catalogrefresh.New(s).ForCatalogSummary("1"))(t)
	_, err := k.Publish(ctx, catalogrefresh.PublishArgs{Token: "t", Candidate: "c", CacheTTLMs: "1", Gen: "0"})
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || len(s.sent) != 1 {
		t.Fatalf("publish after a timeout: %v, sent %v; want the timeout, sent once", err, names(s.sent))
	}
	// renew is idempotent: one more send after a timeout.
	s = &scripted{replies: []func() (catalogrefresh.Value, error){fail(timeout{}), val(one)}}
	r, err := must(catalogrefresh.New(s).ForCatalogSummary("1"))(t).Renew(ctx, catalogrefresh.RenewArgs{Token: "t", LeaseTTLMs: "1"})
	if err != nil || r != catalogrefresh.RenewRenewed || len(s.sent) != 2 {
		t.Fatalf("renew after a timeout: %v, %v, sent %v; want renewed, sent twice", r, err, names(s.sent))
	}
	// ... but only once, and not after other failures.
	s = &scripted{replies: []func() (catalogrefresh.Value, error){fail(timeout{}), fail(timeout{}), val(one)}}
	if _, err := must(catalogrefresh.New(s).ForCatalogSummary("1"))(t).Renew(ctx, catalogrefresh.RenewArgs{Token: "t", LeaseTTLMs: "1"}); err == nil || len(s.sent) != 2 {
		t.Fatalf("renew after two timeouts: %v, sent %d, want the timeout after 2", err, len(s.sent))
	}
	s = &scripted{replies: []func() (catalogrefresh.Value, error){fail(errors.New("connection reset")), val(one)}}
	if _, err := must(catalogrefresh.New(s).ForCatalogSummary("1"))(t).Renew(ctx, catalogrefresh.RenewArgs{Token: "t", LeaseTTLMs: "1"}); err == nil || len(s.sent) != 1 {
		t.Fatalf("renew after a reset: %v, sent %d, want the error after 1", err, len(s.sent))
	}
}

func TestNoscriptOnlyByPrefix(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		reply string
		want  []string
	}{
		{"NOSCRIPT No matching script. Please use EVAL.", []string{"EVALSHA", "EVAL"}},
		{"NOSCRIPT No matching script.", []string{"EVALSHA", "EVAL"}}, // Valkey 8's shorter text
		{"ERR NOSCRIPT-like text", []string{"EVALSHA"}},
		{"NOSCRIPTX", []string{"EVALSHA"}},
	} {
		s := &scripted{replies: []func() (catalogrefresh.Value, error){
			val(catalogrefresh.Value{Kind: catalogrefresh.KindError, Str: tc.reply}),
			val(catalogrefresh.Value{Kind: catalogrefresh.KindError, Str: "NOSCRIPT again"}),
		}}
		_, err := must(catalogrefresh.New(s).ForCatalogSummary("1"))(t).Release(ctx, catalogrefresh.ReleaseArgs{Token: "t"})
		if got := names(s.sent); len(got) != len(tc.want) || got[len(got)-1] != tc.want[len(tc.want)-1] {
			t.Errorf("%q: sent %v, want %v", tc.reply, got, tc.want)
		}
		if err == nil {
			t.Errorf("%q: no error", tc.reply)
		}
		if len(s.sent) == 2 {
			if s.sent[1].Script == s.sent[0].Script || s.sent[0].Script != catalogrefresh.ReleaseSHA1 {
				t.Errorf("EVAL after NOSCRIPT sent %.20q, want the body; EVALSHA sent %q", s.sent[1].Script, s.sent[0].Script)
			}
		}
	}
}

func TestContractError(t *testing.T) {
	s := &scripted{replies: []func() (catalogrefresh.Value, error){val(catalogrefresh.Value{Kind: catalogrefresh.KindArray, Elems: []catalogrefresh.Value{
		{Kind: catalogrefresh.KindBulk, Str: "acquired"}, {Kind: catalogrefresh.KindInt, Int: 3}}})}}
	_, err := must(catalogrefresh.New(s).ForCatalogSummary("1"))(t).Acquire(context.Background(), catalogrefresh.AcquireArgs{Token: "t", LeaseTTLMs: "1"})
	var ce *catalogrefresh.ContractError
	if !errors.As(err, &ce) || ce.Path != "[1]" || ce.Want != "string" {
		t.Fatalf("a reply off contract: %v, want a ContractError at [1]", err)
	}
	if want := `acquire: the reply breaks its contract: reply[1]: want string, got 3 (the reply: ["acquired", 3])`; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}
