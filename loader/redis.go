package loader

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"
)

// conn is the dumb per-node Redis adapter: one command, one node, no
// retries, no fan-out. Every call is bounded by the node timeout.
type conn struct {
	c       rueidis.Client
	timeout time.Duration
}

func (n *conn) do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	ctx, cancel := context.WithTimeout(ctx, n.timeout)
	defer cancel()
	return n.c.Do(ctx, cmd)
}

func (n *conn) arbitrary(args ...string) rueidis.Completed {
	return n.c.B().Arbitrary(args[0]).Args(args[1:]...).Build()
}

// ScriptExists reports, for each SHA, whether the node's cache holds it.
func (n *conn) ScriptExists(ctx context.Context, shas []string) ([]bool, error) {
	if len(shas) == 0 {
		return nil, nil
	}
	return parseScriptExists(n.do(ctx, n.scriptExists(shas)), len(shas))
}

// scriptExists builds SCRIPT EXISTS sha...
func (n *conn) scriptExists(shas []string) rueidis.Completed {
	return n.c.B().ScriptExists().Sha1(shas...).Build()
}

// parseScriptExists reads the reply of SCRIPT EXISTS for n SHAs.
func parseScriptExists(res rueidis.RedisResult, n int) ([]bool, error) {
	msg, err := res.ToArray()
	if err != nil {
		return nil, err
	}
	if len(msg) != n {
		return nil, fmt.Errorf("SCRIPT EXISTS: %d replies for %d SHAs", len(msg), n)
	}
	out := make([]bool, len(msg))
	for i, m := range msg {
		v, err := m.AsInt64()
		if err != nil {
			return nil, fmt.Errorf("SCRIPT EXISTS: %w", err)
		}
		out[i] = v == 1
	}
	return out, nil
}

// functionLoad builds FUNCTION LOAD [REPLACE] code: loads a Functions
// library and answers the name the node reports.
func (n *conn) functionLoad(code []byte, replace bool) rueidis.Completed {
	if replace {
		return n.c.B().FunctionLoad().Replace().FunctionCode(string(code)).Build()
	}
	return n.c.B().FunctionLoad().FunctionCode(string(code)).Build()
}

// Library is one entry of FUNCTION LIST.
type Library struct {
	Name      string
	Functions []string
	Code      []byte // only with WITHCODE
}

// FunctionList lists the libraries whose name matches pattern (a Redis
// glob; "" lists all), with their code when withCode is set.
func (n *conn) FunctionList(ctx context.Context, pattern string, withCode bool) ([]Library, error) {
	return parseFunctionList(n.do(ctx, n.functionList(pattern, withCode)))
}

// functionList builds FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE].
func (n *conn) functionList(pattern string, withCode bool) rueidis.Completed {
	args := []string{"FUNCTION", "LIST"}
	if pattern != "" {
		args = append(args, "LIBRARYNAME", pattern)
	}
	if withCode {
		args = append(args, "WITHCODE")
	}
	return n.arbitrary(args...)
}

// parseFunctionList reads the reply of FUNCTION LIST.
func parseFunctionList(res rueidis.RedisResult) ([]Library, error) {
	libs, err := res.ToArray()
	if err != nil {
		return nil, err
	}
	out := make([]Library, 0, len(libs))
	for _, l := range libs {
		fields, err := l.AsMap()
		if err != nil {
			return nil, fmt.Errorf("FUNCTION LIST: %w", err)
		}
		var lib Library
		if v, ok := fields["library_name"]; ok {
			lib.Name, _ = v.ToString()
		}
		if v, ok := fields["library_code"]; ok {
			code, _ := v.ToString()
			lib.Code = []byte(code)
		}
		if v, ok := fields["functions"]; ok {
			fns, _ := v.ToArray()
			for _, f := range fns {
				if ff, err := f.AsMap(); err == nil {
					v := ff["name"]
					name, _ := v.ToString()
					lib.Functions = append(lib.Functions, name)
				}
			}
		}
		out = append(out, lib)
	}
	return out, nil
}

// FunctionDelete deletes the library name.
func (n *conn) FunctionDelete(ctx context.Context, name string) error {
	return n.do(ctx, n.c.B().FunctionDelete().LibraryName(name).Build()).Error()
}

