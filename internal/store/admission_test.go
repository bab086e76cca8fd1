package store_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/hermes-gateway/hermes/internal/store"
)

func TestInsertAdmissionDefaultsAndIdempotencyKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	addSession(t, s, epoch, "local-a")
	addSession(t, s, epoch, "local-b")
	a := submit(t, s, epoch, "local-a", "r1")
	if a.Seq == 0 || len(a.AdmissionID) != 32 || a.Status != "queued" || a.Outcome != "" ||
		a.OwnerEpoch != epoch || a.Generation != 0 || a.CreatedAtMs == 0 ||
		a.LineageJSON != `["local-a"]` || a.Intent != "queue" {
		t.Errorf("inserted admission = %+v", a)
	}
	got, err := s.Admission(ctx, a.AdmissionID)
	if err != nil || got != a {
		t.Errorf("Admission = %+v, %v; want %+v", got, err, a)
	}
	err = s.InTx(ctx, epoch, func(tx *store.Tx) error {
		_, err := tx.InsertAdmission(store.Admission{RequestID: "r1", PrincipalID: "uid:1000",
			TargetSessionID: "local-a", PayloadJSON: `{}`, PayloadDigest: "other"})
		return err
	})
	if !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate key = %v, want ErrConflict", err)
	}
	// The key is (principal, session, request): changing any part is new.
	submit(t, s, epoch, "local-b", "r1")
	mustTx(t, s, epoch, func(tx *store.Tx) error {
		_, err := tx.InsertAdmission(store.Admission{RequestID: "r1", PrincipalID: "uid:2000",
			TargetSessionID: "local-a", PayloadJSON: `{}`, PayloadDigest: "d"})
		return err
	})
	byKey, ok, err := s.AdmissionByKey(ctx, "uid:1000", "local-a", "r1")
	if err != nil || !ok || byKey.AdmissionID != a.AdmissionID {
		t.Errorf("AdmissionByKey = %+v, %v, %v", byKey, ok, err)
	}
	if _, ok, err := s.AdmissionByKey(ctx, "uid:1000", "local-a", "nope"); ok || err != nil {
		t.Errorf("AdmissionByKey(missing) = %v, %v", ok, err)
	}
	if _, err := s.Admission(ctx, "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Admission(missing) = %v, want ErrNotFound", err)
	}
}

func TestInsertAdmissionUnknownSession(t *testing.T) {
	t.Parallel()
	s, epoch := openEpoch(t)
	err := s.InTx(context.Background(), epoch, func(tx *store.Tx) error {
		_, err := tx.InsertAdmission(store.Admission{RequestID: "r", PrincipalID: "p",
			TargetSessionID: "ghost", PayloadJSON: `{}`, PayloadDigest: "d"})
		return err
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("admission to a missing session = %v, want ErrNotFound", err)
	}
}

func TestClaimFIFOAndStartedBlocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	addSession(t, s, epoch, "local-a")
	addSession(t, s, epoch, "local-b")
	first := submit(t, s, epoch, "local-a", "r1")
	submit(t, s, epoch, "local-b", "x") // another session's row must not interfere
	second := submit(t, s, epoch, "local-a", "r2")

	a, ok, err := claim(t, s, epoch, "local-a")
	if err != nil || !ok || a.AdmissionID != first.AdmissionID || a.Status != "started" || a.Generation != 1 || a.OwnerEpoch != epoch {
		t.Fatalf("first claim = %+v, %v, %v", a, ok, err)
	}
	if _, ok, err := claim(t, s, epoch, "local-a"); ok || err != nil {
		t.Fatalf("claim while started = %v, %v; want ok=false", ok, err)
	}
	// The other session has its own FIFO.
	if b, ok, err := claim(t, s, epoch, "local-b"); !ok || err != nil || b.Generation != 1 {
		t.Fatalf("claim other session = %+v, %v, %v", b, ok, err)
	}
	settle(t, s, epoch, a, "completed")
	a2, ok, err := claim(t, s, epoch, "local-a")
	if err != nil || !ok || a2.AdmissionID != second.AdmissionID || a2.Generation != 2 {
		t.Fatalf("second claim = %+v, %v, %v", a2, ok, err)
	}
	sess, _ := s.Session(ctx, "local-a")
	if sess.RuntimeGeneration != 2 {
		t.Errorf("session runtime_generation = %d, want 2", sess.RuntimeGeneration)
	}
	settle(t, s, epoch, a2, "failed")
	if _, ok, err := claim(t, s, epoch, "local-a"); ok || err != nil {
		t.Errorf("claim on an empty queue = %v, %v", ok, err)
	}
}

