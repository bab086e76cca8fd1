package operator

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// surface is one way of reaching the gateway as an operator.
type surface struct {
	name    string
	subject string
	open    func() *gt.Recorder // a new recorded viewer
}

// TestCrossSurface: docs/protocol.md#operator-scope with creator ∈ {native, dashboard}. The
// other surface attaches (sees the history), both submit the same
// submission_id with their own texts (two rows, per-submitter attribution,
// FIFO), both viewers disconnect and reconnect while an approval waits,
// and each turn's approval is answered from the surface that did not
// submit it. The creation receipt keeps the creator; the system message
// never changes; the private binding stays on the server.
func TestCrossSurface(t *testing.T) {
	t.Parallel()
	for _, creator := range []string{"native", "dashboard"} {
		t.Run("creator="+creator, func(t *testing.T) {
			t.Parallel()
			crossSurface(t, creator)
		})
	}
}

// crossTurns are the prompts and directories of one crossSurface run.
type crossTurns struct {
	dir, dirA, dirB     string
	hello, textA, textB string
}

func newCrossTurns(t *testing.T, f *gt.Fixture, creator, other string) crossTurns {
	ct := crossTurns{dir: gt.Cwd(t), hello: "hello from " + creator,
		textA: creator + ": remove the creator directory", textB: other + ": remove the other directory"}
	ct.dirA, ct.dirB = filepath.Join(ct.dir, "creator-owned"), filepath.Join(ct.dir, "other-owned")
	for _, d := range []string{ct.dirA, ct.dirB} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	f.Turns.Set(ct.hello, modeltest.Text("HELLO_DONE"))
	f.Turns.Set(ct.textA, modeltest.ToolCall("terminal", gt.TerminalArgs("rm -r -- "+ct.dirA)), modeltest.Text("A_DONE"))
	f.Turns.Set(ct.textB, modeltest.ToolCall("terminal", gt.TerminalArgs("rm -r -- "+ct.dirB)), modeltest.Text("B_DONE"))
	return ct
}

func crossSurface(t *testing.T, creator string) {
	f := gt.NewFixture(t, gt.Config{})
	d := f.Start()
	ctx := gt.Context(t, 2*wait)
	br := newBrowser(d.Identity().APIOrigin)
	br.link(t, d)
	surfaces := map[string]surface{
		"native":    {"native", nativeSubject(), func() *gt.Recorder { return nativeView(ctx, t, d) }},
		"dashboard": {"dashboard", dashboardSubject(), func() *gt.Recorder { return br.view(ctx, t) }},
	}
	other := map[string]string{"native": "dashboard", "dashboard": "native"}[creator]
	c, o := surfaces[creator], surfaces[other]
	ct := newCrossTurns(t, f, creator, other)
	w := &wire{}

	// The creator creates the session and runs a first turn.
	vc := c.open()
	var snap protocol.Snapshot
	w.must(t, vc, "session.create", protocol.SessionCreateParams{RequestID: gt.Ptr("cross-" + creator), Cwd: &ct.dir}, &snap)
	sid := snap.SessionID
	var r0 protocol.Receipt
	w.must(t, vc, "prompt.submit", protocol.PromptSubmitParams{SessionID: sid, SubmissionID: gt.Ptr("hello"), Text: ct.hello}, &r0)
	if mc := gt.AwaitComplete(t, vc, r0.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("first turn outcome %q", mc.Outcome)
	}

	// The other surface attaches and sees the history.
	vo := o.open()
	var so protocol.Snapshot
	w.must(t, vo, "session.resume", protocol.SessionResumeParams{SessionID: &sid}, &so)
	if so.SessionID != sid || !hasAssistant(so.Messages, "HELLO_DONE") {
		t.Fatalf("%s resume: session %s, messages %+v; want %s with the creator's history", other, so.SessionID, so.Messages, sid)
	}

	// Both submit with the same submission_id and their own texts.
	ra, rb := submitBoth(t, w, vc, vo, sid, ct)

	// The creator's turn waits for consent; both viewers go away and come back.
	pa := gt.AwaitPrompt(t, vc, wait)
	if !strings.Contains(pa.Command, ct.dirA) {
		t.Fatalf("first approval %+v, want the creator's command on %s", pa, ct.dirA)
	}
	_ = vc.Close()
	_ = vo.Close()
	vc2, vo2 := c.open(), o.open()
	for _, v := range []*gt.Recorder{vc2, vo2} {
		var s protocol.Snapshot
		w.must(t, v, "session.resume", protocol.SessionResumeParams{SessionID: &sid}, &s)
		checkReattached(t, s, pa, ra, rb, ct)
	}

	// Each approval is answered from the surface that did not submit it.
	respond(t, w, vo2, sid, pa)
	if mc := gt.AwaitComplete(t, vo2, ra.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted || mc.Text != "A_DONE" {
		t.Errorf("creator's turn: %+v, want completed A_DONE", mc)
	}
	pb := gt.Payload[protocol.Prompt](t, vc2.Await(t, wait, func(ev protocol.Event) bool {
		return ev.Type == protocol.EventApprovalRequest && !strings.Contains(string(ev.Payload), pa.PromptID)
	}))
	if !strings.Contains(pb.Command, ct.dirB) {
		t.Fatalf("second approval %+v, want the other's command on %s", pb, ct.dirB)
	}
	respond(t, w, vc2, sid, pb)
	if mc := gt.AwaitComplete(t, vc2, rb.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted || mc.Text != "B_DONE" {
		t.Errorf("other's turn: %+v, want completed B_DONE", mc)
	}
	checkSettledBy(t, vc2, pa.PromptID, o.subject)
	checkSettledBy(t, vc2, pb.PromptID, c.subject)
	for _, dir := range []string{ct.dirA, ct.dirB} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s still exists after its approval", dir)
		}
	}

	checkModelRequests(t, f.Model, ct)
	w.assertAbsent(t, binding, vc, vo, vc2, vo2)
	if code := d.Stop(); code != 0 {
		t.Fatalf("graceful stop: exit %d", code)
	}
	checkAttribution(t, f.Home, sid, c.subject, o.subject, r0, ra, rb)
}

