package crash

import (
	"database/sql"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/faults"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// lineageSessions are the probe's logical sessions (docs/protocol.md#compression-and-reset): safe
// (safe_mode, compressed), reset (reset), unknown (a started turn and its
// follower), foreign (its receipt is made foreign while the daemon is down).
var lineageSessions = []string{"safe", "reset", "unknown", "foreign"}

// lineageTable is the exact final admission table (one row per submission).
var lineageTable = map[string]string{"warm-safe": "terminal", "warm-reset": "terminal", "started": "unknown",
	"follower": "queued", "reset": "terminal", "foreign": "queued", "safe": "terminal"}

// lineageTexts are the turns the model sees, once each; NEVER_REPLAY and
// FOREIGN_QUEUE never reach it.
var lineageTexts = []string{"WARM_HISTORY", "RESET_OLD", "BLOCK_STARTED", "RECOVER_SAFE", "RECOVER_RESET"}

const summaryText = "SUMMARY_OF_WARM"

// lineageProbe is the state of the probe beyond the world.
type lineageProbe struct {
	*world
	params    map[string]protocol.SessionCreateParams // session → original create params
	sids      map[string]string                       // session → logical id
	compacted [][2]string                             // (role, content) of the compressed transcript
	pids      []int
	epochs    []int64
}

// TestLineageProbe: docs/protocol.md#compression-and-reset (the real-daemon lineage probe) and the
// lineage invariants of §5. A queued input survives a compression of its
// session (life 1: the claim is blocked while the summary is held at the
// model, the daemon dies right after the commit) and a reset (life 2: the
// daemon serves but never schedules); a started turn held at the model is
// unknown and never re-sent, its follower stays queued; a receipt made
// foreign while the daemon is down refuses resume and compression and keeps
// its input queued. After config.yaml's defaults change, the two recovered
// inputs run exactly once with the frozen model, no tools and the frozen
// cwd, and the exact table holds after two restarts.
func TestLineageProbe(t *testing.T) {
	t.Parallel()
	// protect_first_n 1, protect_last_n 0: the two-message warm transcript
	// keeps WARM_HISTORY and has its answer summarized (one model call).
	p := &lineageProbe{
		world: newWorld(t, gt.Config{Model: "original", CLIToolsets: []string{},
			Extra: "compression: {enabled: true, threshold: 0.8, protect_first_n: 1, protect_last_n: 0}\n"}),
		params: map[string]protocol.SessionCreateParams{}, sids: map[string]string{},
	}
	hold, summaryHold := modeltest.NewBarrier(), modeltest.NewBarrier()
	t.Cleanup(hold.Release)
	t.Cleanup(summaryHold.Release)
	p.f.Turns.Set("WARM_HISTORY", modeltest.Text("WARM_ACK"))
	p.f.Turns.Set("RESET_OLD", modeltest.Text("RESET_ACK"))
	p.f.Turns.Set("BLOCK_STARTED", modeltest.Reply{Text: "never", Hold: hold})
	p.f.Turns.Set("RECOVER_SAFE", modeltest.Text("RECOVERY_ACK_RECOVER_SAFE"))
	p.f.Turns.Set("RECOVER_RESET", modeltest.Text("RECOVERY_ACK_RECOVER_RESET"))
	p.f.Model.Handle(func(r *modeltest.Request) modeltest.Reply {
		if isSummary(r) {
			return modeltest.Reply{Text: summaryText, Hold: summaryHold}
		}
		return p.f.Turns.Reply(r)
	})

	p.lifeCompress(hold, summaryHold)
	p.checkCompressed()
	p.lifeReset()
	p.checkReset()
	p.damageReceipt(p.sids["foreign"], `UPDATE state_meta SET value = json_set(value, '$.profile_id', 'foreign') WHERE key = ?`)
	p.changeDefaults()

	e := expect{status: lineageTable, first: map[string]int{"NEVER_REPLAY": 0, "FOREIGN_QUEUE": 0}}
	for _, text := range lineageTexts {
		e.first[text] = 1
	}
	p.life()
	for _, name := range []string{"safe", "reset"} {
		p.awaitStatus(p.sids[name], p.hist[name].admission, protocol.StatusTerminal)
	}
	p.checkRecovered()
	p.checkRefused()
	fp := p.check(e)
	p.checkFinal()
	p.life()
	p.checkRecovered()
	p.checkRefused()
	if got := p.check(e); got != fp {
		t.Errorf("I11: the second restart changed the state:\n%s\nthen\n%s", fp, got)
	}
	p.checkFinal()
	p.checkLives()
}

func isSummary(r *modeltest.Request) bool { return strings.HasPrefix(r.System(), "Summarize") }

// lifeCompress is the first daemon: it creates the sessions, runs the warm
// turns, holds BLOCK_STARTED at the model with a queued follower, refuses to
// compress under the running turn, and compresses the safe session while
// RECOVER_SAFE is queued behind it. It dies right after the compression
// commits, before the FIFO can claim RECOVER_SAFE.
func (p *lineageProbe) lifeCompress(hold, summaryHold *modeltest.Barrier) {
	t := p.t
	d := p.start(faults.CompressAfterCommit)
	p.record(d)
	for _, name := range lineageSessions {
		p.params[name] = p.createParams(name)
		p.sids[name] = gt.Create(t, p.v, p.params[name]).SessionID
	}
	for _, warm := range [][2]string{{"safe", "WARM_HISTORY"}, {"reset", "RESET_OLD"}} {
		rc := p.mustSubmit(p.sids[warm[0]], "warm-"+warm[0], warm[1])
		if mc := gt.AwaitComplete(t, p.v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
			t.Fatalf("warm turn %s: %+v", warm[1], mc)
		}
	}
	p.mustSubmit(p.sids["unknown"], "started", "BLOCK_STARTED")
	if err := hold.AwaitWaiting(gt.Context(t, wait), 1); err != nil {
		t.Fatal(err)
	}
	p.mustSubmit(p.sids["unknown"], "follower", "NEVER_REPLAY")
	if _, err := p.mutate("unknown", "busy", "compress"); gt.Reason(err) != protocol.ReasonAdmissionConflict {
		t.Errorf("compress under a running turn: %v, want %s", err, protocol.ReasonAdmissionConflict)
	}

	// A connection answers its requests in order: the compression, which
	// waits for the held summary, goes on a second viewer.
	compressed := make(chan error, 1)
	snap := gt.Resume(t, p.v, p.sids["safe"])
	mv := d.View(gt.Context(t, wait))
	go func() {
		_, err := mv.MutateSession(gt.Context(t, wait), protocol.SessionMutateParams{SessionID: p.sids["safe"],
			RequestID: "compress-safe", ExpectedRevision: snap.Revision, Operation: "compress", Payload: json.RawMessage(`{}`)})
		compressed <- err
	}()
	if err := summaryHold.AwaitWaiting(gt.Context(t, wait), 1); err != nil {
		t.Fatal(err)
	}
	if rc := p.mustSubmit(p.sids["safe"], "safe", "RECOVER_SAFE"); rc.Status != protocol.StatusQueued {
		t.Fatalf("RECOVER_SAFE admitted as %s, want queued", rc.Status)
	}
	summaryHold.Release()
	p.crashed()
	if err := <-compressed; err == nil {
		t.Error("session.mutate compress answered although the daemon died after its commit")
	}
}

// createParams is the frozen request of a session: its own cwd and model
// frozen-<name>, no tools; safe is safe_mode with the explicit endpoint
// (safe_mode ignores config.yaml).
func (p *lineageProbe) createParams(name string) protocol.SessionCreateParams {
	cp := protocol.SessionCreateParams{RequestID: gt.Ptr("lineage-" + name), Source: gt.Ptr("gui"),
		Cwd: gt.Ptr(gt.Cwd(p.t)), Model: gt.Ptr("frozen-" + name), Toolsets: &[]string{}}
	if name == "safe" {
		cp.SafeMode, cp.BaseURL = gt.Ptr(true), gt.Ptr(p.f.Model.URL())
	}
	return cp
}

func (p *lineageProbe) mutate(name, requestID, op string) (protocol.SessionMutateResult, error) {
	sid := p.sids[name]
	snap := gt.Resume(p.t, p.v, sid)
	return p.v.MutateSession(gt.Context(p.t, wait), protocol.SessionMutateParams{SessionID: sid, RequestID: requestID,
		ExpectedRevision: snap.Revision, Operation: op, Payload: json.RawMessage(`{}`)})
}

func (p *lineageProbe) record(d *gt.Daemon) {
	p.pids = append(p.pids, d.PID())
	p.epochs = append(p.epochs, d.Identity().AuthorityEpoch)
}

// life starts the next daemon without faults.
func (p *lineageProbe) life() { p.record(p.restart()) }

// checkCompressed: the compression committed as one publication; the
// queued RECOVER_SAFE and the held turn's rows are untouched.
func (p *lineageProbe) checkCompressed() {
	t := p.t
	p.checkLineage(p.sids["safe"], true, "compress")
	db := gt.OpenDB(t, p.f.Home)
	defer db.Close()
	target := p.checkTarget(db, "safe", "compression")
	rows, err := db.Query(`SELECT role, content FROM messages WHERE session_id = ? ORDER BY id`, target)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var m [2]string
		if err := rows.Scan(&m[0], &m[1]); err != nil {
			t.Fatal(err)
		}
		p.compacted = append(p.compacted, m)
	}
	if len(p.compacted) != 2 || p.compacted[0] != [2]string{"user", "WARM_HISTORY"} ||
		!strings.HasPrefix(p.compacted[1][1], "[Summary of the earlier conversation]") || !strings.Contains(p.compacted[1][1], summaryText) {
		t.Errorf("compressed transcript %q, want the protected WARM_HISTORY and the summary", p.compacted)
	}
	byReq := gt.ByRequest(t, gt.Admissions(t, db))
	for sub, want := range map[string]string{"warm-safe": "terminal", "warm-reset": "terminal",
		"started": "started", "follower": "queued", "safe": "queued"} {
		if got := byReq[sub].Status; got != want {
			t.Errorf("after the compression: %s is %q, want %q", sub, got, want)
		}
	}
	if n := gt.Count(t, db, `SELECT count(*) FROM sessions WHERE parent_session_id = ?`, p.sids["unknown"]); n != 0 {
		t.Errorf("the refused compression of the running session left %d child rows", n)
	}
}

