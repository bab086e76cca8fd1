# Hermes Gateway — every target CI runs is here.
GO        ?= go
PKGS      := ./...
BIN       := bin/hermes
# CI-bounded crash/soak settings; `make crash-long` runs the long form.
export CGO_ENABLED ?= 0

.PHONY: all build fmt lint vet staticcheck test test-race test-race-core verify bench bench-smoke crash crash-long ci clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/hermes

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet $(PKGS)
	$(GO) vet -tags faults $(PKGS)

# Pinned by the tool directive in go.mod.
staticcheck:
	$(GO) tool staticcheck $(PKGS)

lint: vet staticcheck
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

# The README's test command: every package, the process tests and the
# bounded crash suite.
test:
	$(GO) test -count=1 -timeout 15m $(PKGS)

test-race:
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 20m $(PKGS)

# The race detector over the in-process packages (CI; the process tests
# run the non-race binary).
test-race-core:
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 15m ./internal/...

crash:
	$(GO) test -count=1 -timeout 10m ./test/crash/...

crash-long:
	HERMES_CRASH_SOAK=1 $(GO) test -count=1 -timeout 60m ./test/crash/...

verify: lint build test

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./internal/store/ ./internal/events/ ./internal/rpc/ ./internal/control/ ./internal/model/... ./internal/agent/ ./test/bench/...

# Every benchmark once, so they keep compiling and running (figures: make bench).
bench-smoke:
	$(GO) test -count=1 -run '^$$' -bench . -benchtime 1x ./internal/... ./test/bench/

ci: lint build test test-race-core bench-smoke

clean:
	rm -rf bin
