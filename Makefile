VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
GO      ?= go
BIN     ?= bin/scriptctl
# scriptctl needs no C: a static binary skips the dynamic loader and libc's
# start (about a tenth of `scriptctl version`'s CPU) and runs anywhere.
BUILD_CGO ?= 0
# Keep runs sized for small machines; override with make test P=8.
P       ?= 2
# A package's time limit, sized for a busy machine (a load average of 8 on
# 2 cores under -race): only a hang should reach it.
TEST_TIMEOUT ?= 45m

.PHONY: help build install test test-full bench-smoke staticcheck test-servers test-targets test-targets-full examples race bench fuzz lint check-tidy check clean

help: ## Show this help
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  %-12s %s\n", $$1, $$2}'

build: ## Build $(BIN) (default bin/scriptctl) with the version injected, static (no cgo)
	CGO_ENABLED=$(BUILD_CGO) $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/scriptctl

install: ## go install scriptctl with the version injected
	CGO_ENABLED=$(BUILD_CGO) $(GO) install -ldflags "$(LDFLAGS)" ./cmd/scriptctl

# Test tiers (README, "Tests"). make test is the fast tier, what the
# README's test command runs: every package once; the race detector where
# goroutines run (RACE_PKGS, and through RACE_RUN in RACE_RUN_PKGS the
# command layer's parallel pre-flight, which plan and deploy run, and
# mutate's parallel run); the engine, its corpora, the single-goroutine
# tools and packages, and mutate's runs of every bundled mutant without it
# (-race finds nothing there and costs 3-4x); the corpora sampled deterministically (SAMPLE_EVAL /
# SAMPLE_FCALL for the difftest corpus, testtier.Sample in tests); and the
# tests marked testtier.Full skipped. make test-full is the rest: with
# SCRIPTCTL_TEST_TIER=rest it runs the marked tests (FULL_RUN in
# FULL_PKGS; cmd/scriptctl's TestMakefileTiersCoverEveryPackage fails on a
# marked or sampling test it would not run) and of each sampled corpus the
# part make test left out, so the two run every snippet once; then every
# benchmark once (bench-smoke). CI runs both. Timeouts are sized for a busy
# machine: nothing may depend on wall-clock speed.
RACE_PKGS    ?= ./loader/... ./refresh/... ./internal/cmdtable/ ./internal/connect/ ./internal/lazy/ ./internal/redistest/ ./liveconn/... ./scaffold/... ./manifest/... ./verify/scenario/...
NORACE_PKGS  ?= ./cmd/... ./mutate/... ./internal/archtest/ ./internal/atomicfile/ ./internal/cmdtable/record/ ./internal/cmdutil/ ./internal/diag/ ./internal/iostreams/ ./internal/cnum/ ./internal/perf/... ./internal/pqsort/ ./internal/safefile/ ./internal/target/ ./internal/testtier/ ./internal/textdist/ ./internal/udiff/ ./internal/valueset/ ./internal/yamlnode/ ./lint/... ./slot/... ./lua/... ./contract/... ./gen/... ./explore/... ./coverage/... ./evalrun/... ./verify/ ./verify/keyspace/ ./verify/difftest/... ./verify/lua51/... ./verify/luac51/... ./verify/crmath/... ./verify/lualib/... ./verify/rediscli/...
RACE_RUN_PKGS ?= ./cmd/scriptctl/ ./mutate/
RACE_RUN     ?= ^(TestPreflight|TestCheck|TestRun$$)
SAMPLE_EVAL  ?= 12
SAMPLE_FCALL ?= 36
SAMPLE_ENV    = SCRIPTCTL_CORPUS_EVAL_EVERY=$(SAMPLE_EVAL) SCRIPTCTL_CORPUS_FCALL_EVERY=$(SAMPLE_FCALL)
FULL_PKGS    ?= ./cmd/scriptctl/ ./gen/ ./verify/ ./verify/keyspace/ ./verify/difftest/
FULL_RUN     ?= ^(TestGoBindings|TestGoBindingsLive|TestPythonBindings|TestTSBindings|TestLiveComparisonsOnCluster|TestLeastPrivilegeACLCluster|TestSavedPlanCluster|TestDiffCluster|TestInspectMixedClusterCLI|TestClusterShardGap|TestEvalCorpusCLI|TestLoaderCluster|TestExamplesModels|TestEvalCorpusFunctionCLI|TestVersionInjected|TestNoDynamicMethodLookup|TestEvalCorpus|TestFCallCorpus|TestBigArrayBorderLive|TestBigStringLive|TestStringProtoMaxBulkLen)$$

# make test records which tests ask for the run's server build (the
# redistest helper appends their names to BUILD_LOG); make test-targets
# runs only those on the other builds.
BUILD_LOG ?= $(CURDIR)/bin/build-tests
LOG_ENV    = SCRIPTCTL_TEST_BUILD_LOG=$(BUILD_LOG).new

