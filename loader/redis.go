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

// ScriptLoad loads body into the node's script cache and returns the SHA
// the node computed.
func (n *conn) ScriptLoad(ctx context.Context, body []byte) (string, error) {
	return n.do(ctx, n.c.B().ScriptLoad().Script(string(body)).Build()).ToString()
}

// ScriptExists reports, for each SHA, whether the node's cache holds it.
func (n *conn) ScriptExists(ctx context.Context, shas []string) ([]bool, error) {
	if len(shas) == 0 {
		return nil, nil
	}
	msg, err := n.do(ctx, n.c.B().ScriptExists().Sha1(shas...).Build()).ToArray()
	if err != nil {
		return nil, err
	}
	if len(msg) != len(shas) {
		return nil, fmt.Errorf("SCRIPT EXISTS: %d replies for %d SHAs", len(msg), len(shas))
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

// FunctionLoad loads a Functions library and returns the name the node
// reports.
func (n *conn) FunctionLoad(ctx context.Context, code []byte, replace bool) (string, error) {
	if replace {
		return n.do(ctx, n.c.B().FunctionLoad().Replace().FunctionCode(string(code)).Build()).ToString()
	}
	return n.do(ctx, n.c.B().FunctionLoad().FunctionCode(string(code)).Build()).ToString()
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
	args := []string{"FUNCTION", "LIST"}
	if pattern != "" {
		args = append(args, "LIBRARYNAME", pattern)
	}
	if withCode {
		args = append(args, "WITHCODE")
	}
	libs, err := n.do(ctx, n.arbitrary(args...)).ToArray()
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

// Role runs ROLE.
func (n *conn) Role(ctx context.Context) (roleReply, error) {
	var r roleReply
	vals, err := n.do(ctx, n.c.B().Role().Build()).ToArray()
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

// InfoServer returns the fields of INFO server.
func (n *conn) InfoServer(ctx context.Context) (map[string]string, error) {
	return n.InfoSection(ctx, "server")
}

// InfoSection returns the fields of one INFO section.
func (n *conn) InfoSection(ctx context.Context, section string) (map[string]string, error) {
	s, err := n.do(ctx, n.c.B().Info().Section(section).Build()).ToString()
	if err != nil {
		return nil, err
	}
	return parseInfo(s), nil
}

// replicationInfo is what INFO replication says about a node.
type replicationInfo struct {
	ReplID   string   // master_replid: shared by a primary and its synced replicas
	Replicas []string // slaveN lines, host:port, whatever their state
}

// InfoReplication runs INFO replication. It lists every replica, whatever
// its state: ROLE lists only the online ones, and a replica in a full sync
// still has a script cache to load.
func (n *conn) InfoReplication(ctx context.Context) (replicationInfo, error) {
	var r replicationInfo
	s, err := n.do(ctx, n.c.B().Info().Section("replication").Build()).ToString()
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
