package crash

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestRandomKillSoak: submissions with side effects and SIGKILLs at random
// moments. Each round restarts, retries indeterminate submissions (I4),
// resolves unknown rows, submits more and is killed; at the end the queue
// drains (I10) and I1–I9 and I11 hold. 3 rounds in CI, 40 with
// HERMES_CRASH_SOAK=1; HERMES_CRASH_SEED replays a run.
func TestRandomKillSoak(t *testing.T) {
	t.Parallel()
	rounds := 3
	if soak() {
		rounds = 40
	}
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("HERMES_CRASH_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("replay with HERMES_CRASH_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	w := newWorld(t, gt.Config{})
	for r := range rounds {
		w.start("")
		sid := w.recoverRound()
		for j := range 3 {
			id := fmt.Sprintf("s%d-%d", r, j)
			w.f.Turns.Set(id, modeltest.ToolCall("terminal", gt.TerminalArgs(w.f.Ledger.Command(id))), modeltest.Text("ok "+id))
			_, _ = w.submit(sid, id, id)
		}
		// A deliberately random crash moment (not a wait for a condition).
		<-time.After(time.Duration(rng.IntN(400)) * time.Millisecond)
		w.f.D.Kill()
	}
	w.start("")
	sid := w.recoverRound()
	w.drain(sid)
	w.converge(w.check(expect{}), 2)
}

// recoverRound resumes the soak session, retries indeterminate submissions
// and resolves unknown rows.
func (w *world) recoverRound() string {
	sid := w.create("soak")
	w.retryIndeterminate()
	w.resolveUnknowns(sid)
	return sid
}

// resolveUnknowns resolves every unknown row of sid.
func (w *world) resolveUnknowns(sid string) {
	for _, p := range gt.Resume(w.t, w.v, sid).Pending {
		if p.Status != protocol.StatusUnknown || p.ExecutionGeneration == nil {
			continue
		}
		if _, err := w.v.ResolveUnknown(gt.Context(w.t, wait), protocol.ResolveUnknownParams{SessionID: sid,
			AdmissionID: p.AdmissionID, ExecutionGeneration: *p.ExecutionGeneration}); err != nil {
			w.t.Fatalf("resolve_unknown %s: %v", p.AdmissionID, err)
		}
	}
}

// drain waits until sid has no pending admission (I10).
func (w *world) drain(sid string) {
	gt.Await(w.t, wait, func() bool {
		return len(gt.Resume(w.t, w.v, sid).Pending) == 0
	})
}
