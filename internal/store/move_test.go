package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-gateway/hermes/internal/queue"
)

// moveFixture is a store file with epoch 1 and session local-a.
type moveFixture struct {
	t     *testing.T
	s     *Store
	epoch int64
}

func newMoveFixture(t *testing.T) *moveFixture {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	epoch, _, err := s.BeginEpoch(ctx, "inst-1")
	if err != nil {
		t.Fatal(err)
	}
	f := &moveFixture{t: t, s: s, epoch: epoch}
	f.tx(func(tx *Tx) error {
		return tx.InsertSession(Session{ID: "local-a", ChatID: "local-a", Source: "cli", UserID: "uid:1000", Model: "m", Cwd: "/tmp"})
	})
	return f
}

func (f *moveFixture) tx(fn func(tx *Tx) error) {
	f.t.Helper()
	if err := f.s.InTx(context.Background(), f.epoch, fn); err != nil {
		f.t.Fatalf("InTx: %v", err)
	}
}

// admit inserts a queued row.
func (f *moveFixture) admit(request string) Admission {
	f.t.Helper()
	var a Admission
	f.tx(func(tx *Tx) (err error) {
		a, err = tx.InsertAdmission(Admission{RequestID: request, PrincipalID: "uid:1000",
			TargetSessionID: "local-a", PayloadJSON: `{}`, PayloadDigest: "d"})
		return err
	})
	return a
}

// try runs one move of a (a whole row, or only Seq and Status as a scan
// finds it) in its own transaction and returns the moved row.
func (f *moveFixture) try(a Admission, ev queue.Event, mf moveFields) (Admission, error) {
	err := f.s.InTx(context.Background(), f.epoch, func(tx *Tx) error { return tx.move(&a, ev, mf) })
	return a, err
}

// seen is a row as a scan finds it: its seq and status only.
func seen(seq int64, status queue.Status) Admission {
	return Admission{Seq: seq, Status: string(status)}
}

// row reads the stored row and its session's revision.
func (f *moveFixture) row(id string) (Admission, int64) {
	f.t.Helper()
	ctx := context.Background()
	a, err := f.s.Admission(ctx, id)
	if err != nil {
		f.t.Fatal(err)
	}
	sess, err := f.s.Session(ctx, a.TargetSessionID)
	if err != nil {
		f.t.Fatal(err)
	}
	return a, sess.RuntimeRevision
}

// TestMoveLegal walks one row through claim (known by a scan) and settle
// (whole row) and another through cancel: each move writes the table's
// status and exactly its columns, and returns the row as stored.
func TestMoveLegal(t *testing.T) {
	t.Parallel()
	f := newMoveFixture(t)
	a := f.admit("r1")
	_, rev0 := f.row(a.AdmissionID)

	started, err := f.try(seen(a.Seq, queue.Queued), queue.Claim, moveFields{generation: 7})
	if err != nil {
		t.Fatal(err)
	}
	want := a
	want.Status, want.Generation, want.OwnerEpoch = "started", 7, f.epoch
	if diff := cmp.Diff(want, started); diff != "" {
		t.Errorf("claimed row (-want +got):\n%s", diff)
	}
	if got, rev := f.row(a.AdmissionID); got != started || rev != rev0 {
		t.Errorf("stored %+v (revision %d), returned %+v; a claim does not bump the revision (%d)", got, rev, started, rev0)
	}

	done, err := f.try(started, queue.Settle, moveFields{outcome: queue.Failed})
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != "terminal" || done.Outcome != "failed" || done.SettledAtMs == 0 || done.Generation != 7 {
		t.Errorf("settled row = %+v", done)
	}
	if got, rev := f.row(a.AdmissionID); got != done || rev != rev0+1 {
		t.Errorf("stored %+v (revision %d), returned %+v; want revision %d", got, rev, done, rev0+1)
	}

	b := f.admit("r2")
	c, err := f.try(b, queue.Cancel, moveFields{outcome: queue.Cancelled})
	if err != nil || c.Status != "terminal" || c.Outcome != "cancelled" || c.Generation != 0 {
		t.Errorf("cancelled row = %+v, %v", c, err)
	}
	if got, _ := f.row(b.AdmissionID); got != c {
		t.Errorf("stored %+v, returned %+v", got, c)
	}
}

// TestMoveRefused: every pair the table lacks is a *MoveError wrapping the
// sentinel callers map, a wrong outcome is ErrInvalidTransition, and
// neither writes anything.
func TestMoveRefused(t *testing.T) {
	t.Parallel()
	f := newMoveFixture(t)
	queued := f.admit("r1")
	tests := []struct {
		from queue.Status
		ev   queue.Event
		mf   moveFields
		want error
	}{
		{queue.Queued, queue.Settle, moveFields{outcome: queue.Completed}, ErrStaleGeneration},
		{queue.Queued, queue.Resolve, moveFields{outcome: queue.Interrupted}, ErrStaleGeneration},
		{queue.Queued, queue.Orphan, moveFields{}, ErrStaleGeneration},
		{queue.Started, queue.Cancel, moveFields{outcome: queue.Cancelled}, ErrStaleGeneration},
		{queue.Unknown, queue.Cancel, moveFields{outcome: queue.Cancelled}, ErrUnknownExecution},
		{queue.Unknown, queue.Settle, moveFields{outcome: queue.Completed}, ErrStaleGeneration},
		{queue.Terminal, queue.Cancel, moveFields{outcome: queue.Cancelled}, ErrStaleGeneration},
		{queue.Queued, queue.Cancel, moveFields{outcome: queue.Completed}, queue.ErrInvalidTransition},
		{queue.Queued, queue.Cancel, moveFields{}, queue.ErrInvalidTransition},
		{queue.Queued, queue.Claim, moveFields{outcome: queue.Completed}, queue.ErrInvalidTransition},
	}
	before, rev := f.row(queued.AdmissionID)
	for _, tt := range tests {
		stale := before
		stale.Status = string(tt.from)
		_, err := f.try(stale, tt.ev, tt.mf)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s from %s with %+v = %v; want %v", tt.ev, tt.from, tt.mf, err, tt.want)
		}
		isMove, wantMove := errors.As(err, new(*MoveError)), tt.want != queue.ErrInvalidTransition
		if isMove != wantMove {
			t.Errorf("%s from %s: %v: *MoveError %v, want %v", tt.ev, tt.from, err, isMove, wantMove)
		}
		if got, r := f.row(queued.AdmissionID); got != before || r != rev {
			t.Errorf("%s from %s changed the row: %+v (revision %d)", tt.ev, tt.from, got, r)
		}
	}
}