// checkTarget asserts the published lineage of session name: the logical
// row ended with reason, the receipt's physical target is another row with
// the frozen cwd and model (the route names it too: checkLineage).
func (p *lineageProbe) checkTarget(db *sql.DB, name, reason string) string {
	t := p.t
	sid := p.sids[name]
	rc := readReceipt(t, db, sid)
	if rc.Entry.SessionID == sid {
		t.Fatalf("%s: receipt entry.session_id is still the logical id", name)
	}
	var end sql.NullString
	if err := db.QueryRow(`SELECT end_reason FROM sessions WHERE id = ?`, sid).Scan(&end); err != nil {
		t.Fatal(err)
	}
	if end.String != reason {
		t.Errorf("%s: logical row end_reason %q, want %q", name, end.String, reason)
	}
	var cwd, model string
	var tipEnd sql.NullString
	if err := db.QueryRow(`SELECT cwd, model, end_reason FROM sessions WHERE id = ?`, rc.Entry.SessionID).Scan(&cwd, &model, &tipEnd); err != nil {
		t.Fatal(err)
	}
	if cwd != *p.params[name].Cwd || model != *p.params[name].Model || tipEnd.Valid && tipEnd.String != "" {
		t.Errorf("%s: target row cwd %q model %q end %q, want %q %q and open", name, cwd, model, tipEnd.String,
			*p.params[name].Cwd, *p.params[name].Model)
	}
	return rc.Entry.SessionID
}

