package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/store"
)

func TestAdmitOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	addSession(t, s, epoch, "local-a")
	admit := func(request, digest string) (store.Admission, bool, error) {
		var a store.Admission
		var fresh bool
		err := s.InTx(ctx, epoch, func(tx *store.Tx) (err error) {
			a, fresh, err = tx.AdmitOnce(store.Admission{RequestID: request, PrincipalID: "uid:1000",
				TargetSessionID: "local-a", PayloadJSON: `{"text":"x"}`, PayloadDigest: digest})
			return err
		})
		return a, fresh, err
	}
	first, fresh, err := admit("r1", "d1")
	if err != nil || !fresh || first.Seq == 0 || first.Status != "queued" || first.OwnerEpoch != epoch {
		t.Fatalf("first AdmitOnce = %+v, %v, %v", first, fresh, err)
	}
	stored, err := s.Admission(ctx, first.AdmissionID)
	if err != nil || stored != first {
		t.Errorf("stored row = %+v, %v; want %+v", stored, err, first)
	}
	// The same key returns the stored row untouched, whatever the digest:
	// comparing digests is the caller's business.
	for _, digest := range []string{"d1", "other"} {
		again, fresh, err := admit("r1", digest)
		if err != nil || fresh || again != first {
			t.Errorf("repeat (digest %s) = %+v, %v, %v; want the first row, not fresh", digest, again, fresh, err)
		}
	}
	if c, err := s.Counts(ctx); err != nil || c.Queued != 1 {
		t.Errorf("counts = %+v, %v; want one queued row", c, err)
	}
	// Only the idempotency key is absorbed: a missing session still fails.
	err = s.InTx(ctx, epoch, func(tx *store.Tx) error {
		_, _, err := tx.AdmitOnce(store.Admission{RequestID: "r", PrincipalID: "p",
			TargetSessionID: "ghost", PayloadJSON: `{}`, PayloadDigest: "d"})
		return err
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AdmitOnce into a missing session = %v, want ErrNotFound", err)
	}
}

func TestPendingBriefAndRuntime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	addSession(t, s, epoch, "local-a")
	a1 := submit(t, s, epoch, "local-a", "r1")
	a2 := submit(t, s, epoch, "local-a", "r2")
	var odd store.Admission
	mustTx(t, s, epoch, func(tx *store.Tx) (err error) {
		odd, err = tx.InsertAdmission(store.Admission{RequestID: "r3", PrincipalID: "uid:1000",
			TargetSessionID: "local-a", PayloadJSON: `not json`, PayloadDigest: "d"})
		return err
	})
	claimed, ok, err := claim(t, s, epoch, "local-a")
	if err != nil || !ok || claimed.AdmissionID != a1.AdmissionID {
		t.Fatalf("claim = %+v, %v, %v", claimed, ok, err)
	}
	var got []store.PendingBrief
	var gen, rev int64
	mustTx(t, s, epoch, func(tx *store.Tx) (err error) {
		if got, err = tx.PendingBrief("local-a", 10); err != nil {
			return err
		}
		gen, rev, err = tx.Runtime("local-a")
		return err
	})
	want := []store.PendingBrief{
		{Seq: a1.Seq, AdmissionID: a1.AdmissionID, RequestID: "r1", Status: "started", Generation: claimed.Generation, Text: "r1"},
		{Seq: a2.Seq, AdmissionID: a2.AdmissionID, RequestID: "r2", Status: "queued", Text: "r2"},
		{Seq: odd.Seq, AdmissionID: odd.AdmissionID, RequestID: "r3", Status: "queued"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PendingBrief (-want +got):\n%s", diff)
	}
	sess, err := s.Session(ctx, "local-a")
	if err != nil || gen != sess.RuntimeGeneration || rev != sess.RuntimeRevision || gen != claimed.Generation {
		t.Errorf("Runtime = %d, %d; session row %+v, %v", gen, rev, sess, err)
	}
	mustTx(t, s, epoch, func(tx *store.Tx) (err error) {
		if got, err = tx.PendingBrief("local-a", 1); err != nil {
			return err
		}
		if len(got) != 1 || got[0].Seq != a1.Seq {
			t.Errorf("PendingBrief(n=1) = %+v, want the oldest row only", got)
		}
		if _, _, err := tx.Runtime("ghost"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Runtime(ghost) = %v, want ErrNotFound", err)
		}
		return nil
	})
}
