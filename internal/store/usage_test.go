package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/store"
)

// TestUsageCountersAndHeader: AddUsage sums into the row, Session and Header
// read it back with the title, and a missing session is ErrNotFound.
func TestUsageCountersAndHeader(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	addSession(t, s, epoch, "local-u")
	mustTx(t, s, epoch, func(tx *store.Tx) error {
		if err := tx.AddUsage("local-u", store.Usage{Prompt: 100, Completion: 7, Cached: 64}); err != nil {
			return err
		}
		if err := tx.AddUsage("local-u", store.Usage{}); err != nil {
			return err
		}
		if err := tx.AddUsage("local-u", store.Usage{Prompt: 20, Completion: 3}); err != nil {
			return err
		}
		return tx.SetTitle("local-u", "Fix the build")
	})
	want := store.Usage{Prompt: 120, Completion: 10, Cached: 64}
	row, err := s.Session(ctx, "local-u")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, row.Usage); diff != "" {
		t.Errorf("Session.Usage (-want +got):\n%s", diff)
	}
	var h store.Header
	mustTx(t, s, epoch, func(tx *store.Tx) (err error) { h, err = tx.Header("local-u"); return err })
	if diff := cmp.Diff(store.Header{Title: "Fix the build", Model: "m", Usage: want}, h); diff != "" {
		t.Errorf("Header (-want +got):\n%s", diff)
	}
	err = s.InTx(ctx, epoch, func(tx *store.Tx) error { return tx.AddUsage("ghost", store.Usage{Prompt: 1}) })
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AddUsage(ghost) = %v, want ErrNotFound", err)
	}
	err = s.InTx(ctx, epoch, func(tx *store.Tx) error { _, err := tx.Header("ghost"); return err })
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Header(ghost) = %v, want ErrNotFound", err)
	}
}