// lifeReset is the second daemon: it serves but never schedules (it hangs
// at recovery.before_schedule), so queued rows stay queued while RECOVER_RESET
// is admitted and its session reset, and FOREIGN_QUEUE is admitted. Attach
// shows the compressed history and the pending row of the safe session.
func (p *lineageProbe) lifeReset() {
	t := p.t
	p.record(p.start(faults.RecoveryBeforeSchedule + ":hang"))
	p.checkUnknown()
	snap := gt.Resume(t, p.v, p.sids["safe"])
	if got := transcript(snap); !slices.Equal(got, p.compacted) {
		t.Errorf("attach after compression: history %q, want the compressed %q", got, p.compacted)
	}
	p.checkPending(snap, "safe")

	gt.Resume(t, p.v, p.sids["reset"])
	if rc := p.mustSubmit(p.sids["reset"], "reset", "RECOVER_RESET"); rc.Status != protocol.StatusQueued {
		t.Fatalf("RECOVER_RESET admitted as %s, want queued", rc.Status)
	}
	res, err := p.mutate("reset", "reset-reset", "reset")
	if err != nil || res.SessionID != p.sids["reset"] || res.MessageCount == nil || *res.MessageCount != 0 {
		t.Fatalf("reset: %+v %v", res, err)
	}
	snap = gt.Resume(t, p.v, p.sids["reset"])
	if snap.MessageCount != 0 || len(snap.Messages) != 0 {
		t.Errorf("history after reset: %d messages %q, want none", snap.MessageCount, transcript(snap))
	}
	p.checkPending(snap, "reset")

	gt.Resume(t, p.v, p.sids["foreign"])
	if rc := p.mustSubmit(p.sids["foreign"], "foreign", "FOREIGN_QUEUE"); rc.Status != protocol.StatusQueued {
		t.Fatalf("FOREIGN_QUEUE admitted as %s, want queued", rc.Status)
	}
	p.f.D.Kill()
}

