package daemon

import (
	"encoding/json"
	"testing"

	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// session.interrupt cancels the running generation: the turn settles
// interrupted, a stale generation is refused, the follower then runs, and a
// cancel of a started row is stale_generation while a queued one cancels.
func TestInterruptAndCancel(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	ctx := ctxT(t)
	cwd := t.TempDir()
	hold := modeltest.NewBarrier()
	t.Cleanup(hold.Release)
	d.model.Handle(func(r *modeltest.Request) modeltest.Reply {
		if r.LastUserText() == "slow" {
			return modeltest.Reply{Text: "never", Hold: hold}
		}
		return modeltest.Text("fast done")
	})
	c := d.connect()
	snap, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("int"), Cwd: &cwd, Toolsets: &[]string{}})
	if err != nil {
		t.Fatal(err)
	}
	sid := snap.SessionID
	slow, _ := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: ptr("1"), Text: "slow"})
	doomed, _ := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: ptr("2"), Text: "doomed"})
	if _, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: ptr("3"), Text: "fast"}); err != nil {
		t.Fatal(err)
	}
	if err := hold.AwaitWaiting(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Cancel(ctx, protocol.AdmissionParams{SessionID: sid, AdmissionID: slow.AdmissionID}); reason(err) != "stale_generation" {
		t.Fatalf("cancel of a started row: %v", err)
	}
	if r, err := c.Cancel(ctx, protocol.AdmissionParams{SessionID: sid, AdmissionID: doomed.AdmissionID}); err != nil || *r.Outcome != "cancelled" {
		t.Fatalf("cancel of a queued row: %+v %v", r, err)
	}
	if _, err := c.InterruptSession(ctx, protocol.SessionInterruptParams{SessionID: sid, ExecutionGeneration: 7}); reason(err) != "stale_generation" {
		t.Fatalf("stale interrupt: %v", err)
	}
	h, err := c.InterruptSession(ctx, protocol.SessionInterruptParams{SessionID: sid, ExecutionGeneration: 1})
	if err != nil || h.ExecutionState != "running" {
		t.Fatalf("interrupt: %+v %v", h, err)
	}
	outcomes := map[string]string{}
	for len(outcomes) < 3 {
		e, err := c.AwaitEvent(ctx, func(e protocol.Event) bool { return e.Type == protocol.EventMessageComplete })
		if err != nil {
			t.Fatalf("outcomes so far %v: %v", outcomes, err)
		}
		var p protocol.MessageCompletePayload
		_ = json.Unmarshal(e.Payload, &p)
		outcomes[p.AdmissionID] = p.Outcome
	}
	if outcomes[slow.AdmissionID] != "interrupted" || outcomes[doomed.AdmissionID] != "cancelled" {
		t.Fatalf("outcomes: %v", outcomes)
	}
	if countText(d.model.Requests(), "doomed") != 0 {
		t.Fatal("a cancelled admission reached the model")
	}
}
