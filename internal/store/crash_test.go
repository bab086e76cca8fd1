package store_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hermes-gateway/hermes/internal/store"
)

// A daemon killed without Close leaves committed transactions only in the
// WAL (no checkpoint). The next Open must quick_check that state read-only
// and see every commit.
func TestOpenAfterCrashWithWAL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := openTemp(t)
	epoch, _, _ := s.BeginEpoch(ctx, "a")
	addSession(t, s, epoch, "local-a")
	a := submit(t, s, epoch, "local-a", "r1")
	// Snapshot the files while the store is open: what SIGKILL leaves.
	crashed := filepath.Join(t.TempDir(), "state.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if suffix == "-wal" && len(b) == 0 {
			t.Fatal("WAL is empty; the test would not exercise recovery")
		}
		if err := os.WriteFile(crashed+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s2, err := store.Open(ctx, crashed)
	if err != nil {
		t.Fatalf("Open after crash: %v", err)
	}
	defer s2.Close()
	if got, err := s2.Admission(ctx, a.AdmissionID); err != nil || got.Status != "queued" {
		t.Errorf("admission after crash = %+v, %v", got, err)
	}
	if e, _, err := s2.BeginEpoch(ctx, "b"); err != nil || e != epoch+1 {
		t.Errorf("BeginEpoch after crash = %d, %v", e, err)
	}
}

// Concurrent writers serialize on the one writer connection (no
// SQLITE_BUSY) while readers keep reading.
func TestConcurrentWritersAndReaders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	addSession(t, s, epoch, "local-a")
	const writers, each = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers*each) // one per write and per read
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				req := string(rune('a'+w)) + "-" + string(rune('a'+i))
				errs <- s.InTx(ctx, epoch, func(tx *store.Tx) error {
					if _, err := tx.InsertAdmission(store.Admission{RequestID: req, PrincipalID: "p",
						TargetSessionID: "local-a", PayloadJSON: `{}`, PayloadDigest: "d"}); err != nil {
						return err
					}
					_, err := tx.AppendEvent("local-a", store.Event{Type: "session.info", PayloadJSON: `{}`})
					return err
				})
			}
		})
		wg.Go(func() {
			for range each {
				_, err := s.Counts(ctx)
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	pend, _ := s.PendingAdmissions(ctx, "local-a")
	events, _, _ := s.EventsSince(ctx, "local-a", 0, 0)
	if len(pend) != writers*each || len(events) != writers*each || events[len(events)-1].Seq != writers*each {
		t.Errorf("%d admissions, %d events; want %d each with dense seqs", len(pend), len(events), writers*each)
	}
}
