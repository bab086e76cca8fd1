package worker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/tools"
)

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// dangerousTurn scripts: a terminal call that needs approval (it removes
// victim, then creates marker), a clarify, and a final answer.
func dangerousTurn(t *testing.T, srv *modeltest.Server) (spec Spec, victim, marker string) {
	spec, victim, marker = turnSpec(t, srv)
	srv.Script(
		modeltest.ToolCall("terminal", `{"command":"rm -r -- '`+victim+`' && touch '`+marker+`'"}`),
		modeltest.ToolCall("clarify", `{"questions":[{"question":"Which colour?","choices":["red","blue"]}]}`),
		modeltest.Reply{Text: "done in blue", Chunk: 3, Reasoning: "thinking"},
	)
	return spec, victim, marker
}

// turnSpec is a spec against srv in a fresh cwd holding the directory victim.
func turnSpec(t *testing.T, srv *modeltest.Server) (spec Spec, victim, marker string) {
	cwd := t.TempDir()
	victim, marker = filepath.Join(cwd, "victim"), filepath.Join(cwd, "marker")
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	spec = Spec{BaseURL: srv.URL(), APIKey: "sk-spec", Model: "fake-1", Stream: true, MaxTurns: 10,
		System: "be brief", Input: "tidy up", Toolsets: []string{"terminal", "clarify"},
		Cwd: cwd, SessionID: "s1",
		History: []model.Message{{Role: model.RoleUser, Content: "earlier"}, {Role: model.RoleAssistant, Content: "ok"}}}
	return spec, victim, marker
}

func TestServeEndToEnd(t *testing.T) {
	t.Parallel()
	for _, allow := range []bool{true, false} {
		t.Run("allow="+strconv.FormatBool(allow), func(t *testing.T) {
			t.Parallel()
			srv := modeltest.New(t)
			spec, victim, marker := dangerousTurn(t, srv)
			h := newFakeHost()
			h.approve = func(context.Context, tools.ApprovalRequest) (bool, error) {
				if exists(marker) || !exists(victim) {
					t.Error("the command ran before the host's consent")
				}
				return allow, nil
			}
			h.ask = func(context.Context, tools.Question) (string, error) { return "blue", nil }
			res := serveInProcess(testCtx(t), t, spec, h)
			if res.Outcome != agent.OutcomeCompleted || res.Text != "done in blue" || res.Rounds != 3 || res.Err != nil || res.Usage.TotalTokens == 0 {
				t.Fatalf("result = %+v", res)
			}
			if exists(marker) != allow || exists(victim) == allow {
				t.Fatalf("allow=%v: marker %v, victim %v", allow, exists(marker), exists(victim))
			}
			checkRequests(t, srv, allow)
			checkHost(t, h, allow)
		})
	}
}

func checkRequests(t *testing.T, srv *modeltest.Server, allow bool) {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	r0 := reqs[0]
	if r0.Header.Get("Authorization") != "Bearer sk-spec" || r0.Model != "fake-1" || !r0.Stream ||
		r0.System() != "be brief" || len(r0.Messages) != 4 || r0.LastUserText() != "tidy up" ||
		!r0.HasTool("terminal") || !r0.HasTool("clarify") || len(r0.Tools) != 2 {
		t.Fatalf("first request: %+v", r0)
	}
	term := reqs[1].ToolResults()
	if len(term) != 1 || strings.Contains(term[0].Content, "denied by the user") == allow {
		t.Fatalf("terminal result seen by the model (allow=%v): %+v", allow, term)
	}
	clar := reqs[2].ToolResults()
	if len(clar) != 2 || !strings.Contains(clar[1].Content, `"Which colour?":"blue"`) {
		t.Fatalf("clarify result seen by the model: %+v", clar)
	}
}