func settle(t *testing.T, s *store.Store, epoch int64, a store.Admission, outcome string) store.Admission {
	t.Helper()
	var out store.Admission
	mustTx(t, s, epoch, func(tx *store.Tx) (err error) {
		out, err = tx.Settle(a.AdmissionID, a.Generation, outcome, `{"result":"`+outcome+`"}`)
		return err
	})
	return out
}

func TestUnknownBlocksUntilResolved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, e1 := openEpoch(t)
	addSession(t, s, e1, "local-a")
	submit(t, s, e1, "local-a", "r1")
	later := submit(t, s, e1, "local-a", "r2")
	a, _, _ := claim(t, s, e1, "local-a")
	e2, _, err := s.BeginEpoch(ctx, "inst-2")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := claim(t, s, e2, "local-a"); !errors.Is(err, store.ErrUnknownExecution) {
		t.Fatalf("claim with unknown row = %v, want ErrUnknownExecution", err)
	}
	err = s.InTx(ctx, e2, func(tx *store.Tx) error { _, err := tx.Cancel(a.AdmissionID); return err })
	if !errors.Is(err, store.ErrUnknownExecution) {
		t.Errorf("cancel unknown = %v, want ErrUnknownExecution", err)
	}
	err = s.InTx(ctx, e2, func(tx *store.Tx) error { _, err := tx.ResolveUnknown(a.AdmissionID, a.Generation+1); return err })
	if !errors.Is(err, store.ErrStaleGeneration) {
		t.Errorf("resolve with wrong generation = %v, want ErrStaleGeneration", err)
	}
	before, _ := s.Session(ctx, "local-a")
	var resolved store.Admission
	mustTx(t, s, e2, func(tx *store.Tx) (err error) {
		resolved, err = tx.ResolveUnknown(a.AdmissionID, a.Generation)
		return err
	})
	if resolved.Status != "terminal" || resolved.Outcome != "interrupted" || resolved.SettledAtMs == 0 {
		t.Errorf("resolved = %+v", resolved)
	}
	after, _ := s.Session(ctx, "local-a")
	if after.RuntimeRevision != before.RuntimeRevision+1 {
		t.Errorf("resolve revision %d → %d, want +1", before.RuntimeRevision, after.RuntimeRevision)
	}
	err = s.InTx(ctx, e2, func(tx *store.Tx) error { _, err := tx.ResolveUnknown(a.AdmissionID, a.Generation); return err })
	if !errors.Is(err, store.ErrStaleGeneration) {
		t.Errorf("resolve twice = %v, want ErrStaleGeneration", err)
	}
	next, ok, err := claim(t, s, e2, "local-a")
	if err != nil || !ok || next.AdmissionID != later.AdmissionID || next.Generation != a.Generation+1 || next.OwnerEpoch != e2 {
		t.Errorf("claim after resolve = %+v, %v, %v", next, ok, err)
	}
}

func TestSettleRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := openTemp(t)
	e1, _, err := s.BeginEpoch(ctx, "inst-1")
	if err != nil {
		t.Fatal(err)
	}
	addSession(t, s, e1, "local-a")
	queued := submit(t, s, e1, "local-a", "q")
	trySettle := func(epoch int64, id string, gen int64, outcome string) error {
		return s.InTx(ctx, epoch, func(tx *store.Tx) error { _, err := tx.Settle(id, gen, outcome, `{}`); return err })
	}
	if err := trySettle(e1, queued.AdmissionID, 0, "completed"); !errors.Is(err, store.ErrStaleGeneration) {
		t.Errorf("settle queued = %v, want ErrStaleGeneration", err)
	}
	a, _, _ := claim(t, s, e1, "local-a")
	if err := trySettle(e1, a.AdmissionID, a.Generation+1, "completed"); !errors.Is(err, store.ErrStaleGeneration) {
		t.Errorf("settle wrong generation = %v, want ErrStaleGeneration", err)
	}
	if err := trySettle(e1, a.AdmissionID, a.Generation, "cancelled"); err == nil {
		t.Error("settle with outcome cancelled succeeded")
	}
	if err := trySettle(e1, "missing", 1, "completed"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("settle missing = %v, want ErrNotFound", err)
	}
	// A reset moved the session generation under the running turn: the
	// settle must fail so the row stays started.
	bumpGeneration(t, path, "local-a")
	if err := trySettle(e1, a.AdmissionID, a.Generation, "completed"); !errors.Is(err, store.ErrStaleGeneration) {
		t.Errorf("settle after generation moved = %v, want ErrStaleGeneration", err)
	}
	if got, _ := s.Admission(ctx, a.AdmissionID); got.Status != "started" {
		t.Errorf("row after refused settle is %s, want started", got.Status)
	}
}

// bumpGeneration moves runtime_generation behind the store's back (no Tx
// method does that outside a claim), simulating a generation that moved
// under a running turn.
func bumpGeneration(t *testing.T, path, session string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE sessions SET runtime_generation = runtime_generation + 1 WHERE id = ?", session); err != nil {
		t.Fatal(err)
	}
}

func TestSettleStoresResultAndBumpsRevision(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, e1 := openEpoch(t)
	addSession(t, s, e1, "local-a")
	submit(t, s, e1, "local-a", "r1")
	a, _, _ := claim(t, s, e1, "local-a")
	before, _ := s.Session(ctx, "local-a")
	done := settle(t, s, e1, a, "rejected")
	if done.Status != "terminal" || done.Outcome != "rejected" || done.SettledAtMs == 0 || done.Generation != a.Generation {
		t.Errorf("settled = %+v", done)
	}
	if got, _ := s.Admission(ctx, a.AdmissionID); got != done {
		t.Errorf("stored %+v, returned %+v", got, done)
	}
	if r, ok, err := s.AdmissionResult(ctx, a.AdmissionID); err != nil || !ok || r != `{"result":"rejected"}` {
		t.Errorf("AdmissionResult = %q, %v, %v", r, ok, err)
	}
	after, _ := s.Session(ctx, "local-a")
	if after.RuntimeRevision != before.RuntimeRevision+1 {
		t.Errorf("settle revision %d → %d, want +1", before.RuntimeRevision, after.RuntimeRevision)
	}
	err := s.InTx(ctx, e1, func(tx *store.Tx) error {
		_, err := tx.Settle(a.AdmissionID, a.Generation, "completed", ``)
		return err
	})
	if !errors.Is(err, store.ErrStaleGeneration) {
		t.Errorf("settle twice = %v, want ErrStaleGeneration", err)
	}
}

// A started row of an old epoch cannot be settled by a daemon that somehow
// still runs under the new epoch with the old row (owner_epoch check).
func TestSettleOtherEpochRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, e1 := openEpoch(t)
	addSession(t, s, e1, "local-a")
	submit(t, s, e1, "local-a", "r1")
	a, _, _ := claim(t, s, e1, "local-a")
	e2, _, _ := s.BeginEpoch(ctx, "inst-2") // the row is unknown now
	err := s.InTx(ctx, e2, func(tx *store.Tx) error {
		_, err := tx.Settle(a.AdmissionID, a.Generation, "completed", ``)
		return err
	})
	if !errors.Is(err, store.ErrStaleGeneration) {
		t.Errorf("settle of an orphaned row = %v, want ErrStaleGeneration", err)
	}
}

func TestCancelRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, e1 := openEpoch(t)
	addSession(t, s, e1, "local-a")
	running := submit(t, s, e1, "local-a", "r1")
	queued := submit(t, s, e1, "local-a", "r2")
	claim(t, s, e1, "local-a")
	cancel := func(id string) (store.Admission, error) {
		var a store.Admission
		err := s.InTx(ctx, e1, func(tx *store.Tx) (err error) { a, err = tx.Cancel(id); return err })
		return a, err
	}
	if _, err := cancel(running.AdmissionID); !errors.Is(err, store.ErrStaleGeneration) {
		t.Errorf("cancel started = %v, want ErrStaleGeneration", err)
	}
	before, _ := s.Session(ctx, "local-a")
	c, err := cancel(queued.AdmissionID)
	if err != nil || c.Status != "terminal" || c.Outcome != "cancelled" {
		t.Fatalf("cancel queued = %+v, %v", c, err)
	}
	mid, _ := s.Session(ctx, "local-a")
	if mid.RuntimeRevision != before.RuntimeRevision+1 {
		t.Errorf("cancel revision %d → %d, want +1", before.RuntimeRevision, mid.RuntimeRevision)
	}
	again, err := cancel(queued.AdmissionID)
	if err != nil || again != c {
		t.Errorf("cancel terminal = %+v, %v; want unchanged %+v", again, err, c)
	}
	if after, _ := s.Session(ctx, "local-a"); after.RuntimeRevision != mid.RuntimeRevision {
		t.Error("cancelling a terminal row bumped the revision")
	}
	if _, err := cancel("missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("cancel missing = %v, want ErrNotFound", err)
	}
}

func TestPendingAndCounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, e1 := openEpoch(t)
	for _, id := range []string{"local-a", "local-b", "local-c"} {
		addSession(t, s, e1, id)
	}
	submit(t, s, e1, "local-b", "b1")
	submit(t, s, e1, "local-a", "a1")
	submit(t, s, e1, "local-a", "a2")
	c1 := submit(t, s, e1, "local-c", "c1")
	claim(t, s, e1, "local-a")
	claim(t, s, e1, "local-c")
	e2, _, _ := s.BeginEpoch(ctx, "inst-2") // local-c's row → unknown
	claim(t, s, e2, "local-b")
	counts, err := s.Counts(ctx)
	if err != nil || counts != (store.Counts{Queued: 1, Started: 1, Unknown: 2}) {
		// a1 (epoch 1) and c1 are unknown, a2 queued, b1 started.
		t.Errorf("Counts = %+v, %v", counts, err)
	}
	ids, err := s.SessionsWithPending(ctx)
	if err != nil || len(ids) != 3 || ids[0] != "local-b" || ids[1] != "local-a" || ids[2] != "local-c" {
		t.Errorf("SessionsWithPending = %v, %v; want [local-b local-a local-c] by oldest row", ids, err)
	}
	pend, err := s.PendingAdmissions(ctx, "local-a")
	if err != nil || len(pend) != 2 || pend[0].RequestID != "a1" || pend[1].RequestID != "a2" {
		t.Errorf("PendingAdmissions(local-a) = %+v, %v", pend, err)
	}
	mustTx(t, s, e2, func(tx *store.Tx) error {
		inTx, err := tx.PendingAdmissions("local-c")
		if err != nil || len(inTx) != 1 || inTx[0].AdmissionID != c1.AdmissionID || inTx[0].Status != "unknown" {
			t.Errorf("tx.PendingAdmissions(local-c) = %+v, %v", inTx, err)
		}
		_, err = tx.ResolveUnknown(c1.AdmissionID, inTx[0].Generation)
		return err
	})
	ids, _ = s.SessionsWithPending(ctx)
	if len(ids) != 2 {
		t.Errorf("after resolve SessionsWithPending = %v", ids)
	}
}