// submitBoth submits "same-input" from the creator's and the other's viewer,
// checks the two receipts and that a retry by each returns its own row.
func submitBoth(t *testing.T, w *wire, vc, vo *gt.Recorder, sid string, ct crossTurns) (ra, rb protocol.Receipt) {
	t.Helper()
	w.must(t, vc, "prompt.submit", protocol.PromptSubmitParams{SessionID: sid, SubmissionID: gt.Ptr("same-input"), Text: ct.textA}, &ra)
	w.must(t, vo, "prompt.submit", protocol.PromptSubmitParams{SessionID: sid, SubmissionID: gt.Ptr("same-input"), Text: ct.textB}, &rb)
	if ra.AdmissionID == rb.AdmissionID || ra.AdmissionID == "" {
		t.Fatalf("same submission_id from two principals: admissions %q and %q, want two distinct rows", ra.AdmissionID, rb.AdmissionID)
	}
	if ra.Ref.SessionID != sid || rb.Ref.SessionID != sid || rb.Sequence <= ra.Sequence {
		t.Errorf("receipts %+v and %+v: want both on %s, the second later", ra, rb, sid)
	}
	var again protocol.Receipt
	w.must(t, vo, "prompt.submit", protocol.PromptSubmitParams{SessionID: sid, SubmissionID: gt.Ptr("same-input"), Text: ct.textB}, &again)
	if again.AdmissionID != rb.AdmissionID {
		t.Errorf("retry by the other surface: admission %s, want its own %s", again.AdmissionID, rb.AdmissionID)
	}
	w.must(t, vc, "prompt.submit", protocol.PromptSubmitParams{SessionID: sid, SubmissionID: gt.Ptr("same-input"), Text: ct.textA}, &again)
	if again.AdmissionID != ra.AdmissionID {
		t.Errorf("retry by the creator: admission %s, want its own %s", again.AdmissionID, ra.AdmissionID)
	}
	return ra, rb
}

// checkReattached: a viewer that came back mid-turn sees the same prompt
// and both admissions with their own texts.
func checkReattached(t *testing.T, s protocol.Snapshot, pa protocol.Prompt, ra, rb protocol.Receipt, ct crossTurns) {
	t.Helper()
	if len(s.Prompts) != 1 || s.Prompts[0].PromptID != pa.PromptID {
		t.Errorf("reattached prompts %+v, want only %s", s.Prompts, pa.PromptID)
	}
	texts := map[string]string{}
	for _, p := range s.Pending {
		texts[p.AdmissionID] = p.Text
	}
	if texts[ra.AdmissionID] != ct.textA || texts[rb.AdmissionID] != ct.textB {
		t.Errorf("reattached pending %+v, want %s=%q and %s=%q", s.Pending, ra.AdmissionID, ct.textA, rb.AdmissionID, ct.textB)
	}
}

