package crash

import (
	"database/sql"
	"encoding/json"
	"slices"
	"testing"

	"github.com/hermes-gateway/hermes/internal/faults"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// covered lists the fault points each test of this package crashes at;
// TestEveryFaultPointCovered fails when faults.All grows a point no
// scenario reaches.
func covered() []string {
	pts := []string{faults.CreateBeforeCommit, faults.CreateAfterCommit, faults.AdmissionAfterCommit}
	for _, c := range execCases {
		pts = append(pts, c.point)
	}
	for _, c := range publishCases {
		pts = append(pts, c.point)
	}
	pts = append(pts, faults.RewindAfterPlan) // test/checkpoint TestRewindCrashCompletesAtStart
	return append(pts, recoveryPoints...)
}

func TestEveryFaultPointCovered(t *testing.T) {
	t.Parallel()
	for _, p := range faults.All {
		if !slices.Contains(covered(), p) {
			t.Errorf("fault point %s has no crash scenario", p)
		}
	}
}

// TestCreateFaultPoints: F10. Before commit nothing is visible; after
// commit the session, route and receipt are all there; a retry with the
// same request_id creates once and returns the same id.
func TestCreateFaultPoints(t *testing.T) {
	t.Parallel()
	for _, point := range []string{faults.CreateBeforeCommit, faults.CreateAfterCommit} {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, gt.Config{})
			w.start(point)
			dir := gt.Cwd(w.t)
			p := protocol.SessionCreateParams{RequestID: gt.Ptr("crash-create"), Cwd: &dir, Source: gt.Ptr("tui")}
			if _, err := w.v.CreateSession(gt.Context(t, wait), p); err == nil {
				t.Fatal("session.create answered although the daemon crashed in it")
			}
			w.crashed()
			committed := point == faults.CreateAfterCommit
			w.checkCreated(committed, 1)
			w.restart()
			snap := gt.Create(t, w.v, p)
			if snap.Info.Source != "tui" || snap.Info.Cwd != dir {
				t.Errorf("retried create: info %+v", snap.Info)
			}
			w.stop()
			id := w.checkCreated(true, 1)
			if id != snap.SessionID {
				t.Errorf("retry returned %s, the stored session is %s", snap.SessionID, id)
			}
			w.check(expect{})
		})
	}
}

// checkCreated asserts I5 for the only session: with committed, exactly one
// logical row, route and receipt (all or nothing otherwise). It returns
// the logical id.
func (w *world) checkCreated(committed bool, n int) string {
	w.t.Helper()
	db := gt.OpenDB(w.t, w.f.Home)
	defer db.Close()
	gt.CheckIntegrity(w.t, db)
	want := 0
	if committed {
		want = n
	}
	sessions := gt.Count(w.t, db, `SELECT count(*) FROM sessions`)
	routes := gt.Count(w.t, db, `SELECT count(*) FROM gateway_routing`)
	receipts := gt.Count(w.t, db, `SELECT count(*) FROM state_meta WHERE key LIKE 'gateway.local_policy.v1:%'`)
	if sessions != want || routes != want || receipts != want {
		w.t.Fatalf("I5: sessions %d, routes %d, receipts %d; want %d each", sessions, routes, receipts, want)
	}
	var id string
	if committed {
		if err := db.QueryRow(`SELECT id FROM sessions`).Scan(&id); err != nil {
			w.t.Fatal(err)
		}
	}
	return id
}

// TestAdmissionAfterCommit: F1. The crash comes after the commit, before
// the reply: the client's submit is indeterminate; after restart the row
// runs once and the retry returns its receipt.
func TestAdmissionAfterCommit(t *testing.T) {
	t.Parallel()
	w := newWorld(t, gt.Config{})
	w.f.Turns.Set("ADMIT", modeltest.ToolCall("terminal", gt.TerminalArgs(w.f.Ledger.Command("admit"))), modeltest.Text("ok"))
	w.start(faults.AdmissionAfterCommit)
	sid := w.create("admit")
	if _, err := w.submit(sid, "admit", "ADMIT"); err == nil {
		t.Fatal("prompt.submit acked although the daemon crashed before the reply")
	}
	w.crashed()
	if st := w.hist["admit"].state; st != opInfo {
		t.Fatalf("history state %s, want info (indeterminate)", st)
	}
	w.restart()
	w.retryIndeterminate()
	w.awaitStatus(sid, w.hist["admit"].admission, protocol.StatusTerminal)
	fp := w.check(expect{status: map[string]string{"admit": "terminal"}, ledger: map[string]int{"admit": 1}, first: map[string]int{"ADMIT": 1}})
	w.converge(fp, 2)
}

// publishCase is a crash around a compression or reset publication (F11).
type publishCase struct {
	point, op string
	committed bool
}

var publishCases = []publishCase{
	{faults.CompressBeforeCommit, "compress", false},
	{faults.CompressAfterCommit, "compress", true},
	{faults.ResetBeforeCommit, "reset", false},
	{faults.ResetAfterCommit, "reset", true},
}