// TestMoveWhereStatusRace: two moves of one row from the same read, in two
// transactions: the first wins, the second finds the row moved, is refused
// with the status it found, and changes nothing (row nor revision). Both
// ways a caller knows a row (whole, or by a scan) are guarded.
func TestMoveWhereStatusRace(t *testing.T) {
	t.Parallel()
	f := newMoveFixture(t)
	a := f.admit("r1")
	read, _ := f.row(a.AdmissionID) // both callers decided on this read
	if _, err := f.try(read, queue.Claim, moveFields{generation: 1}); err != nil {
		t.Fatal(err)
	}
	after, rev := f.row(a.AdmissionID)
	for _, stale := range []Admission{read, seen(read.Seq, queue.Queued)} {
		_, err := f.try(stale, queue.Cancel, moveFields{outcome: queue.Cancelled})
		var me *MoveError
		if !errors.As(err, &me) || !errors.Is(err, ErrStaleGeneration) {
			t.Fatalf("second move = %v; want a *MoveError wrapping ErrStaleGeneration", err)
		}
		if want := (MoveError{Seq: a.Seq, Event: queue.Cancel, From: queue.Queued, Now: queue.Started}); *me != want {
			t.Errorf("MoveError = %+v, want %+v", *me, want)
		}
		if got, r := f.row(a.AdmissionID); got != after || r != rev {
			t.Errorf("refused move wrote: %+v (revision %d), want %+v (revision %d)", got, r, after, rev)
		}
	}
	// The same race inside one transaction: the second move of a stale
	// copy is refused, and the first one's write stands at commit.
	b := f.admit("r2")
	f.tx(func(tx *Tx) error {
		stale := b
		if err := tx.move(&b, queue.Cancel, moveFields{outcome: queue.Cancelled}); err != nil {
			return err
		}
		if err := tx.move(&stale, queue.Claim, moveFields{generation: 9}); !errors.Is(err, ErrStaleGeneration) {
			t.Errorf("second move in one tx = %v, want ErrStaleGeneration", err)
		}
		return nil
	})
	if got, _ := f.row(b.AdmissionID); got.Status != "terminal" || got.Outcome != "cancelled" || got.Generation != 0 {
		t.Errorf("row after the in-tx race = %+v, want cancelled and never claimed", got)
	}
}

// TestMoveOrphan: the orphan move takes only started rows of an older
// epoch; BeginEpoch applies it to each of them (and to nothing else).
func TestMoveOrphan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newMoveFixture(t)
	f.tx(func(tx *Tx) error {
		return tx.InsertSession(Session{ID: "local-b", ChatID: "local-b", Source: "cli", UserID: "uid:1000", Model: "m", Cwd: "/tmp"})
	})
	var runA, runB, queued Admission
	runA, queued = f.admit("a1"), f.admit("a2")
	f.tx(func(tx *Tx) (err error) {
		runB, err = tx.InsertAdmission(Admission{RequestID: "b1", PrincipalID: "uid:1000",
			TargetSessionID: "local-b", PayloadJSON: `{}`, PayloadDigest: "d"})
		return err
	})
	for _, sid := range []string{"local-a", "local-b"} {
		f.tx(func(tx *Tx) error { _, _, err := tx.ClaimNext(sid); return err })
	}
	// A row claimed by the current epoch is not an orphan.
	if _, err := f.try(seen(runA.Seq, queue.Started), queue.Orphan, moveFields{}); !errors.As(err, new(*MoveError)) {
		t.Errorf("orphan of this epoch's row = %v, want a *MoveError", err)
	}
	e2, events, err := f.s.BeginEpoch(ctx, "inst-2")
	if err != nil {
		t.Fatal(err)
	}
	f.epoch = e2
	if len(events) != 2 || events[0].AdmissionID != runA.AdmissionID || events[1].AdmissionID != runB.AdmissionID {
		t.Errorf("orphan events = %+v, want a1 then b1", events)
	}
	for id, want := range map[string]string{runA.AdmissionID: "unknown", runB.AdmissionID: "unknown", queued.AdmissionID: "queued"} {
		if got, _ := f.row(id); got.Status != want || got.Outcome != "" || got.SettledAtMs != 0 {
			t.Errorf("after BeginEpoch %s = %+v, want %s", id, got, want)
		}
	}
	// The orphan is resolvable, and only once.
	orphan, _ := f.row(runA.AdmissionID)
	if _, err := f.try(orphan, queue.Resolve, moveFields{outcome: queue.Interrupted}); err != nil {
		t.Errorf("resolve = %v", err)
	}
	if _, err := f.try(orphan, queue.Resolve, moveFields{outcome: queue.Interrupted}); !errors.Is(err, ErrStaleGeneration) {
		t.Errorf("second resolve = %v, want ErrStaleGeneration", err)
	}
}
