package crash

import (
	"testing"

	"github.com/hermes-gateway/hermes/internal/faults"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

var recoveryPoints = []string{faults.RecoveryAfterUnknown, faults.RecoveryBeforeSchedule, faults.RecoveryAfterReady}

// TestRecoveryFaultPoints: F12. Recovery crashes twice in a row at the
// point; the third start recovers: the started row is unknown, its
// follower queued, the never-started row of another session runs at most
// once (exactly once unless the crash came after scheduling), and more
// restarts change nothing.
func TestRecoveryFaultPoints(t *testing.T) {
	t.Parallel()
	for _, point := range recoveryPoints {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, gt.Config{})
			w.prepareRecovery()
			for range 2 {
				d := w.f.Launch("HERMES_FAULTS=" + point)
				d.AwaitCrash(crashWait)
			}
			w.restart()
			e := expect{status: map[string]string{"started": "unknown", "follow": "queued"},
				ledger: map[string]int{"follow": 0}, first: map[string]int{"STARTED": 1, "FOLLOW": 0}}
			if point != faults.RecoveryAfterReady {
				w.awaitStatus(w.hist["fresh"].sid, w.learn("fresh"), protocol.StatusTerminal)
				e.status["fresh"], e.ledger["fresh"], e.first["FRESH"] = "terminal", 1, 1
			}
			w.converge(w.check(e), 2)
		})
	}
}

// prepareRecovery leaves a started row (held at the model), its queued
// follower, and a never-started queued row in a second session (the daemon
// dies in the claim transaction of that row).
func (w *world) prepareRecovery() {
	t := w.t
	hold := modeltest.NewBarrier()
	t.Cleanup(hold.Release)
	w.f.Turns.Set("STARTED", modeltest.Reply{Text: "never", Hold: hold})
	w.f.Turns.Set("FOLLOW", modeltest.ToolCall("terminal", gt.TerminalArgs(w.f.Ledger.Command("follow"))), modeltest.Text("ok"))
	w.f.Turns.Set("FRESH", modeltest.ToolCall("terminal", gt.TerminalArgs(w.f.Ledger.Command("fresh"))), modeltest.Text("ok"))
	w.start(faults.ClaimBeforeCommit + "@2")
	s1, s2 := w.create("s1"), w.create("s2")
	w.mustSubmit(s1, "started", "STARTED")
	if err := hold.AwaitWaiting(gt.Context(t, wait), 1); err != nil {
		t.Fatal(err)
	}
	w.mustSubmit(s1, "follow", "FOLLOW")
	w.submit(s2, "fresh", "FRESH") // the reply races the claim crash: ok or info
	w.crashed()
}
