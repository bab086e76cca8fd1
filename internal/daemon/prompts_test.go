package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// The clarify answer reaches the model; a second answer never replaces it.
func TestClarifyAnswerReachesModelOnce(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	ctx := ctxT(t)
	cwd := t.TempDir()
	d.model.Script(
		modeltest.ToolCall("clarify", `{"questions":[{"question":"Pick a color","choices":["blue","green"]}]}`),
		modeltest.Text("CLARIFY_FINISHED"),
	)
	c := d.connect()
	snap, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("clr"), Cwd: &cwd, Toolsets: &[]string{"clarify"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: snap.SessionID, SubmissionID: ptr("q"), Text: "ask me"}); err != nil {
		t.Fatal(err)
	}
	ev, err := c.AwaitEvent(ctx, func(e protocol.Event) bool { return e.Type == protocol.EventClarifyRequest })
	if err != nil {
		t.Fatal(err)
	}
	var req protocol.ClarifyRequestPayload
	_ = json.Unmarshal(ev.Payload, &req)
	if req.Question != "Pick a color" || len(req.Choices) != 2 {
		t.Fatalf("clarify.request: %+v", req)
	}
	p := protocol.ClarifyRespondParams{SessionID: snap.SessionID, ExecutionGeneration: req.ExecutionGeneration, PromptID: req.PromptID, Answer: "green"}
	if r, err := c.RespondClarify(ctx, p); err != nil || r.Status != "resolved" {
		t.Fatalf("respond: %+v %v", r, err)
	}
	p.Answer = "SHOULD_NOT_REPLACE"
	if r, err := c.RespondClarify(ctx, p); err == nil && r.Status != "already_resolved" {
		t.Fatalf("second answer: %+v", r)
	}
	awaitComplete(t, ctx, c, "CLARIFY_FINISHED")
	found := false
	for _, r := range d.model.Requests() {
		for _, m := range r.ToolResults() {
			found = found || (m.Role == "tool" && strings.Contains(m.Content, "green"))
			if strings.Contains(m.Content, "SHOULD_NOT_REPLACE") {
				t.Fatal("the second answer replaced the first")
			}
		}
	}
	if !found {
		t.Fatal("the answer never reached the model")
	}
}

// A denied command never runs; the model sees the denial and the turn
// completes.
func TestDeniedCommandNeverRuns(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	ctx := ctxT(t)
	cwd := t.TempDir()
	owned := filepath.Join(cwd, "keep")
	if err := os.Mkdir(owned, 0o755); err != nil {
		t.Fatal(err)
	}
	d.model.Script(modeltest.ToolCall("terminal", `{"command":"rm -r -- `+owned+`"}`), modeltest.Text("DENIED_OK"))
	c := d.connect()
	snap, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("deny"), Cwd: &cwd, Toolsets: &[]string{"terminal"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: snap.SessionID, SubmissionID: ptr("q"), Text: "remove"}); err != nil {
		t.Fatal(err)
	}
	ev, err := c.AwaitEvent(ctx, func(e protocol.Event) bool { return e.Type == protocol.EventApprovalRequest })
	if err != nil {
		t.Fatal(err)
	}
	var req protocol.ApprovalRequestPayload
	_ = json.Unmarshal(ev.Payload, &req)
	bad := protocol.ApprovalRespondParams{SessionID: snap.SessionID, ExecutionGeneration: req.ExecutionGeneration, PromptID: req.PromptID, Choice: "maybe"}
	if _, err := c.RespondApproval(ctx, bad); reason(err) != "invalid_params" {
		t.Fatalf("unknown choice: %v", err)
	}
	bad.Choice = "deny"
	if _, err := c.RespondApproval(ctx, bad); err != nil {
		t.Fatal(err)
	}
	awaitComplete(t, ctx, c, "DENIED_OK")
	if _, err := os.Stat(owned); err != nil {
		t.Fatal("a denied command ran")
	}
	evs, err := c.EventsSince(ctx, protocol.EventsSinceParams{SessionID: snap.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs.Events {
		if e.Type == protocol.EventMessageComplete {
			n++
		}
		if strings.Contains(string(e.Payload), "maybe") {
			t.Fatal("an invalid choice was journaled")
		}
	}
	if n != 1 || evs.LatestSeq != evs.Events[len(evs.Events)-1].Seq {
		t.Fatalf("journal: %d message.complete, latest %d", n, evs.LatestSeq)
	}
}
