package loader

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/redis/rueidis"
)

// The adapter commands of the on-call views (Inspect, Diff, StatusAll), kept
// beside redis.go's: one command on one node, nothing more.

// ErrNoScriptShow is returned for a server without SCRIPT SHOW (every
// Redis so far; Valkey has it since 8.0).
var ErrNoScriptShow = errors.New("the server has no SCRIPT SHOW (Valkey 8.0 and later have it)")

// functionListInfo runs FUNCTION LIST WITHCODE and returns every library
// with its functions, their flags and descriptions, sorted by name.
func (n *conn) functionListInfo(ctx context.Context) ([]LibraryInfo, error) {
	libs, err := n.do(ctx, n.arbitrary("FUNCTION", "LIST", "WITHCODE")).ToArray()
	if err != nil {
		return nil, err
	}
	out := make([]LibraryInfo, 0, len(libs))
	for _, l := range libs {
		fields, err := l.AsMap()
		if err != nil {
			return nil, fmt.Errorf("FUNCTION LIST: %w", err)
		}
		var lib LibraryInfo
		if v, ok := fields["library_name"]; ok {
			lib.Name, _ = v.ToString()
		}
		if v, ok := fields["engine"]; ok {
			lib.Engine, _ = v.ToString()
		}
		if v, ok := fields["library_code"]; ok {
			code, _ := v.ToString()
			lib.Code = []byte(code)
		}
		sum := sha1.Sum(lib.Code)
		lib.CodeSHA = hex.EncodeToString(sum[:])
		if v, ok := fields["functions"]; ok {
			fns, _ := v.ToArray()
			for _, f := range fns {
				ff, err := f.AsMap()
				if err != nil {
					return nil, fmt.Errorf("FUNCTION LIST: library %s: %w", lib.Name, err)
				}
				var fi FunctionInfo
				fi.Name, _ = stringField(ff, "name")
				fi.Description, _ = stringField(ff, "description")
				if v, ok := ff["flags"]; ok {
					fi.Flags, _ = v.AsStrSlice()
				}
				lib.Functions = append(lib.Functions, fi)
			}
			sort.Slice(lib.Functions, func(i, j int) bool { return lib.Functions[i].Name < lib.Functions[j].Name })
		}
		out = append(out, lib)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func stringField(m map[string]rueidis.RedisMessage, key string) (string, bool) {
	v, ok := m[key]
	if !ok {
		return "", false
	}
	s, err := v.ToString()
	return s, err == nil
}

// scriptShow runs SCRIPT SHOW sha: ok is false when the script is not in
// the node's cache; the error is ErrNoScriptShow when the server does not
// know the subcommand.
func (n *conn) scriptShow(ctx context.Context, sha string) (src []byte, ok bool, err error) {
	s, err := n.do(ctx, n.arbitrary("SCRIPT", "SHOW", sha)).ToString()
	if err == nil {
		return []byte(s), true, nil
	}
	if re, isRedis := rueidis.IsRedisErr(err); isRedis {
		msg := re.Error()
		switch {
		case re.IsNoScript():
			return nil, false, nil
		case strings.Contains(strings.ToLower(msg), "unknown subcommand"):
			return nil, false, ErrNoScriptShow
		}
	}
	return nil, false, err
}
