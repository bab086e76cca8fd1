package e2e

import (
	"fmt"
	"slices"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestFIFOWithHeldFirstTurn: while the first turn is held at the model,
// later submissions are admitted (queued) and run strictly after it, in
// admission order.
func TestFIFOWithHeldFirstTurn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hold := modeltest.NewBarrier()
	t.Cleanup(hold.Release)
	f.Turns.Set("turn-1", modeltest.Reply{Text: "one", Hold: hold})
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	dir := gt.Cwd(t)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("fifo"), Cwd: &dir})
	var ids []string
	ids = append(ids, gt.Submit(t, v, snap.SessionID, "s-1", "turn-1").AdmissionID)
	if err := hold.AwaitWaiting(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 4; i++ {
		rc := gt.Submit(t, v, snap.SessionID, fmt.Sprintf("s-%d", i), fmt.Sprintf("turn-%d", i))
		if rc.Status != protocol.StatusQueued {
			t.Errorf("submission %d while the first turn runs: status %q, want queued", i, rc.Status)
		}
		ids = append(ids, rc.AdmissionID)
	}
	if n := len(f.Model.Requests()); n != 1 {
		t.Errorf("%d model requests while the first turn is held, want 1", n)
	}
	hold.Release()
	for _, id := range ids {
		gt.AwaitComplete(t, v, id, wait)
	}
	var order []string
	for _, r := range f.Model.Requests() {
		order = append(order, r.LastUserText())
	}
	if want := []string{"turn-1", "turn-2", "turn-3", "turn-4"}; !slices.Equal(order, want) {
		t.Errorf("model saw %v, want FIFO %v", order, want)
	}
	var done []string
	for _, ev := range v.Events() {
		if ev.Type == protocol.EventMessageComplete {
			done = append(done, gt.Payload[protocol.MessageCompletePayload](t, ev).AdmissionID)
		}
	}
	if !slices.Equal(done, ids) {
		t.Errorf("completion order %v, want %v", done, ids)
	}
}

// TestIdempotentSubmit: the same submission_id returns the same receipt
// before and after completion (also after a restart); a different text is
// admission_conflict; there is one row per submission.
func TestIdempotentSubmit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hold := modeltest.NewBarrier()
	t.Cleanup(hold.Release)
	f.Turns.Set("retry me", modeltest.Reply{Text: "ok", Hold: hold})
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	dir := gt.Cwd(t)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("idem"), Cwd: &dir})
	first := gt.Submit(t, v, snap.SessionID, "same", "retry me")
	before := gt.Submit(t, v, snap.SessionID, "same", "retry me")
	if before.AdmissionID != first.AdmissionID || before.Sequence != first.Sequence {
		t.Errorf("retry before completion: %+v, want admission %s", before, first.AdmissionID)
	}
	if _, err := gt.TrySubmit(v, snap.SessionID, "same", "other text"); gt.Reason(err) != protocol.ReasonAdmissionConflict {
		t.Errorf("same submission_id, other text: err %v, want admission_conflict", err)
	}
	hold.Release()
	gt.AwaitComplete(t, v, first.AdmissionID, wait)
	after := gt.Submit(t, v, snap.SessionID, "same", "retry me")
	if after.AdmissionID != first.AdmissionID || after.Status != protocol.StatusTerminal || after.Outcome == nil || *after.Outcome != protocol.OutcomeCompleted {
		t.Errorf("retry after completion: %+v, want terminal/completed %s", after, first.AdmissionID)
	}
	d.Kill()
	d = f.Start()
	v = d.View(ctx)
	gt.Resume(t, v, snap.SessionID)
	if again := gt.Submit(t, v, snap.SessionID, "same", "retry me"); again.AdmissionID != first.AdmissionID || again.Status != protocol.StatusTerminal {
		t.Errorf("retry after restart: %+v", again)
	}
	d.Kill()
	if n := len(gt.RequestsFor(f.Model, "retry me")); n != 1 {
		t.Errorf("%d model requests for one admission, want 1", n)
	}
	db := gt.OpenDB(t, f.Home)
	gt.ByRequest(t, gt.Admissions(t, db))
	if n := gt.Count(t, db, `SELECT count(*) FROM session_admissions`); n != 1 {
		t.Errorf("%d admission rows, want 1", n)
	}
}