func checkHost(t *testing.T, h *fakeHost, allow bool) {
	t.Helper()
	var roles []string
	for _, m := range h.messages() {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "user,assistant,tool,assistant,tool,assistant" {
		t.Fatalf("recorded messages %s", got)
	}
	msgs := h.messages()
	if last := msgs[5]; last.Content != "done in blue" || last.Reasoning != "thinking" {
		t.Fatalf("last message %+v (reasoning must survive the pipe)", last)
	}
	if len(msgs[1].ToolCalls) != 1 || msgs[2].ToolCallID != msgs[1].ToolCalls[0].ID {
		t.Fatalf("tool call / result pairing lost: %+v %+v", msgs[1], msgs[2])
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.approvals) != 1 || h.approvals[0].Pattern != "rm_recursive" || h.approvals[0].Description == "" {
		t.Fatalf("approvals %+v", h.approvals)
	}
	if len(h.questions) != 1 || h.questions[0].Question != "Which colour?" || len(h.questions[0].Choices) != 2 {
		t.Fatalf("questions %+v", h.questions)
	}
	if (len(h.started) == 1 && len(h.exited) == 1 && h.started[0] == h.exited[0]) != allow {
		t.Fatalf("allow=%v: tool processes started %v exited %v", allow, h.started, h.exited)
	}
	for _, want := range []string{"tool_start:terminal", "tool_complete:clarify:false", "text:don", "reasoning:thi"} {
		if !hasEvent(h.events, want) {
			t.Fatalf("no %q event in %v", want, h.events)
		}
	}
}

func TestServeMessageErrorFailsTurn(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	srv.Script(modeltest.ToolCall("terminal", `{"command":"touch never"}`))
	h := newFakeHost()
	h.messageErr = map[string]error{model.RoleAssistant: errors.New("disk full")}
	cwd := t.TempDir()
	res := serveInProcess(testCtx(t), t, Spec{BaseURL: srv.URL(), Model: "m", Input: "go",
		Toolsets: []string{"terminal"}, Cwd: cwd}, h)
	if res.Outcome != agent.OutcomeFailed || res.Err == nil || !strings.Contains(res.Err.Error(), "disk full") {
		t.Fatalf("result = %+v", res)
	}
	if exists(filepath.Join(cwd, "never")) {
		t.Fatal("the tool ran although recording its assistant message failed")
	}
}

func TestServeInterruptWhileAwaitingApproval(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	spec, victim, marker := dangerousTurn(t, srv)
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	h := newFakeHost()
	h.approve = func(actx context.Context, _ tools.ApprovalRequest) (bool, error) {
		cancel() // the viewer interrupts instead of answering
		<-actx.Done()
		return false, actx.Err()
	}
	res := serveInProcess(ctx, t, spec, h)
	if res.Outcome != agent.OutcomeInterrupted || res.Err == nil {
		t.Fatalf("result = %+v", res)
	}
	if exists(marker) || !exists(victim) {
		t.Fatal("the command ran after an interrupt")
	}
	msgs := h.messages()
	if last := msgs[len(msgs)-1]; last.Role != model.RoleTool || !strings.Contains(last.Content, "interrupted") {
		t.Fatalf("the interrupted call has no closing tool message: %+v", msgs)
	}
}

func TestServeUnknownToolsetFails(t *testing.T) {
	t.Parallel()
	res := serveInProcess(testCtx(t), t, Spec{Toolsets: []string{"nope"}}, newFakeHost())
	if res.Outcome != agent.OutcomeFailed || res.Err == nil || !strings.Contains(res.Err.Error(), "nope") {
		t.Fatalf("result = %+v", res)
	}
}

func TestServeBadSpec(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	err := Serve(context.Background(), strings.NewReader("{not json\n"), &out)
	if err == nil {
		t.Fatal("Serve accepted a bad spec")
	}
	f, derr := decodeFrame([]byte(strings.TrimSpace(out.String())), validWorkerFrame)
	if derr != nil || f.Kind != kindResult || f.Result.Outcome != agent.OutcomeFailed || !strings.Contains(f.Result.Error, "spec") {
		t.Fatalf("reported %q (%v)", out.String(), derr)
	}
}

func TestServeUIEventAndHistory(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	srv.Script(modeltest.ToolCall("ui_notify", `{"message":"built","level":"warning"}`), modeltest.Text("ok"))
	h := newFakeHost()
	history := []model.Message{{Role: model.RoleUser, Content: "earlier"},
		{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "old", Function: model.FunctionCall{Name: "terminal", Arguments: "{}"}}}},
		{Role: model.RoleTool, ToolCallID: "old", Name: "terminal", Content: "out"}}
	res := serveInProcess(testCtx(t), t, Spec{BaseURL: srv.URL(), Model: "m", Input: "notify",
		Toolsets: []string{"desktop_ui"}, Cwd: t.TempDir(), History: history}, h)
	if res.Outcome != agent.OutcomeCompleted || res.Text != "ok" {
		t.Fatalf("result = %+v", res)
	}
	h.mu.Lock()
	got := string(h.ui[tools.UINotify])
	h.mu.Unlock()
	if got != `{"message":"built","level":"warning"}` {
		t.Fatalf("ui payload %q; events %v", got, h.snapshot())
	}
	r0 := srv.Requests()[0]
	if len(r0.Messages) != 4 || len(r0.Messages[1].ToolCalls) != 1 || r0.Messages[1].ToolCalls[0].ID != "old" || r0.Messages[2].ToolCallID != "old" {
		t.Fatalf("history did not survive the spec: %+v", r0.Messages)
	}
}
