// Package e2e holds process-level scenario tests of the hermes binary: the
// daemon lifecycle (create, resume, list, info, idempotent create across a
// SIGKILL, home ownership, damaged database, bad config, occupied port) and
// the session scenarios of docs/protocol.md#approvals, #clarify, #toolsets (approvals that outlive
// their viewers, deny, clarify, FIFO, idempotent submit, three concurrent
// surfaces, identical event order across viewers). They run in plain
// `go test ./test/e2e/...` and build ./cmd/hermes once.
package e2e

import (
	"os"
	"testing"

	"github.com/hermes-gateway/hermes/internal/gatewaytest"
)

func TestMain(m *testing.M) { os.Exit(gatewaytest.Main(m)) }
