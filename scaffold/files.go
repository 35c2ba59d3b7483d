package scaffold

import (
	"strconv"
	"strings"
)

// The files init, new script and new scenario write, as Go code rather
// than text/template: a reachable text/template makes the linker keep
// every exported method of every type in the binary (it calls
// reflect.Value.MethodByName with a name it cannot see), which doubled
// scriptctl's size and slowed every start. testdata/golden holds their
// output for varied inputs (TestGolden).

// manifestYAML is init's manifest.yaml: one script and one caller.
func manifestYAML(library string, targets []string) []byte {
	return []byte(`# scriptctl manifest: the scripts this repository owns and the keys each caller uses.
# Add a script with 'scriptctl new script NAME'; after changing a script,
# bump version and run 'scriptctl sum'.
schema: 1
library: ` + yamlScalar(library) + `
version: 1
targets: [` + strings.Join(targets, ", ") + `]   # the servers every scenario is proven on
scripts:
  release:
    file: lua/release.lua
    keys: [lock]
    args: [token]
callers:
  worker:
    scripts: [release]
    keys:
      lock: "lock:{job-<id>}"
    samples:
      id: ["42", "7"]
`)
}

// releaseLua is init's script, lua/release.lua.
const releaseLua = `-- release: token-safe lock release. Delete the lock only while it holds the
-- caller's token, so a worker whose lock expired never removes a
-- successor's lock.
--
-- KEYS[1] lock    the lock key
-- ARGV[1] token   the token the caller took the lock with
--
-- Replies: 1 released; 0 not released (missing or someone else's lock)
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`

// releaseUnconditionalLua is the unsafe variant init's negative control
// swaps in, lua_test/controls/release_unconditional.lua.
const releaseUnconditionalLua = `-- The unsafe release the negative control swaps in: an unconditional DEL
-- that removes whatever lock is there.
redis.call('DEL', KEYS[1])
return 1
`

// scenarioReleaseYAML is init's scenario, lua_test/release.yaml.
const scenarioReleaseYAML = `# A non-owner's release leaves the lock intact (value and TTL); the owner's
# release deletes it. Run with 'scriptctl verify' (format: 'scriptctl verify --help').
name: release by a non-owner and by the owner
caller: worker
vars: {id: "42"}
keys:
  lock: {value: tok-owner, ttl_ms: 3000}
workers:
  owner: {token: tok-owner}
  other: {token: tok-other}
steps:
  - sleep_ms: 500
  - name: a non-owner releases
    worker: other
    call: release
    expect:
      reply: 0
      keys:
        lock: {value: tok-owner, ttl_ms: 2500}
  - name: the owner releases
    worker: owner
    call: release
    expect:
      reply: 1
      keys:
        lock: absent
`

// scenarioReleaseControlYAML is init's negative control,
// lua_test/release_control.yaml.
const scenarioReleaseControlYAML = `# Negative control: OLD's lock expired and CURRENT holds it; OLD releases
# late. The unconditional DEL removes CURRENT's lock (the regression); the
# manifest's release leaves it intact. Proves the scenario tells safe from unsafe.
name: late release, unconditional DEL (negative control)
caller: worker
vars: {id: "42"}
keys:
  lock: {value: tok-current, ttl_ms: 2000}
control:
  release: controls/release_unconditional.lua
workers:
  old: {token: tok-old}
  current: {token: tok-current}
steps:
  - name: OLD releases late
    worker: old
    call: release
    regression:
      reply: 1
      keys:
        lock: absent
`

// githubWorkflow is init's .github/workflows/scriptctl.yml: the action at
// ref, installing scriptctl version.
func githubWorkflow(ref, version string) []byte {
	return []byte(`# Runs every offline check of scriptctl on each push and pull request:
# findings appear in code scanning (SARIF) and in the job summary, the
# scenarios in scriptctl-junit.xml. A deploy job: see scriptctl's
# docs/ci/github-actions.yml.
name: scriptctl
on:
  push:
    branches: [main]
  pull_request:
permissions:
  contents: read
  security-events: write
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: scriptctl/scriptctl@` + ref + `
        with:
          version: ` + version + `
`)
}

