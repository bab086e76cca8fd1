package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

func ptr[T any](v T) *T { return &v }

func TestCreateResumeListInfo(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	ctx := ctxT(t)
	cwd := t.TempDir()
	a := d.connect()
	snap, err := a.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("r1"), Cwd: &cwd, Source: ptr("tui")})
	if err != nil {
		t.Fatal(err)
	}
	if snap.SessionID != snap.StoredSessionID || snap.Info.Source != "tui" || !snap.Info.Lazy || snap.Info.Cwd != cwd {
		t.Fatalf("snapshot: %+v", snap)
	}
	again, err := a.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("r1"), Cwd: &cwd, Source: ptr("tui")})
	if err != nil || again.SessionID != snap.SessionID {
		t.Fatalf("repeat create: %v %v", again.SessionID, err)
	}
	if _, err := a.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("r1"), Cwd: &cwd, Source: ptr("gui")}); reason(err) != "invalid_params" {
		t.Fatalf("changed repeat: %v", err)
	}
	b := d.connect()
	res, err := b.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &snap.SessionID})
	if err != nil || res.SessionID != snap.SessionID {
		t.Fatalf("resume: %v", err)
	}
	list, err := b.ListSessions(ctx, protocol.SessionListParams{})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionID != snap.SessionID {
		t.Fatalf("list: %+v %v", list, err)
	}
	info, err := b.SessionInfo(ctx, snap.SessionID)
	if err != nil || info.Model != "fake-model" || info.DesktopProtocol != protocol.DesktopProtocol {
		t.Fatalf("info: %+v %v", info, err)
	}
}

func TestApprovalSurvivesViewers(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	ctx := ctxT(t)
	cwd := t.TempDir()
	owned := filepath.Join(cwd, "owned-removal")
	if err := os.MkdirAll(owned, 0o755); err != nil {
		t.Fatal(err)
	}
	d.model.Script(modeltest.ToolCall("terminal", mustJSON(map[string]string{"command": "rm -r -- '" + owned + "'"})), modeltest.Text("APPROVAL_FINISHED"))
	a := d.connect()
	snap, err := a.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("appr"), Cwd: &cwd, Toolsets: &[]string{"terminal"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Submit(ctx, protocol.PromptSubmitParams{SessionID: snap.SessionID, SubmissionID: ptr("first"), Text: "Remove owned fixture"}); err != nil {
		t.Fatal(err)
	}
	ev, err := a.AwaitEvent(ctx, func(e protocol.Event) bool { return e.Type == protocol.EventApprovalRequest })
	if err != nil {
		t.Fatal(err)
	}
	var req protocol.ApprovalRequestPayload
	_ = json.Unmarshal(ev.Payload, &req)
	_ = a.Close()
	if _, err := os.Stat(owned); err != nil {
		t.Fatal("removed before consent")
	}
	b := d.connect()
	res, err := b.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &snap.SessionID})
	if err != nil || len(res.Prompts) != 1 || res.Prompts[0].PromptID != req.PromptID {
		t.Fatalf("resume prompts: %+v %v", res.Prompts, err)
	}
	r, err := b.RespondApproval(ctx, protocol.ApprovalRespondParams{SessionID: snap.SessionID, ExecutionGeneration: req.ExecutionGeneration, PromptID: req.PromptID, Choice: "once"})
	if err != nil || r.Status != "resolved" {
		t.Fatalf("respond: %+v %v", r, err)
	}
	done, err := b.AwaitEvent(ctx, func(e protocol.Event) bool { return e.Type == protocol.EventMessageComplete })
	if err != nil {
		t.Fatal(err)
	}
	var mc protocol.MessageCompletePayload
	_ = json.Unmarshal(done.Payload, &mc)
	if mc.Outcome != "completed" || mc.Text != "APPROVAL_FINISHED" {
		t.Fatalf("complete: %+v", mc)
	}
	if _, err := os.Stat(owned); !os.IsNotExist(err) {
		t.Fatal("not removed after consent")
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
