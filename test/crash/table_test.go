package crash

import (
	"testing"

	"github.com/hermes-gateway/hermes/internal/faults"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestRecoveryTable: docs/protocol.md#restore-checks (the real-daemon probe). Queued rows of
// sessions whose receipts were made foreign, deleted or corrupted while
// the daemon was down stay queued (fail closed, I6); the started row is
// unknown and pauses its follower; a never-started row of a healthy
// session runs exactly once. The exact table holds after two restarts.
func TestRecoveryTable(t *testing.T) {
	t.Parallel()
	w := newWorld(t, gt.Config{})
	hold := modeltest.NewBarrier()
	t.Cleanup(hold.Release)
	w.f.Turns.Set("BLOCK_STARTED", modeltest.Reply{Text: "never", Hold: hold})
	sids := w.prepareTable()
	w.damageReceipt(sids["foreign"], `UPDATE state_meta SET value = json_set(value, '$.profile_id', 'foreign') WHERE key = ?`)
	w.queueBeforeClaim(sids["missing"], "missing", "MISSING_QUEUE")
	w.damageReceipt(sids["missing"], `DELETE FROM state_meta WHERE key = ?`)
	w.queueBeforeClaim(sids["corrupt"], "corrupt", "CORRUPT_QUEUE")
	w.damageReceipt(sids["corrupt"], `UPDATE state_meta SET value = substr(value, 1, 40) WHERE key = ?`)
	w.start(faults.ClaimBeforeCommit + "@2")
	w.resumeAll(sids, "started", "safe")
	w.mustSubmit(sids["started"], "started", "BLOCK_STARTED")
	if err := hold.AwaitWaiting(gt.Context(t, wait), 1); err != nil {
		t.Fatal(err)
	}
	w.mustSubmit(sids["started"], "follower", "NEVER_REPLAY")
	w.submit(sids["safe"], "safe", "RECOVER_QUEUED") // the reply races the claim crash
	w.crashed()

	want := map[string]string{"warm": "terminal", "started": "unknown", "follower": "queued",
		"foreign": "queued", "missing": "queued", "corrupt": "queued", "safe": "terminal"}
	e := expect{status: want, first: map[string]int{"WARM_HISTORY": 1, "BLOCK_STARTED": 1, "RECOVER_QUEUED": 1,
		"NEVER_REPLAY": 0, "FOREIGN_QUEUE": 0, "MISSING_QUEUE": 0, "CORRUPT_QUEUE": 0}}
	w.restart()
	w.awaitStatus(sids["safe"], w.learn("safe"), protocol.StatusTerminal)
	w.checkFailClosed(sids)
	fp := w.check(e)
	w.restart()
	w.checkFailClosed(sids)
	if got := w.check(e); got != fp {
		t.Errorf("I11: the second restart changed the state:\n%s\nthen\n%s", fp, got)
	}
}

// prepareTable creates the sessions, runs the warm turn and queues the
// foreign row (never claimed: the daemon dies in its claim).
func (w *world) prepareTable() map[string]string {
	w.start(faults.ClaimBeforeCommit + "@2")
	sids := map[string]string{}
	for _, name := range []string{"warm", "started", "foreign", "missing", "corrupt", "safe"} {
		sids[name] = w.create(name)
	}
	warm := w.mustSubmit(sids["warm"], "warm", "WARM_HISTORY")
	gt.AwaitComplete(w.t, w.v, warm.AdmissionID, wait)
	gt.Resume(w.t, w.v, sids["foreign"])
	w.submit(sids["foreign"], "foreign", "FOREIGN_QUEUE")
	w.crashed()
	return sids
}

// queueBeforeClaim starts a daemon that dies in its first claim, which is
// of the submission queued here.
func (w *world) queueBeforeClaim(sid, sub, text string) {
	w.t.Helper()
	w.start(faults.ClaimBeforeCommit)
	gt.Resume(w.t, w.v, sid)
	w.submit(sid, sub, text) // the reply races the claim crash: ok or info
	w.crashed()
}

// damageReceipt edits the receipt of sid while the daemon is down.
func (w *world) damageReceipt(sid, stmt string) {
	w.t.Helper()
	db := gt.OpenDBWritable(w.t, w.f.Home)
	defer db.Close()
	res, err := db.Exec(stmt, "gateway.local_policy.v1:"+sid)
	if err != nil {
		w.t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		w.t.Fatalf("receipt edit touched %d rows", n)
	}
}

func (w *world) resumeAll(sids map[string]string, names ...string) {
	for _, n := range names {
		gt.Resume(w.t, w.v, sids[n])
	}
}

// checkFailClosed: resume of a foreign receipt is profile_mismatch, of a
// missing or corrupt one storage_unavailable; the rest of the daemon serves.
func (w *world) checkFailClosed(sids map[string]string) {
	t := w.t
	want := map[string]protocol.Reason{"foreign": protocol.ReasonProfileMismatch,
		"missing": protocol.ReasonStorageUnavailable, "corrupt": protocol.ReasonStorageUnavailable}
	for name, reason := range want {
		sid := sids[name]
		if _, err := w.v.ResumeSession(gt.Context(t, wait), protocol.SessionResumeParams{SessionID: &sid}); gt.Reason(err) != reason {
			t.Errorf("resume of the %s session: %v, want %s", name, err, reason)
		}
	}
	if snap := gt.Resume(t, w.v, sids["started"]); len(snap.Pending) != 2 {
		t.Errorf("started session pending %+v, want [unknown queued]", snap.Pending)
	}
}
