package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/store"
)

func TestEpochFence(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, old := openEpoch(t)
	addSession(t, s, old, "local-1")
	newer, _, err := s.BeginEpoch(ctx, "inst-2")
	if err != nil {
		t.Fatal(err)
	}
	if newer != old+1 {
		t.Fatalf("BeginEpoch = %d, want %d", newer, old+1)
	}
	if got, err := s.Epoch(ctx); err != nil || got != newer {
		t.Fatalf("Epoch = %d, %v; want %d", got, err, newer)
	}
	ran := false
	err = s.InTx(ctx, old, func(tx *store.Tx) error {
		ran = true
		return tx.PutMeta("k", "v")
	})
	if !errors.Is(err, store.ErrStaleEpoch) {
		t.Fatalf("InTx(old epoch) = %v, want ErrStaleEpoch", err)
	}
	if ran {
		t.Error("fn ran under a stale epoch")
	}
	if _, ok, _ := s.Meta(ctx, "k"); ok {
		t.Error("stale-epoch transaction wrote")
	}
	// A future epoch is just as foreign as an old one.
	if err := s.InTx(ctx, newer+1, func(*store.Tx) error { return nil }); !errors.Is(err, store.ErrStaleEpoch) {
		t.Errorf("InTx(future epoch) = %v, want ErrStaleEpoch", err)
	}
	mustTx(t, s, newer, func(tx *store.Tx) error {
		if tx.Epoch() != newer {
			t.Errorf("tx.Epoch() = %d, want %d", tx.Epoch(), newer)
		}
		return tx.PutMeta("k", "v")
	})
}

func TestInTxBeforeAnyEpoch(t *testing.T) {
	t.Parallel()
	s, _ := openTemp(t)
	err := s.InTx(context.Background(), 1, func(*store.Tx) error { return nil })
	if !errors.Is(err, store.ErrStaleEpoch) {
		t.Errorf("InTx with no epoch begun = %v, want ErrStaleEpoch", err)
	}
	if e, err := s.Epoch(context.Background()); e != 0 || err != nil {
		t.Errorf("Epoch = %d, %v; want 0", e, err)
	}
}

func TestBeginEpochMarksStartedUnknown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, e1 := openEpoch(t)
	addSession(t, s, e1, "local-a")
	addSession(t, s, e1, "local-b")
	running := submit(t, s, e1, "local-a", "r1")
	queued := submit(t, s, e1, "local-a", "r2")
	other := submit(t, s, e1, "local-b", "r3")
	claimed, ok, err := claim(t, s, e1, "local-a")
	if err != nil || !ok || claimed.AdmissionID != running.AdmissionID {
		t.Fatalf("claim = %+v, %v, %v", claimed, ok, err)
	}
	before, _ := s.Session(ctx, "local-a")

	e2, events, err := s.BeginEpoch(ctx, "inst-2")
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Event{{
		SessionID: "local-a", Seq: before.LastEventSeq + 1, Type: "session.unknown",
		PayloadJSON: `{"admission_id":"` + running.AdmissionID + `"}`, AuthorityEpoch: e2,
		ExecutionGeneration: claimed.Generation, AdmissionID: running.AdmissionID, ReplayEpoch: before.ReplayEpoch,
	}}
	if diff := cmp.Diff(want, events, ignoreCreated); diff != "" {
		t.Errorf("BeginEpoch events (-want +got):\n%s", diff)
	}
	journal, _, err := s.EventsSince(ctx, "local-a", 0, 0)
	if err != nil || len(journal) != 1 {
		t.Fatalf("journal = %v, %v", journal, err)
	}
	if diff := cmp.Diff(events[0], journal[0]); diff != "" {
		t.Errorf("journaled event differs from returned one (-want +got):\n%s", diff)
	}
	for id, status := range map[string]string{
		running.AdmissionID: "unknown", queued.AdmissionID: "queued", other.AdmissionID: "queued",
	} {
		a, err := s.Admission(ctx, id)
		if err != nil || a.Status != status {
			t.Errorf("admission %s status %q, %v; want %q", id, a.Status, err, status)
		}
	}
	// The next epoch has nothing left to orphan: unknown is not re-journaled.
	if _, events, err := s.BeginEpoch(ctx, "inst-3"); err != nil || len(events) != 0 {
		t.Errorf("third BeginEpoch events = %v, %v; want none", events, err)
	}
}

// Only started rows are orphaned; settled history stays as it was.
func TestBeginEpochKeepsTerminal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, e1 := openEpoch(t)
	addSession(t, s, e1, "local-a")
	submit(t, s, e1, "local-a", "r1")
	a, _, _ := claim(t, s, e1, "local-a")
	mustTx(t, s, e1, func(tx *store.Tx) error {
		_, err := tx.Settle(a.AdmissionID, a.Generation, "completed", `{}`)
		return err
	})
	if _, events, err := s.BeginEpoch(ctx, "inst-2"); err != nil || len(events) != 0 {
		t.Errorf("BeginEpoch after settle = %v, %v; want no events", events, err)
	}
	got, _ := s.Admission(ctx, a.AdmissionID)
	if got.Status != "terminal" || got.Outcome != "completed" {
		t.Errorf("settled row became %s/%s", got.Status, got.Outcome)
	}
}

var ignoreCreated = cmp.FilterPath(func(p cmp.Path) bool {
	return p.Last().String() == ".CreatedAtMs"
}, cmp.Ignore())