// transcript is the (role, content) list of a snapshot's messages.
func transcript(snap protocol.Snapshot) [][2]string {
	out := make([][2]string, 0, len(snap.Messages))
	for _, m := range snap.Messages {
		out = append(out, [2]string{m.Role, m.Content})
	}
	return out
}

// checkPending: the session's only pending row is the queued submission sub.
func (p *lineageProbe) checkPending(snap protocol.Snapshot, sub string) {
	p.t.Helper()
	if len(snap.Pending) != 1 || snap.Pending[0].InputID != sub || snap.Pending[0].Status != protocol.StatusQueued ||
		snap.Pending[0].AdmissionID != p.hist[sub].admission {
		p.t.Errorf("pending %+v, want only %s queued", snap.Pending, sub)
	}
}

// checkUnknown: the held turn is unknown and blocks its follower.
func (p *lineageProbe) checkUnknown() {
	p.t.Helper()
	snap := gt.Resume(p.t, p.v, p.sids["unknown"])
	var got []string
	for _, a := range snap.Pending {
		got = append(got, a.InputID+":"+a.Status)
	}
	if want := []string{"started:unknown", "follower:queued"}; !slices.Equal(got, want) {
		p.t.Errorf("unknown session pending %v, want %v", got, want)
	}
}

// checkReset: the reset committed as one publication; both lineages hold.
func (p *lineageProbe) checkReset() {
	p.checkLineage(p.sids["safe"], true, "compress")
	p.checkLineage(p.sids["reset"], true, "reset")
	db := gt.OpenDB(p.t, p.f.Home)
	defer db.Close()
	p.checkTarget(db, "safe", "compression")
	p.checkTarget(db, "reset", "session_reset")
	if rc := readReceipt(p.t, db, p.sids["foreign"]); rc.Entry.SessionID != p.sids["foreign"] || len(rc.Lineage) > 1 {
		p.t.Errorf("the foreign session moved: %+v", rc)
	}
}

// changeDefaults edits config.yaml's defaults the frozen sessions must not
// follow.
func (p *lineageProbe) changeDefaults() {
	p.f.Config.Model = "changed-default"
	p.f.Config.CLIToolsets = []string{"terminal"}
	gt.WriteFile(p.t, filepath.Join(p.f.Home, "config.yaml"), p.f.Config.YAML())
}