func respond(t *testing.T, w *wire, v *gt.Recorder, sid string, p protocol.Prompt) {
	t.Helper()
	var res protocol.RespondResult
	w.must(t, v, "approval.respond", protocol.ApprovalRespondParams{SessionID: sid,
		ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Choice: protocol.ChoiceOnce}, &res)
	if res.Status != "resolved" {
		t.Fatalf("approval.respond %s: %+v, want resolved", p.PromptID, res)
	}
}

// checkSettledBy: approval.settled names the principal that answered.
func checkSettledBy(t *testing.T, v *gt.Recorder, promptID, subject string) {
	t.Helper()
	ev := v.Await(t, wait, func(ev protocol.Event) bool {
		return ev.Type == protocol.EventApprovalSettled && strings.Contains(string(ev.Payload), promptID)
	})
	if p := gt.Payload[protocol.ApprovalSettledPayload](t, ev); p.By != subject || p.Choice != protocol.ChoiceOnce {
		t.Errorf("approval.settled %+v, want choice once by %s", p, subject)
	}
}

// checkModelRequests: five requests (1 + 2 + 2), the turns in FIFO order
// each with its own text, one system message for all, no binding.
func checkModelRequests(t *testing.T, m *modeltest.Server, ct crossTurns) {
	t.Helper()
	reqs := m.Requests()
	var order []string
	for _, r := range reqs {
		order = append(order, r.LastUserText())
		if r.System() != reqs[0].System() {
			t.Errorf("model request %d: system message differs from the first:\n%q\n%q", r.N, r.System(), reqs[0].System())
		}
		for _, s := range []string{binding, `"principal_id"`, dashboardSubject()} {
			if strings.Contains(string(r.Raw), s) {
				t.Errorf("model request %d contains %q", r.N, s)
			}
		}
	}
	want := []string{ct.hello, ct.textA, ct.textA, ct.textB, ct.textB}
	if !slices.Equal(order, want) {
		t.Errorf("model requests by last user text %q, want %q (FIFO, own texts)", order, want)
	}
	if len(reqs) > 0 && !strings.Contains(reqs[0].System(), ct.dir) {
		t.Errorf("system message does not name the cwd %s", ct.dir)
	}
}

// checkAttribution reads the stopped daemon's database: each "same-input"
// row belongs to its submitter, both ran to completion in order, only the
// non-creator's row carries the binding, and the creation receipt keeps
// the creator.
func checkAttribution(t *testing.T, home, sid, creator, other string, r0, ra, rb protocol.Receipt) {
	t.Helper()
	db := gt.OpenDB(t, home)
	want := map[string]string{r0.AdmissionID: creator, ra.AdmissionID: creator, rb.AdmissionID: other}
	rows := gt.Admissions(t, db)
	if len(rows) != 3 {
		t.Fatalf("%d admission rows, want 3: %+v", len(rows), rows)
	}
	for _, a := range rows {
		if a.Principal != want[a.ID] || a.Target != sid || a.Status != protocol.StatusTerminal || a.Outcome.String != protocol.OutcomeCompleted {
			t.Errorf("admission %+v: want principal %q, target %s, terminal completed", a, want[a.ID], sid)
		}
	}
	if rows[1].ID != ra.AdmissionID || rows[2].ID != rb.AdmissionID || rows[1].Generation.Int64 >= rows[2].Generation.Int64 {
		t.Errorf("admission order %+v, want the creator's same-input before the other's", rows)
	}
	for id, wantBinding := range map[string]bool{ra.AdmissionID: false, rb.AdmissionID: true} {
		var payload string
		if err := db.QueryRow(`SELECT payload_json FROM session_admissions WHERE admission_id = ?`, id).Scan(&payload); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(payload, binding) && strings.Contains(payload, other); got != wantBinding {
			t.Errorf("admission %s payload %s: binding for %s present = %v, want %v", id, payload, other, got, wantBinding)
		}
	}
	raw, ok := gt.Meta(t, db, "gateway.local_policy.v1:"+sid)
	var receipt struct {
		PrincipalID string `json:"principal_id"`
	}
	if !ok || json.Unmarshal([]byte(raw), &receipt) != nil || receipt.PrincipalID != creator {
		t.Errorf("creation receipt principal_id %q (found %v), want the creator %s", receipt.PrincipalID, ok, creator)
	}
}
