package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// ownedDir makes <cwd>/owned-removal/owned.txt and returns the directory.
func ownedDir(t *testing.T, cwd string) string {
	t.Helper()
	dir := filepath.Join(cwd, "owned-removal")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	gt.WriteFile(t, filepath.Join(dir, "owned.txt"), "owned")
	return dir
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestApprovalOutlivesViewers: docs/protocol.md#approvals. Nothing runs
// before consent; closing every viewer keeps the execution and its prompt;
// a new viewer sees the same prompt_id and answers it.
func TestApprovalOutlivesViewers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := gt.Cwd(t)
	owned := ownedDir(t, dir)
	f.Turns.Set("Remove owned fixture",
		modeltest.ToolCall("terminal", gt.TerminalArgs("rm -r -- "+owned)),
		modeltest.Text("APPROVAL_FINISHED"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v1, v2 := d.View(ctx), d.View(ctx)
	snap := gt.Create(t, v1, protocol.SessionCreateParams{RequestID: gt.Ptr("fresh"), Cwd: &dir})
	gt.Resume(t, v2, snap.SessionID)
	rc := gt.Submit(t, v1, snap.SessionID, "first", "Remove owned fixture")
	if rc.Status != protocol.StatusQueued || rc.Outcome != nil {
		t.Errorf("receipt %+v, want queued with outcome null", rc)
	}
	p := gt.AwaitPrompt(t, v1, wait)
	if p.Kind != "approval" || !slices.Equal(p.Choices, protocol.ApprovalChoices) || !strings.Contains(p.Command, owned) {
		t.Errorf("approval prompt %+v: want kind approval, choices %v, the rm command", p, protocol.ApprovalChoices)
	}
	if !exists(owned) {
		t.Fatal("the owned dir was removed before consent")
	}
	_ = v1.Close()
	_ = v2.Close()
	v3 := d.View(ctx)
	snap3 := gt.Resume(t, v3, snap.SessionID)
	if len(snap3.Prompts) != 1 || snap3.Prompts[0].PromptID != p.PromptID {
		t.Fatalf("new viewer prompts %+v, want the same prompt %s", snap3.Prompts, p.PromptID)
	}
	if !exists(owned) {
		t.Fatal("the owned dir was removed while no viewer was attached")
	}
	res, err := v3.RespondApproval(ctx, protocol.ApprovalRespondParams{SessionID: snap.SessionID,
		ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Choice: protocol.ChoiceOnce})
	if err != nil || res.Status != "resolved" {
		t.Fatalf("approval.respond: %+v %v, want resolved", res, err)
	}
	if mc := gt.AwaitComplete(t, v3, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
		t.Errorf("turn outcome %q, want completed", mc.Outcome)
	}
	if exists(owned) {
		t.Errorf("the owned dir still exists after consent")
	}
	final := gt.Resume(t, v3, snap.SessionID)
	if !hasAssistant(final.Messages, "APPROVAL_FINISHED") {
		t.Errorf("history lacks the final assistant message: %+v", final.Messages)
	}
}

func hasAssistant(msgs []protocol.Message, text string) bool {
	return slices.ContainsFunc(msgs, func(m protocol.Message) bool { return m.Role == "assistant" && strings.Contains(m.Content, text) })
}

// TestApprovalDeny: a denied command never runs; the model sees the denial
// as a tool result and the turn completes.
func TestApprovalDeny(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := gt.Cwd(t)
	owned := ownedDir(t, dir)
	f.Turns.Set("Remove it", modeltest.ToolCall("terminal", gt.TerminalArgs("rm -r -- "+owned)), modeltest.Text("DENY_FINISHED"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("deny"), Cwd: &dir})
	rc := gt.Submit(t, v, snap.SessionID, "s1", "Remove it")
	p := gt.AwaitPrompt(t, v, wait)
	if _, err := v.RespondApproval(ctx, protocol.ApprovalRespondParams{SessionID: snap.SessionID,
		ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Choice: "maybe"}); gt.Reason(err) != protocol.ReasonInvalidParams {
		t.Errorf("a choice not offered: err %v, want invalid_params", err)
	}
	res, err := v.RespondApproval(ctx, protocol.ApprovalRespondParams{SessionID: snap.SessionID,
		ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Choice: protocol.ChoiceDeny})
	if err != nil || res.Status != "resolved" {
		t.Fatalf("deny: %+v %v", res, err)
	}
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
		t.Errorf("outcome %q, want completed", mc.Outcome)
	}
	if !exists(owned) {
		t.Errorf("a denied command ran")
	}
	reqs := gt.RequestsFor(f.Model, "Remove it")
	if len(reqs) != 2 || len(reqs[1].ToolResults()) != 1 {
		t.Fatalf("model requests %d; want 2, the second with one tool result", len(reqs))
	}
	if again, err := v.RespondApproval(ctx, protocol.ApprovalRespondParams{SessionID: snap.SessionID,
		ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Choice: protocol.ChoiceOnce}); err == nil && again.Status != "already_resolved" {
		t.Errorf("a second answer: %+v, want already_resolved or an error", again)
	}
}

// TestClarify: docs/protocol.md#clarify. The answer reaches the next model
// request; a second answer never replaces it.
func TestClarify(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Turns.Set("Ask me",
		modeltest.ToolCall("clarify", `{"questions":[{"question":"Which colour?","choices":["green","red"]}]}`),
		modeltest.Text("CLARIFY_FINISHED"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	dir := gt.Cwd(t)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("clarify"), Cwd: &dir})
	rc := gt.Submit(t, v, snap.SessionID, "c1", "Ask me")
	p := gt.AwaitPrompt(t, v, wait)
	if p.Kind != "clarify" || p.Question != "Which colour?" {
		t.Errorf("clarify prompt %+v", p)
	}
	res, err := v.RespondClarify(ctx, protocol.ClarifyRespondParams{SessionID: snap.SessionID,
		ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Answer: "green"})
	if err != nil || res.Status != "resolved" {
		t.Fatalf("clarify.respond: %+v %v", res, err)
	}
	second, err := v.RespondClarify(ctx, protocol.ClarifyRespondParams{SessionID: snap.SessionID,
		ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Answer: "purple"})
	if err == nil && second.Status != "already_resolved" {
		t.Errorf("second answer: %+v, want already_resolved (or an error)", second)
	}
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
		t.Errorf("outcome %q", mc.Outcome)
	}
	reqs := gt.RequestsFor(f.Model, "Ask me")
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	tr := reqs[1].ToolResults()
	if len(tr) != 1 || !strings.Contains(tr[0].Content, "green") || strings.Contains(tr[0].Content, "purple") {
		t.Errorf("tool result the model saw: %+v; want green, never purple", tr)
	}
}