func TestPublishFaultPoints(t *testing.T) {
	t.Parallel()
	for _, c := range publishCases {
		t.Run(c.point, func(t *testing.T) {
			t.Parallel()
			runPublishCase(t, c)
		})
	}
}

func runPublishCase(t *testing.T, c publishCase) {
	w := newWorld(t, gt.Config{})
	w.f.Turns.Set("WARM", modeltest.ToolCall("terminal", gt.TerminalArgs(w.f.Ledger.Command("warm"))), modeltest.Text("warm done"))
	w.f.Turns.Set("AFTER", modeltest.Text("after done"))
	w.start(c.point)
	sid := w.create("publish")
	warm := w.mustSubmit(sid, "warm", "WARM")
	gt.AwaitComplete(t, w.v, warm.AdmissionID, wait)
	snap := gt.Resume(t, w.v, sid)
	mut := protocol.SessionMutateParams{SessionID: sid, RequestID: "m1", ExpectedRevision: snap.Revision,
		Operation: c.op, Payload: json.RawMessage(`{}`)}
	if _, err := w.v.MutateSession(gt.Context(t, wait), mut); err == nil {
		t.Fatalf("session.mutate %s answered although the daemon crashed in it", c.op)
	}
	w.crashed()
	w.checkLineage(sid, c.committed, c.op)
	w.restart()
	gt.Resume(t, w.v, sid)
	if _, err := w.v.MutateSession(gt.Context(t, wait), mut); err != nil && gt.Reason(err) != protocol.ReasonRevisionConflict {
		t.Errorf("retried %s: %v", c.op, err)
	}
	after := w.mustSubmit(sid, "after", "AFTER")
	w.awaitStatus(sid, after.AdmissionID, protocol.StatusTerminal)
	if c.op == "reset" {
		for _, r := range gt.RequestsFor(w.f.Model, "AFTER") {
			if r.ContainsText("WARM") {
				t.Errorf("a request after reset still holds the pre-reset history")
			}
		}
	}
	w.stop()
	w.checkLineage(sid, true, c.op)
	fp := w.check(expect{status: map[string]string{"warm": "terminal", "after": "terminal"}, ledger: map[string]int{"warm": 1}})
	w.converge(fp, 1)
}

// checkLineage asserts I5 after a publication: the receipt's entry, the
// route and the lineage agree, and the logical id never changed.
func (w *world) checkLineage(sid string, published bool, op string) {
	t := w.t
	db := gt.OpenDB(t, w.f.Home)
	defer db.Close()
	gt.CheckIntegrity(t, db)
	rc := readReceipt(t, db, sid)
	if rc.SessionID != sid {
		t.Errorf("I5: receipt session_id %s, want the logical %s", rc.SessionID, sid)
	}
	var entry string
	if err := db.QueryRow(`SELECT entry_json FROM gateway_routing WHERE session_key = ?`, rc.Route).Scan(&entry); err != nil {
		t.Fatalf("I5: no route %s: %v", rc.Route, err)
	}
	var route struct {
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal([]byte(entry), &route)
	if route.SessionID != rc.Entry.SessionID {
		t.Errorf("I5: route points at %s, receipt entry at %s", route.SessionID, rc.Entry.SessionID)
	}
	moved := rc.Entry.SessionID != sid
	if moved != published {
		t.Errorf("I5: %s published = %v, want %v (entry %s, lineage %v)", op, moved, published, rc.Entry.SessionID, rc.Lineage)
	}
	if moved && (len(rc.Lineage) < 2 || rc.Lineage[0] != sid || rc.Lineage[len(rc.Lineage)-1] != rc.Entry.SessionID) {
		t.Errorf("I5: lineage %v does not run from %s to %s", rc.Lineage, sid, rc.Entry.SessionID)
	}
	if n := gt.Count(t, db, `SELECT count(*) FROM sessions WHERE id = ?`, rc.Entry.SessionID); n != 1 {
		t.Errorf("I5: the receipt's target %s has %d rows", rc.Entry.SessionID, n)
	}
}

// receipt is the part of the creation receipt the checks read.
type receipt struct {
	ProfileID string   `json:"profile_id"`
	SessionID string   `json:"session_id"`
	Route     string   `json:"route"`
	Lineage   []string `json:"lineage"`
	Entry     struct {
		SessionID string `json:"session_id"`
	} `json:"entry"`
}

func readReceipt(t *testing.T, db *sql.DB, sid string) receipt {
	t.Helper()
	raw, ok := gt.Meta(t, db, "gateway.local_policy.v1:"+sid)
	if !ok {
		t.Fatalf("no receipt for %s", sid)
	}
	var rc receipt
	if err := json.Unmarshal([]byte(raw), &rc); err != nil {
		t.Fatalf("receipt of %s: %v", sid, err)
	}
	return rc
}