// roleReply is what ROLE says about a node.
type roleReply struct {
	Role     string   // "master", "slave" or "sentinel"
	Primary  string   // a replica's primary, host:port
	Replicas []string // a primary's replicas, host:port
}

// parseRole reads the reply of ROLE.
func parseRole(res rueidis.RedisResult) (roleReply, error) {
	var r roleReply
	vals, err := res.ToArray()
	if err != nil {
		return r, err
	}
	if len(vals) == 0 {
		return r, fmt.Errorf("ROLE: empty reply")
	}
	r.Role, _ = vals[0].ToString()
	switch r.Role {
	case "master":
		if len(vals) >= 3 {
			reps, _ := vals[2].ToArray()
			for _, rep := range reps {
				f, err := rep.ToArray()
				if err != nil || len(f) < 2 {
					continue
				}
				host, _ := f[0].ToString()
				port, _ := f[1].ToString()
				if host != "" && port != "" {
					r.Replicas = append(r.Replicas, joinHostPort(host, port))
				}
			}
		}
	case "slave":
		if len(vals) >= 3 {
			host, _ := vals[1].ToString()
			port, err := vals[2].AsInt64()
			if err == nil && host != "" {
				r.Primary = joinHostPort(host, strconv.FormatInt(port, 10))
			}
		}
	}
	return r, nil
}

// replicationInfo is what INFO replication says about a node.
type replicationInfo struct {
	ReplID   string   // master_replid: shared by a primary and its synced replicas
	Replicas []string // slaveN lines, host:port, whatever their state
}

// parseReplication reads the reply of INFO replication. It lists every
// replica, whatever its state: ROLE lists only the online ones, and a
// replica in a full sync still has a script cache to load.
func parseReplication(res rueidis.RedisResult) (replicationInfo, error) {
	var r replicationInfo
	s, err := res.ToString()
	if err != nil {
		return r, err
	}
	fields := parseInfo(s)
	r.ReplID = fields["master_replid"]
	for i := 0; ; i++ {
		v, ok := fields["slave"+strconv.Itoa(i)]
		if !ok {
			break
		}
		var host, port string
		for _, f := range strings.Split(v, ",") {
			key, val, _ := strings.Cut(f, "=")
			switch key {
			case "ip":
				host = val
			case "port":
				port = val
			}
		}
		if host != "" && port != "" && port != "0" {
			r.Replicas = append(r.Replicas, joinHostPort(host, port))
		}
	}
	return r, nil
}

// ClusterNodes returns the text of CLUSTER NODES.
func (n *conn) ClusterNodes(ctx context.Context) (string, error) {
	return n.do(ctx, n.c.B().ClusterNodes().Build()).ToString()
}

// SetNXPX runs SET key value NX PX ttl and reports whether it was set.
func (n *conn) SetNXPX(ctx context.Context, key, value string, ttl time.Duration) (bool, error) {
	err := n.do(ctx, n.c.B().Set().Key(key).Value(value).Nx().PxMilliseconds(ttl.Milliseconds()).Build()).Error()
	if rueidis.IsRedisNil(err) {
		return false, nil
	}
	return err == nil, err
}

// Get runs GET; ok is false when the key does not exist.
func (n *conn) Get(ctx context.Context, key string) (string, bool, error) {
	v, err := n.do(ctx, n.c.B().Get().Key(key).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return "", false, nil
	}
	return v, err == nil, err
}

// PTTL runs PTTL.
func (n *conn) PTTL(ctx context.Context, key string) (time.Duration, error) {
	ms, err := n.do(ctx, n.c.B().Pttl().Key(key).Build()).AsInt64()
	return time.Duration(ms) * time.Millisecond, err
}

// Eval runs a script with EVAL and returns its integer reply.
func (n *conn) Eval(ctx context.Context, src string, keys []string, args ...string) (int64, error) {
	return n.do(ctx, n.c.B().Eval().Script(src).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build()).AsInt64()
}

// Close closes the connection.
func (n *conn) Close() { n.c.Close() }

func parseInfo(s string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = v
		}
	}
	return out
}

func joinHostPort(host, port string) string {
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		return "[" + host + "]:" + port
	}
	return host + ":" + port
}

// doMulti sends cmds in one pipelined round trip, bounded by the node
// timeout, and returns their replies in order.
func (n *conn) doMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	if len(cmds) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, n.timeout)
	defer cancel()
	return n.c.DoMulti(ctx, cmds...)
}
