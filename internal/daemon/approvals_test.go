package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// rmTwice scripts a turn that removes two directories with the same
// classifier pattern, then answers text.
func rmTwice(a, b, text string) []modeltest.Reply {
	return []modeltest.Reply{
		modeltest.ToolCall("terminal", mustJSON(map[string]string{"command": "rm -r -- " + a})),
		modeltest.ToolCall("terminal", mustJSON(map[string]string{"command": "rm -r -- " + b})),
		modeltest.Text(text),
	}
}

func dirs(t *testing.T, root string, names ...string) []string {
	t.Helper()
	var out []string
	for _, n := range names {
		p := filepath.Join(root, n)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func answerNext(t *testing.T, c *client.Client, sid, choice string) protocol.ApprovalRequestPayload {
	t.Helper()
	ctx := ctxT(t)
	ev, err := c.AwaitEvent(ctx, func(e protocol.Event) bool { return e.Type == protocol.EventApprovalRequest })
	if err != nil {
		t.Fatal(err)
	}
	var req protocol.ApprovalRequestPayload
	_ = json.Unmarshal(ev.Payload, &req)
	if _, err := c.RespondApproval(ctx, protocol.ApprovalRespondParams{SessionID: sid,
		ExecutionGeneration: req.ExecutionGeneration, PromptID: req.PromptID, Choice: choice}); err != nil {
		t.Fatal(err)
	}
	return req
}

// "session" remembers the pattern for the session; "always" writes it to
// command_allowlist, which later sessions read live.
func TestSessionAndAlwaysApprovals(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	ctx := ctxT(t)
	cwd := t.TempDir()
	ds := dirs(t, cwd, "a", "b", "c", "e", "f", "g")
	d.model.Script(append(append(rmTwice(ds[0], ds[1], "S_DONE"), rmTwice(ds[2], ds[3], "A_DONE")...), rmTwice(ds[4], ds[5], "L_DONE")...)...)
	c := d.connect()
	s1, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("s1"), Cwd: &cwd, Toolsets: &[]string{"terminal"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: s1.SessionID, SubmissionID: ptr("1"), Text: "one"}); err != nil {
		t.Fatal(err)
	}
	answerNext(t, c, s1.SessionID, protocol.ChoiceSession)
	awaitComplete(t, ctx, c, "S_DONE")
	if _, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: s1.SessionID, SubmissionID: ptr("2"), Text: "two"}); err != nil {
		t.Fatal(err)
	}
	awaitComplete(t, ctx, c, "A_DONE") // no prompt: the session approval covers the pattern
	s2, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("s2"), Cwd: &cwd, Toolsets: &[]string{"terminal"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: s2.SessionID, SubmissionID: ptr("3"), Text: "three"}); err != nil {
		t.Fatal(err)
	}
	answerNext(t, c, s2.SessionID, protocol.ChoiceAlways)
	awaitComplete(t, ctx, c, "L_DONE")
	for _, p := range ds {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s was not removed", p)
		}
	}
	cfg, _ := os.ReadFile(filepath.Join(d.home, "config.yaml"))
	if !strings.Contains(string(cfg), "command_allowlist") || !strings.Contains(string(cfg), "fake-model") {
		t.Fatalf("always did not append to command_allowlist (keeping the rest):\n%s", cfg)
	}
}

// A configured approval timeout denies (by "timeout"); a hardline command
// never reaches a viewer and never runs, even with yolo.
func TestApprovalTimeoutAndHardline(t *testing.T) {
	t.Parallel()
	d := startTest(t, "approvals: {mode: manual, timeout: 0.2}\n")
	ctx := ctxT(t)
	cwd := t.TempDir()
	keep := dirs(t, cwd, "keep")[0]
	d.model.Script(
		modeltest.ToolCall("terminal", mustJSON(map[string]string{"command": "rm -r -- " + keep})),
		modeltest.Text("T_DONE"),
		modeltest.ToolCall("terminal", mustJSON(map[string]string{"command": "rm -rf /"})),
		modeltest.Text("H_DONE"),
	)
	c := d.connect()
	s, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("to"), Cwd: &cwd, Toolsets: &[]string{"terminal"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: s.SessionID, SubmissionID: ptr("1"), Text: "x"}); err != nil {
		t.Fatal(err)
	}
	ev, err := c.AwaitEvent(ctx, func(e protocol.Event) bool { return e.Type == protocol.EventApprovalSettled })
	if err != nil {
		t.Fatal(err)
	}
	var settled protocol.ApprovalSettledPayload
	_ = json.Unmarshal(ev.Payload, &settled)
	if settled.By != "timeout" || settled.Choice != protocol.ChoiceDeny {
		t.Fatalf("settled: %+v", settled)
	}
	awaitComplete(t, ctx, c, "T_DONE")
	if _, err := os.Stat(keep); err != nil {
		t.Fatal("a timed-out approval ran the command")
	}
	y, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("yolo"), Cwd: &cwd, Toolsets: &[]string{"terminal"}, Yolo: ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: y.SessionID, SubmissionID: ptr("2"), Text: "y"}); err != nil {
		t.Fatal(err)
	}
	awaitComplete(t, ctx, c, "H_DONE")
	reqs := d.model.Requests()
	last := reqs[len(reqs)-1].ToolResults()
	if len(last) == 0 || !strings.Contains(strings.ToLower(last[len(last)-1].Content), "block") {
		t.Fatalf("the model was not told the hardline command was blocked: %+v", last)
	}
}