// checkRecovered: after a restart, the recovered turns' history, the
// re-create with the original params, the retry of settled inputs, and the
// recovered requests' frozen model, tools and cwd.
func (p *lineageProbe) checkRecovered() {
	t := p.t
	for _, name := range []string{"safe", "reset"} {
		snap := gt.Resume(t, p.v, p.sids[name])
		text := strings.Join(flat(transcript(snap)), "\n")
		ack := "RECOVERY_ACK_RECOVER_" + strings.ToUpper(name)
		if !strings.Contains(text, ack) || strings.Contains(text, "RESET_OLD") ||
			strings.Contains(text, "WARM_HISTORY") != (name == "safe") || len(snap.Pending) != 0 {
			t.Errorf("%s after recovery: history %q pending %+v", name, transcript(snap), snap.Pending)
		}
		same := gt.Create(t, p.v, p.params[name])
		if same.SessionID != p.sids[name] || same.Info.Model != *p.params[name].Model ||
			same.Info.Source != "gui" || same.Info.Cwd != *p.params[name].Cwd {
			t.Errorf("re-create of %s after the lineage moved: %s %+v", name, same.SessionID, same.Info)
		}
		for _, sub := range []string{name, "warm-" + name} {
			rc, err := gt.TrySubmit(p.v, p.sids[name], sub, p.hist[sub].text)
			if err != nil || rc.Status != protocol.StatusTerminal || rc.AdmissionID != p.hist[sub].admission {
				t.Errorf("retry of settled %s: %+v %v, want the terminal receipt", sub, rc, err)
			}
		}
		reqs := gt.RequestsFor(p.f.Model, "RECOVER_"+strings.ToUpper(name))
		if len(reqs) != 1 {
			t.Fatalf("%d requests for RECOVER_%s, want 1", len(reqs), strings.ToUpper(name))
		}
		r := reqs[0]
		if r.Model != *p.params[name].Model || len(r.Tools) != 0 || !strings.Contains(r.System(), *p.params[name].Cwd) ||
			r.ContainsText("RESET_OLD") {
			t.Errorf("recovered %s request: model %q tools %v system %q", name, r.Model, r.Tools, r.System())
		}
	}
}

func flat(h [][2]string) []string {
	out := make([]string, 0, len(h))
	for _, m := range h {
		out = append(out, m[1])
	}
	return out
}

// checkRefused: the unknown row still blocks its follower; the foreign
// receipt refuses resume and compression, which leaves no child row.
func (p *lineageProbe) checkRefused() {
	t := p.t
	p.checkUnknown()
	sid := p.sids["foreign"]
	if _, err := p.v.ResumeSession(gt.Context(t, wait), protocol.SessionResumeParams{SessionID: &sid}); gt.Reason(err) != protocol.ReasonProfileMismatch {
		t.Errorf("resume of the foreign session: %v, want %s", err, protocol.ReasonProfileMismatch)
	}
	_, err := p.v.MutateSession(gt.Context(t, wait), protocol.SessionMutateParams{SessionID: sid, RequestID: "compress-foreign",
		Operation: "compress", Payload: json.RawMessage(`{}`)})
	if r := gt.Reason(err); r != protocol.ReasonProfileMismatch && r != protocol.ReasonStorageUnavailable {
		t.Errorf("compress of the foreign session: %v, want profile_mismatch or storage_unavailable", err)
	}
}

// checkFinal reads the stopped daemon's database: the exact table, no
// child of the foreign session, and the model's exact turn texts.
func (p *lineageProbe) checkFinal() {
	t := p.t
	db := gt.OpenDB(t, p.f.Home)
	defer db.Close()
	got := map[string]string{}
	for _, a := range gt.Admissions(t, db) {
		got[a.RequestID] = a.Status
	}
	if !maps.Equal(got, lineageTable) {
		t.Errorf("final admission table %v, want exactly %v", got, lineageTable)
	}
	foreign := p.sids["foreign"]
	if n := gt.Count(t, db, `SELECT count(*) FROM sessions WHERE chat_id = ? OR parent_session_id = ?`, foreign, foreign); n != 1 {
		t.Errorf("the foreign session has %d transcript rows, want 1", n)
	}
	if n := gt.Count(t, db, `SELECT count(*) FROM sessions WHERE id = ? AND coalesce(end_reason, '') = ''`, foreign); n != 1 {
		t.Error("the refused compression ended the foreign transcript")
	}
	var texts []string
	summaries := 0
	for _, r := range p.f.Model.Requests() {
		if isSummary(r) {
			summaries++
			continue
		}
		if prompt, step := gt.Step(r); step == 0 {
			texts = append(texts, prompt)
		}
	}
	want := slices.Clone(lineageTexts)
	slices.Sort(texts)
	slices.Sort(want)
	if !slices.Equal(texts, want) || summaries != 1 {
		t.Errorf("model turn texts %q and %d summaries, want exactly %q and 1", texts, summaries, want)
	}
}

// checkLives: every daemon was a new process with a higher epoch.
func (p *lineageProbe) checkLives() {
	for i := 1; i < len(p.pids); i++ {
		if p.pids[i] == p.pids[i-1] || p.epochs[i] <= p.epochs[i-1] {
			p.t.Errorf("daemon lives pids %v epochs %v: want new processes and increasing epochs", p.pids, p.epochs)
			return
		}
	}
}