test: ## The fast tier: race detector where goroutines run, corpora sampled, full-tier tests skipped
	@mkdir -p $(dir $(BUILD_LOG)) && rm -f $(BUILD_LOG) $(BUILD_LOG).new
	$(LOG_ENV) $(GO) test -race -count=1 -p $(P) -timeout $(TEST_TIMEOUT) $(RACE_PKGS)
	$(LOG_ENV) $(GO) test -race -count=1 -p $(P) -timeout $(TEST_TIMEOUT) -run '$(RACE_RUN)' $(RACE_RUN_PKGS)
	$(LOG_ENV) $(SAMPLE_ENV) $(GO) test -count=1 -p $(P) -timeout $(TEST_TIMEOUT) $(NORACE_PKGS)
	@if [ -f $(BUILD_LOG).new ]; then mv $(BUILD_LOG).new $(BUILD_LOG); fi

test-full: ## The rest of make test (SCRIPTCTL_TEST_TIER=rest): the full tier's tests, the corpora where make test did not sample, every benchmark once
	$(SAMPLE_ENV) SCRIPTCTL_TEST_TIER=rest $(GO) test -count=1 -p $(P) -timeout $(TEST_TIMEOUT) -run '$(FULL_RUN)' $(FULL_PKGS)
	$(MAKE) bench-smoke

# The packages with benchmarks (git grep: no test binary is built for the
# others).
BENCH_PKGS ?= $(sort $(addprefix ./,$(dir $(shell git grep -l '^func Benchmark' -- '*_test.go'))))

bench-smoke: ## Run every benchmark once (-benchtime=1x) so none rots
	$(GO) test -run '^$$' -bench . -benchtime=1x -count=1 -p 1 -timeout $(TEST_TIMEOUT) $(BENCH_PKGS)

test-servers: ## Fetch Redis 8.0.2, Valkey 8.1 (Debian 13) and Redis 8.0.6, Valkey 9.1 (Debian unstable), run through their own loader, for the tests
	.ci/test-servers

# The suites that talk to servers run again on every other server build.
TARGET_SERVERS ?= redis-8.0 valkey-8.1 redis-8.0.6 valkey-9.1
# Builds whose corpus is sampled more sparsely still (a patch release of a
# line already proven, and the newest line): CI time stays in check.
SPARSE_SERVERS ?= redis-8.0.6 valkey-9.1
# The loader, refresh, engine, corpus and scenario suites, without the race
# detector: make test ran the same Go code under -race; here another server
# judges it. Of these packages only the tests make test saw ask for the
# run's server build run (TARGET_RUN, from BUILD_LOG): an offline test, or
# one that starts every build itself, would judge nothing new; without
# that record (make test not run, or failed) the packages run whole.
# Packages run P at a time, servers one after another, so 2 cores are not
# oversubscribed. The full tier's tests are skipped here (make test-full
# runs them on the default server).
TARGET_PKGS    ?= ./loader/ ./refresh/... ./verify/ ./verify/keyspace/ ./verify/lua51/ ./verify/difftest/ ./verify/scenario/
BUILD_TESTS     = $(sort $(if $(wildcard $(BUILD_LOG)),$(file <$(BUILD_LOG))))
empty          :=
space          := $(empty) $(empty)
TARGET_RUN     ?= $(if $(BUILD_TESTS),^($(subst $(space),|,$(BUILD_TESTS)))$$)
# To keep CI short the corpus is sampled on these servers: EVAL every
# EVAL_EVERY-th snippet, FCALL every FCALL_EVERY-th (other snippets than
# EVAL's), and every library, functions.yaml and targets.yaml snippet in
# both; make test-targets-full runs all of it.
EVAL_EVERY     ?= 4
FCALL_EVERY    ?= 12
SPARSE_EVAL_EVERY  ?= 8
SPARSE_FCALL_EVERY ?= 24

test-targets: test-servers ## Run the loader, refresh, engine, corpus (sampled) and scenario suites' server-build tests on Redis 8.0.2, 8.0.6, Valkey 8.1 and 9.1 too
	@echo "$(if $(TARGET_RUN),the tests make test saw ask for the server build ($(words $(BUILD_TESTS)) in $(BUILD_LOG)),every test) of $(TARGET_PKGS)"
	@for k in $(TARGET_SERVERS); do \
	  echo "== $$k"; \
	  ev=$(EVAL_EVERY); fv=$(FCALL_EVERY); \
	  case " $(SPARSE_SERVERS) " in *" $$k "*) ev=$(SPARSE_EVAL_EVERY); fv=$(SPARSE_FCALL_EVERY);; esac; \
	  SCRIPTCTL_TEST_SERVER=$$k SCRIPTCTL_CORPUS_EVAL_EVERY=$$ev SCRIPTCTL_CORPUS_FCALL_EVERY=$$fv \
	    $(GO) test -count=1 -p $(P) -timeout $(TEST_TIMEOUT) $(if $(TARGET_RUN),-run '$(TARGET_RUN)') $(TARGET_PKGS) || exit 1; \
	done

test-targets-full: test-servers ## test-targets with every test of the packages, the whole corpus in both modes and the full tier's tests
	SCRIPTCTL_TEST_TIER=full $(MAKE) test-targets TARGET_RUN= EVAL_EVERY=1 FCALL_EVERY=1 SPARSE_EVAL_EVERY=1 SPARSE_FCALL_EVERY=1

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
	$(MAKE) staticcheck

staticcheck: ## staticcheck alone (CI runs it after check-tidy, which ran gofmt and go vet)
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
