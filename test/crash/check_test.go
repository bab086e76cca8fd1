package crash

import (
	"database/sql"
	"fmt"
	"strings"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
)

// expect is what a scenario asserts beyond the global invariants.
type expect struct {
	status  map[string]string // submission_id → row status after recovery
	ledger  map[string]int    // ledger id → exact executions (others: ≤ 1)
	first   map[string]int    // prompt text → exact first model requests (others: ≤ 1)
	secrets []string          // must not be at rest anywhere (I8)
}

// check stops the daemon and evaluates I1–I9 over the history, the
// read-only database, the ledger and the model's requests. It returns the
// state fingerprint for the convergence check (I11).
func (w *world) check(e expect) string {
	w.t.Helper()
	w.stop()
	db := gt.OpenDB(w.t, w.f.Home)
	// Closed before the daemon starts again: a handle of this process left
	// open across another process's writes can read a stale WAL index, and
	// later handles of this process share it ("database disk image is
	// malformed" at the next OpenDB).
	defer db.Close()
	gt.CheckIntegrity(w.t, db) // I7
	adms := gt.Admissions(w.t, db)
	byReq := gt.ByRequest(w.t, adms) // I4
	w.checkHistory(byReq)            // I2
	for sub, want := range e.status {
		if got := byReq[sub].Status; got != want {
			w.t.Errorf("submission %s: status %q, want %q", sub, got, want)
		}
	}
	w.checkPause(adms)                             // I3
	w.checkEffects(e)                              // I1
	w.checkEpochs(db, adms)                        // I9
	gt.NoSecretAtRest(w.t, w.f.Home, e.secrets...) // I8
	return w.fingerprint(adms)
}

// stop ends the daemon gracefully when it still runs.
func (w *world) stop() {
	w.t.Helper()
	if d := w.f.D; d != nil && d.Alive() {
		if code := d.Stop(); code != 0 {
			w.t.Errorf("SIGTERM: exit code %d, want 0", code)
		}
	}
}

// checkHistory: I2. Every acked submission exists with its receipt's
// admission id; a refused one left no row.
func (w *world) checkHistory(byReq map[string]gt.Admission) {
	w.t.Helper()
	for _, o := range w.hist.ops() {
		row, ok := byReq[o.sub]
		switch o.state {
		case opOK:
			if !ok || row.ID != o.admission {
				w.t.Errorf("I2: acked submission %s (admission %s) has row %+v", o.sub, o.admission, row)
			}
		case opFail:
			if ok {
				w.t.Errorf("I2: refused submission %s has a row %+v", o.sub, row)
			}
		}
	}
}

// checkPause: I3. Within a session, no row after an unknown one left
// queued (an unresolved unknown blocks every later row).
func (w *world) checkPause(adms []gt.Admission) {
	w.t.Helper()
	blocked := map[string]string{}
	for _, a := range adms {
		if by, ok := blocked[a.Target]; ok && a.Status != "queued" {
			w.t.Errorf("I3: %s (%s) ran behind unknown %s", a.RequestID, a.Status, by)
		}
		if a.Status == "unknown" {
			blocked[a.Target] = a.RequestID
		}
	}
	w.checkModelOrder(adms)
}

// checkModelOrder: I3. The first model requests of a session's admissions
// arrive in admission order.
func (w *world) checkModelOrder(adms []gt.Admission) {
	w.t.Helper()
	seqOf := map[string]gt.Admission{}
	byReq := map[string]gt.Admission{}
	for _, a := range adms {
		byReq[a.RequestID] = a
	}
	for _, o := range w.hist.ops() {
		if a, ok := byReq[o.sub]; ok {
			seqOf[o.text] = a
		}
	}
	last := map[string]int64{}
	for _, r := range w.f.Model.Requests() {
		p, step := gt.Step(r)
		a, ok := seqOf[p]
		if !ok || step != 0 {
			continue
		}
		if a.Seq < last[a.Target] {
			w.t.Errorf("I3: %q started after a later admission of its session", p)
		}
		last[a.Target] = a.Seq
	}
}

// checkEffects: I1. At most one ledger entry per effect and one first
// model request per admission, plus the scenario's exact counts.
func (w *world) checkEffects(e expect) {
	w.t.Helper()
	w.f.Ledger.AtMostOnce(w.t)
	for id, n := range e.ledger {
		if got := w.f.Ledger.Count(w.t, id); got != n {
			w.t.Errorf("I1: ledger %s executed %d times, want %d", id, got, n)
		}
	}
	for _, o := range w.hist.ops() {
		got := gt.FirstRequests(w.f.Model, o.text)
		want, exact := e.first[o.text]
		if (exact && got != want) || (!exact && got > 1) {
			w.t.Errorf("I1: %d first model requests for %q (want %v)", got, o.text, e.first[o.text])
		}
	}
}

// checkEpochs: I9. Every claimed row carries the epoch of a daemon that
// existed and a generation.
func (w *world) checkEpochs(db *sql.DB, adms []gt.Admission) {
	w.t.Helper()
	var epoch int64
	if err := db.QueryRow(`SELECT epoch FROM runtime_epoch`).Scan(&epoch); err != nil {
		w.t.Fatal(err)
	}
	for _, a := range adms {
		if a.OwnerEpoch < 1 || a.OwnerEpoch > epoch {
			w.t.Errorf("I9: %s owner_epoch %d outside [1, %d]", a.RequestID, a.OwnerEpoch, epoch)
		}
		if a.Status != "queued" && !a.Generation.Valid {
			w.t.Errorf("I9: claimed row %s has no generation", a.RequestID)
		}
	}
}

// fingerprint is the observable state: rows, model requests, effects.
func (w *world) fingerprint(adms []gt.Admission) string {
	var b strings.Builder
	for _, a := range adms {
		fmt.Fprintf(&b, "%s %s %s %v %v\n", a.RequestID, a.ID, a.Status, a.Outcome.String, a.Generation.Int64)
	}
	fmt.Fprintf(&b, "model requests: %d\nledger: %v\n", len(w.f.Model.Requests()), w.f.Ledger.Lines(w.t))
	return b.String()
}

// converge restarts (and crashes) k more times with no new input and
// asserts the state does not change (I11).
func (w *world) converge(fp string, k int) {
	w.t.Helper()
	for i := range k {
		d := w.restart()
		if i%2 == 0 {
			d.Kill()
		} else {
			w.stop()
		}
		db := gt.OpenDB(w.t, w.f.Home)
		if got := w.fingerprint(gt.Admissions(w.t, db)); got != fp {
			w.t.Fatalf("I11: state changed by restart %d with no input:\nbefore:\n%s\nafter:\n%s", i+1, fp, got)
		}
		_ = db.Close()
	}
}
