package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	mdl "github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// titleRequest reports whether r is the automatic title request.
func titleRequest(r *modeltest.Request) bool {
	return strings.HasPrefix(r.System(), "Write a short title")
}

// titledFixture answers title requests with title and everything else from
// the fixture's script.
func titledFixture(t *testing.T, cfg gt.Config, title modeltest.Reply) *gt.Fixture {
	t.Helper()
	cfg.Titles = true
	f := gt.NewFixture(t, cfg)
	f.Model.Handle(func(r *modeltest.Request) modeltest.Reply {
		if titleRequest(r) {
			return title
		}
		return f.Turns.Reply(r)
	})
	return f
}

func countRequests(m *modeltest.Server, match func(*modeltest.Request) bool) int {
	n := 0
	for _, r := range m.Requests() {
		if match(r) {
			n++
		}
	}
	return n
}

// TestTitleAndUsage: issue 14 items 2 and 3 through the real binary. A turn
// of two model responses (one reporting cached prompt tokens) and the title
// request after it: message.complete carries the turn's usage, the title
// (cleaned of its label, quotes, a bidi control and the trailing period) is
// journaled with a revision bump and shows in session.info, its event and
// session.list; the session's usage is the sum of all three responses and
// its cost follows config.yaml pricing. A second turn asks for no title.
func TestTitleAndUsage(t *testing.T) {
	t.Parallel()
	pricing := "pricing: {test-model: {input: 2, output: 8, cached_input: 0.5}}\n"
	titleUsage := &mdl.Usage{PromptTokens: 40, CompletionTokens: 6, TotalTokens: 46}
	f := titledFixture(t, gt.Config{Streaming: true, Extra: pricing},
		modeltest.Reply{Text: "Title: \"Fix the flaky\u202e build.\"\nIt is about a build.", Usage: titleUsage})
	u1 := &mdl.Usage{PromptTokens: 1000, CompletionTokens: 20, TotalTokens: 1020, CachedTokens: 600}
	u2 := &mdl.Usage{PromptTokens: 1100, CompletionTokens: 30, TotalTokens: 1130}
	call := modeltest.ToolCall("terminal", gt.TerminalArgs("echo probe"))
	call.Usage = u1
	answer := modeltest.Text("The build is fixed.")
	answer.Usage = u2
	f.Turns.Set("fix the build", call, answer)
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	dir := gt.Cwd(t)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("titled"), Cwd: &dir,
		Toolsets: &[]string{"terminal"}, Yolo: gt.Ptr(true)})
	sid := snap.SessionID
	if snap.Info.Title != "" || snap.Info.Usage.TotalTokens != 0 || snap.Info.Usage.CostUSD == nil || *snap.Info.Usage.CostUSD != 0 {
		t.Fatalf("fresh session info %+v", snap.Info)
	}
	rc := gt.Submit(t, v, sid, "t1", "fix the build")
	mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait)
	if mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("turn %q (%s)", mc.Outcome, mc.Error)
	}
	const wantTurn = `{"cached_tokens":600,"completion_tokens":50,"prompt_tokens":2100,"total_tokens":2150}`
	if string(mc.Usage) != wantTurn {
		t.Errorf("message.complete usage %s, want %s", mc.Usage, wantTurn)
	}
	ev := v.Await(t, wait, func(e protocol.Event) bool {
		return e.Type == protocol.EventSessionInfo && strings.Contains(string(e.Payload), `"title":"Fix the flaky build"`)
	})
	if !strings.Contains(string(ev.Payload), `"total_tokens":2196`) {
		t.Errorf("title's session.info event lacks the usage: %s", ev.Payload)
	}
	info, err := v.SessionInfo(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	// 2140 prompt (600 cached), 56 completion: 1540×$2 + 600×$0.5 + 56×$8 per Mtok.
	cost := (1540*2 + 600*0.5 + 56*8) / 1e6
	want := protocol.Usage{PromptTokens: 2140, CompletionTokens: 56, CachedTokens: 600, TotalTokens: 2196, CostUSD: &cost}
	if info.Title != "Fix the flaky build" || info.Usage.PromptTokens != want.PromptTokens ||
		info.Usage.CompletionTokens != want.CompletionTokens || info.Usage.CachedTokens != want.CachedTokens ||
		info.Usage.TotalTokens != want.TotalTokens || info.Usage.CostUSD == nil || *info.Usage.CostUSD != cost {
		t.Errorf("session.info title %q usage %+v (cost %v), want %+v (cost %v)", info.Title, info.Usage, deref(info.Usage.CostUSD), want, cost)
	}
	list, err := v.ListSessions(ctx, protocol.SessionListParams{Scope: gt.Ptr("stored")})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].Title != "Fix the flaky build" {
		t.Errorf("session.list = %+v, %v", list, err)
	}
	var titleReq *modeltest.Request
	for _, r := range f.Model.Requests() {
		if titleRequest(r) {
			titleReq = r
		}
	}
	if titleReq == nil || titleReq.Model != "test-model" || titleReq.Stream || len(titleReq.Tools) != 0 ||
		!titleReq.ContainsText("fix the build") || !titleReq.ContainsText("The build is fixed.") {
		t.Fatalf("title request %+v", titleReq)
	}
	for _, args := range [][]string{{"sessions", "info", sid}, {"sessions", "list"}} {
		cmd := exec.Command(f.Bin, args...)
		cmd.Env = append(os.Environ(), "HERMES_HOME="+f.Home)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("hermes %v: %v\n%s", args, err, out)
		}
		for _, want := range map[bool][]string{
			true:  {"title:     Fix the flaky build", "usage:     2196 tokens (2140 in, 600 cached, 56 out), $0.0038"},
			false: {"Fix the flaky build"},
		}[args[1] == "info"] {
			if !strings.Contains(string(out), want) {
				t.Errorf("hermes %v lacks %q:\n%s", args, want, out)
			}
		}
	}
	db := gt.OpenDB(t, f.Home)
	if rev := gt.Count(t, db, "SELECT runtime_revision FROM sessions WHERE id = '"+sid+"'"); rev != 2 {
		t.Errorf("revision %d, want 2 (settle, title)", rev)
	}

	rc2 := gt.Submit(t, v, sid, "t2", "and again")
	if mc := gt.AwaitComplete(t, v, rc2.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("second turn %q", mc.Outcome)
	}
	if n := countRequests(f.Model, titleRequest); n != 1 {
		t.Errorf("%d title requests, want 1", n)
	}
	if n := len(f.Model.Requests()); n != 4 {
		t.Errorf("%d model requests, want 4 (2 + title + 1)", n)
	}
}

