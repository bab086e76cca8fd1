package e2e

import (
	"strings"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// A safe_mode turn runs in `hermes worker`: its tools see none of the
// daemon's environment (no keys, no HERMES_*), approvals still come from any
// viewer, and the profile key is never sent to the model.
func TestSafeModeRunsIsolated(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Env = []string{"OPENAI_API_KEY=sk-profile-secret", "SAFE_CANARY=visible-to-daemon"}
	dir := gt.Cwd(t)
	owned := ownedDir(t, dir)
	f.Turns.Set("isolated",
		modeltest.ToolCall("terminal", gt.TerminalArgs("env; rm -r -- "+owned)),
		modeltest.Text("SAFE_DONE"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("safe"), Cwd: &dir,
		Model: gt.Ptr("safe-model"), SafeMode: gt.Ptr(true), Toolsets: &[]string{"terminal"},
		BaseURL: gt.Ptr(f.Model.URL())}) // safe_mode ignores config.yaml: the endpoint is explicit
	rc := gt.Submit(t, v, snap.SessionID, "s1", "isolated")
	p := gt.AwaitPrompt(t, v, wait)
	if !exists(owned) {
		t.Fatal("ran before consent")
	}
	if _, err := v.RespondApproval(ctx, protocol.ApprovalRespondParams{SessionID: snap.SessionID,
		ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Choice: protocol.ChoiceOnce}); err != nil {
		t.Fatal(err)
	}
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted || mc.Text != "SAFE_DONE" {
		t.Fatalf("complete: %+v", mc)
	}
	if exists(owned) {
		t.Error("the approved command did not run")
	}
	var envOut string
	for _, r := range f.Model.Requests() {
		if auth := r.Header.Get("Authorization"); strings.Contains(auth, "sk-profile-secret") {
			t.Error("a safe_mode turn sent the profile key")
		}
		for _, m := range r.ToolResults() {
			envOut += m.Content
		}
	}
	if !strings.Contains(envOut, "PATH=") {
		t.Fatalf("no env output reached the model: %q", envOut)
	}
	for _, leak := range []string{"sk-profile-secret", "SAFE_CANARY", "HERMES_HOME"} {
		if strings.Contains(envOut, leak) {
			t.Errorf("the worker's tool saw %s", leak)
		}
	}
}
