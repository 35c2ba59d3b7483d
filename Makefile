VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
GO      ?= go
BIN     ?= bin/scriptctl
# Keep runs sized for small machines; override with make test P=8.
P       ?= 2
# A package's time limit, sized for a busy machine (a load average of 8 on
# 2 cores under -race): only a hang should reach it.
TEST_TIMEOUT ?= 45m

.PHONY: help build install test test-full test-servers test-targets test-targets-full examples race bench fuzz lint check-tidy check clean

help: ## Show this help
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  %-12s %s\n", $$1, $$2}'

build: ## Build $(BIN) (default bin/scriptctl) with the version injected
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/scriptctl

install: ## go install scriptctl with the version injected
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/scriptctl

# Test tiers. make test is what the README's test command runs: every
# package once, the race detector where goroutines run (RACE_PKGS, and the
# command layer's parallel pre-flight, which plan and deploy run, through
# RACE_CMD_RUN), the engine and
# its corpora without it (one goroutine per Lua run: -race finds nothing
# there and costs 3-4x), the difftest corpus sampled deterministically
# (SAMPLE_EVAL / SAMPLE_FCALL), then every benchmark once. make test-full
# runs the corpora whole; CI runs both. Timeouts are sized for a busy
# machine: nothing may depend on wall-clock speed.
RACE_PKGS    ?= ./loader/... ./refresh/... ./internal/... ./liveconn/... ./evalrun/... ./scaffold/... ./manifest/... ./verify/scenario/... ./explore/... ./mutate/... ./coverage/...
NORACE_PKGS  ?= ./cmd/... ./lint/... ./slot/... ./lua/... ./contract/... ./gen/... ./verify/ ./verify/difftest/... ./verify/lua51/... ./verify/luac51/... ./verify/lualib/... ./verify/rediscli/...
RACE_CMD_RUN ?= ^(TestPreflight|TestCheck|TestExamplesCheck)
SAMPLE_EVAL  ?= 3
SAMPLE_FCALL ?= 9
TEST_TIMEOUT ?= 45m

test: ## Run the tests (race detector where goroutines run, corpora sampled), then every benchmark once
	$(GO) test -race -count=1 -p $(P) -timeout $(TEST_TIMEOUT) $(RACE_PKGS)
	$(GO) test -race -count=1 -p $(P) -timeout $(TEST_TIMEOUT) -run '$(RACE_CMD_RUN)' ./cmd/scriptctl/
	SCRIPTCTL_CORPUS_EVAL_EVERY=$(SAMPLE_EVAL) SCRIPTCTL_CORPUS_FCALL_EVERY=$(SAMPLE_FCALL) \
	  $(GO) test -count=1 -p $(P) -timeout $(TEST_TIMEOUT) $(NORACE_PKGS)
	$(GO) test -run '^$$' -bench . -benchtime=1x -count=1 -p 1 ./...

test-full: ## Run the engine's corpora whole (every snippet as EVAL and FCALL)
	$(GO) test -count=1 -p $(P) -timeout $(TEST_TIMEOUT) -run 'Corpus' ./verify/difftest/

test-servers: ## Fetch Redis 8.0.2, Valkey 8.1 (Debian 13) and Redis 8.0.6, Valkey 9.1 (Debian unstable), run through their own loader, for the tests
	.ci/test-servers

# The suites that talk to servers run again on every other server build.
TARGET_SERVERS ?= redis-8.0 valkey-8.1 redis-8.0.6 valkey-9.1
# Builds whose corpus is sampled more sparsely still (a patch release of a
# line already proven, and the newest line): CI time stays in check.
SPARSE_SERVERS ?= redis-8.0.6 valkey-9.1
# The loader and refresh suites run with the race detector; the engine,
# corpus and scenario suites (the same Go code as make test runs under
# -race, now judged by another server) run without it.
TARGET_RACE    ?= ./loader/ ./refresh/...
TARGET_PKGS    ?= ./verify/ ./verify/lua51/ ./verify/difftest/ ./verify/scenario/
# To keep CI short the corpus is sampled on these servers: EVAL every
# EVAL_EVERY-th snippet, FCALL every FCALL_EVERY-th (other snippets than
# EVAL's), and every library, functions.yaml and targets.yaml snippet in
# both; make test-targets-full runs all of it.
EVAL_EVERY     ?= 2
FCALL_EVERY    ?= 6
SPARSE_EVAL_EVERY  ?= 4
SPARSE_FCALL_EVERY ?= 12

test-targets: test-servers ## Run the loader, refresh, engine, corpus (sampled) and scenario suites on Redis 8.0.2, 8.0.6, Valkey 8.1 and 9.1 too
	@for k in $(TARGET_SERVERS); do \
	  echo "== $$k"; \
	  ev=$(EVAL_EVERY); fv=$(FCALL_EVERY); \
	  case " $(SPARSE_SERVERS) " in *" $$k "*) ev=$(SPARSE_EVAL_EVERY); fv=$(SPARSE_FCALL_EVERY);; esac; \
	  SCRIPTCTL_TEST_SERVER=$$k $(GO) test -race -count=1 -p $(P) -timeout $(TEST_TIMEOUT) $(TARGET_RACE) || exit 1; \
	  SCRIPTCTL_TEST_SERVER=$$k SCRIPTCTL_CORPUS_EVAL_EVERY=$$ev SCRIPTCTL_CORPUS_FCALL_EVERY=$$fv \
	    $(GO) test -count=1 -p $(P) -timeout $(TEST_TIMEOUT) $(TARGET_PKGS) || exit 1; \
	done

test-targets-full: test-servers ## test-targets with the whole corpus in both modes
	$(MAKE) test-targets EVAL_EVERY=1 FCALL_EVERY=1 SPARSE_EVAL_EVERY=1 SPARSE_FCALL_EVERY=1

race: ## Run all tests with the race detector (slow: the engine's corpora under -race)
	$(GO) test -race -count=1 -p $(P) -timeout $(TEST_TIMEOUT) ./...

bench: ## Run the benchmarks (BENCH=regexp, default all)
	$(GO) test -run '^$$' -bench '$(or $(BENCH),.)' -benchmem -count=1 -p 1 ./...

fuzz: ## Run each fuzz target for FUZZTIME (default 20s)
	@grep -rHoE '^func Fuzz[A-Za-z0-9_]+' --include='*_test.go' . | sed -E 's|^(.*)/[^/]*:func |\1 |' | sort -u | \
	while read -r pkg t; do \
	  echo "fuzz $$t in $$pkg"; \
	  $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(or $(FUZZTIME),20s) $$pkg || exit 1; \
	done

STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint: ## gofmt check, go vet, staticcheck (pinned, through the module proxy)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt would change:"; gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

check-tidy: ## Fail when gofmt or go mod tidy would change a file
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt would change:"; gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) mod tidy -diff
	$(GO) vet ./...

examples: ## Run scriptctl check on every example repository
	@for m in examples/*/manifest.yaml; do echo "check -m $$m"; $(GO) run ./cmd/scriptctl check -m $$m || exit 1; done

check: ## Run scriptctl check on the repository's manifest
	$(GO) run ./cmd/scriptctl check

clean: ## Remove build output
	rm -rf bin