// TestTitleFailureNeverFailsTheTurn: a title request answered 500 (and, in
// another session, an answer that is nothing but control characters)
// leaves the title empty; the turns complete, and the session is not
// asked again by this daemon.
func TestTitleFailureNeverFailsTheTurn(t *testing.T) {
	t.Parallel()
	for name, reply := range map[string]modeltest.Reply{
		"http 500":     {Status: 500},
		"only control": {Text: "\x1b\x07\u202e\u2066\n\t\"\""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := titledFixture(t, gt.Config{}, reply)
			d := f.Start()
			ctx := gt.Context(t, wait)
			v := d.View(ctx)
			dir := gt.Cwd(t)
			snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("untitled"), Cwd: &dir})
			for _, sub := range []string{"a", "b"} {
				rc := gt.Submit(t, v, snap.SessionID, sub, "hello "+sub)
				if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
					t.Fatalf("turn %s: %q (%s)", sub, mc.Outcome, mc.Error)
				}
			}
			info, err := v.SessionInfo(ctx, snap.SessionID)
			if err != nil || info.Title != "" {
				t.Fatalf("info %+v, %v; want no title", info, err)
			}
			if n := countRequests(f.Model, titleRequest); n != 1 {
				t.Errorf("%d title requests, want 1", n)
			}
		})
	}
}

// TestNoTitleForTitledOrSafeMode: a session created with a title, and a
// safe_mode session, are never asked for one.
func TestNoTitleForTitledOrSafeMode(t *testing.T) {
	t.Parallel()
	f := titledFixture(t, gt.Config{}, modeltest.Text("Never used"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	dir := gt.Cwd(t)
	titled := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("named"), Cwd: &dir, Title: gt.Ptr("Mine")})
	safe := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("safe"), Cwd: &dir,
		SafeMode: gt.Ptr(true), Toolsets: &[]string{"terminal"}, Model: gt.Ptr("test-model"), BaseURL: gt.Ptr(f.Model.URL())})
	for _, sid := range []string{titled.SessionID, safe.SessionID} {
		rc := gt.Submit(t, v, sid, "x", "hello")
		if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
			t.Fatalf("%s: %q (%s)", sid, mc.Outcome, mc.Error)
		}
	}
	if n := countRequests(f.Model, titleRequest); n != 0 {
		t.Errorf("%d title requests, want 0", n)
	}
	info, err := v.SessionInfo(ctx, titled.SessionID)
	if err != nil || info.Title != "Mine" {
		t.Errorf("titled session: %+v, %v", info, err)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
