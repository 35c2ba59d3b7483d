// Package loader rolls a manifest's scripts and Functions library out to
// Redis and reports what is loaded where: node discovery (standalone
// primary and replicas, or every node of a Redis Cluster), Plan, Deploy
// (bounded parallel, idempotent, under a token-safe deploy lock), Status
// (drift; StatusAll adds the libraries the manifest does not own), Prune
// (old library versions), and the on-call views Inspect (every node's
// libraries and script presence, no manifest needed) and Diff (the code on
// the nodes against the repository's).
//
// It owns ordering, fan-out over nodes, idempotency and verification. The
// per-node Redis adapter (redis.go, redis_inspect.go) stays dumb: one
// command on one node.
// It does not parse flags, resolve URLs or passwords (internal/connect), nor
// print anything: every function returns a report the caller renders.
package loader
