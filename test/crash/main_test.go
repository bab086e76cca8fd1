// Package crash is the crash suite (docs/protocol.md#recovery, #fault-points): the real
// hermes binary built with -tags faults is driven to each named fault point
// of docs/protocol.md#fault-points (internal/faults.All) with HERMES_FAULTS, dies by SIGKILL
// there, is restarted without faults, and the invariants I1–I11 are checked
// against the client history, the read-only database opened after the
// daemon exited, the effects ledger the terminal tool appends to, and the
// fake model's captured requests.
//
// The suite is plain `go test ./test/crash/...` (no build tag: the daemon
// binary is built with -tags faults by gatewaytest.Build) and is bounded
// for CI. HERMES_CRASH_SOAK=1 turns on the long form: many random-SIGKILL
// soak iterations and the two-minute model idle-timeout case.
package crash

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/gatewaytest"
)

func TestMain(m *testing.M) { os.Exit(gatewaytest.Main(m)) }

const (
	wait      = 20 * time.Second // bound of every wait in a scenario
	crashWait = 20 * time.Second // bound of waiting for a fault point's SIGKILL
)

// soak reports whether the long form runs (HERMES_CRASH_SOAK=1).
func soak() bool {
	v, _ := strconv.ParseBool(os.Getenv("HERMES_CRASH_SOAK"))
	return v
}