// gitlabCI is init's .gitlab-ci.yml, installing scriptctl version.
func gitlabCI(version string) []byte {
	return []byte(`# Runs every offline check of scriptctl on each push and merge request; the
# scenarios show up as test results (JUnit). A deploy job: see scriptctl's
# docs/ci/gitlab-ci.yml.
scriptctl-check:
  stage: test
  image: golang:1
  script:
    - go install github.com/scriptctl/scriptctl/cmd/scriptctl@` + version + `
    - scriptctl check --junit scriptctl-junit.xml
  artifacts:
    when: always
    reports:
      junit: scriptctl-junit.xml
`)
}

// readme is init's README.md.
func readme(library string) []byte {
	return []byte("# " + library + ": Redis scripts\n" +
		"\n" +
		"The Redis Lua scripts this repository owns, checked and rolled out with\n" +
		"[scriptctl](https://github.com/scriptctl/scriptctl).\n" +
		"\n" +
		"| file | what it is |\n" +
		"|---|---|\n" +
		"| `manifest.yaml` | every script, its keys, args and flags, and the key templates each caller uses |\n" +
		"| `lua/release.lua` | the example script: a token-safe lock release |\n" +
		"| `lua_test/release.yaml` | a scenario: steps run offline on a virtual clock, each reply and stored key checked |\n" +
		"| `lua_test/release_control.yaml` | its negative control: proves the scenario fails on an unsafe variant |\n" +
		"| `scripts.sum` | the SHA1 of every script of every released version (written by `scriptctl sum`) |\n" +
		"| `.github/workflows/scriptctl.yml`, `.gitlab-ci.yml` | CI: `scriptctl check` on every push and merge request |\n" +
		"\n" +
		"## What to edit next\n" +
		"\n" +
		"1. Replace `lua/release.lua` with your script, or add one: `scriptctl new script NAME`.\n" +
		"2. Describe its keys and args in `manifest.yaml`, and the key templates of each caller.\n" +
		"3. Write scenarios for it: `scriptctl new scenario NAME`, then fill in the steps.\n" +
		"4. Run `scriptctl check` until it passes; after changing a script, bump\n" +
		"   `version` in `manifest.yaml` and run `scriptctl sum`.\n" +
		"5. Deploy: `scriptctl plan --exit-code` shows what would change (exit 4: changes pending, 0: nothing to deploy, anything else: a problem), `scriptctl deploy` loads it.\n")
}

// newScenarioYAML is the scenario new scenario writes: one call of script,
// in caller's context and with vars when they are not "", with args (the
// inside of a flow mapping) when they are not "".
func newScenarioYAML(name, caller, vars, script, args string) []byte {
	var b strings.Builder
	b.WriteString("# " + name + ": describe what this scenario proves.\n" +
		"# Format: 'scriptctl verify --help' and scriptctl's docs/checking.md, \"Verify\".\n" +
		"name: " + name + "\n")
	if caller != "" {
		b.WriteString("caller: " + caller + "\n")
	}
	if vars != "" {
		b.WriteString("vars: {" + vars + "}\n")
	}
	b.WriteString("workers:\n" +
		"  w1: {token: tok-1}\n" +
		"steps:\n" +
		"  - name: first call\n" +
		"    worker: w1\n" +
		"    call: " + script + "\n")
	if args != "" {
		b.WriteString("    args: {" + args + "}\n")
	}
	b.WriteString("    expect: {}\n")
	return []byte(b.String())
}

// newScriptLua is the script new script writes: a comment naming its keys
// and args, and a body that uses the first of each.
func newScriptLua(name string, keys, args []string) []byte {
	var b strings.Builder
	b.WriteString("-- " + name + ": describe what this script does and what it replies.\n")
	if len(keys) > 0 || len(args) > 0 {
		b.WriteString("--\n")
	}
	for i, k := range keys {
		b.WriteString("-- KEYS[" + strconv.Itoa(i+1) + "] " + k + "\n")
	}
	for i, a := range args {
		b.WriteString("-- ARGV[" + strconv.Itoa(i+1) + "] " + a + "\n")
	}
	if len(keys) > 0 && len(args) > 0 {
		b.WriteString("redis.call('SET', KEYS[1], ARGV[1])\n")
	}
	b.WriteString("return 1\n")
	return []byte(b.String())
}
