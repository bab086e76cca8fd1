package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hermes-gateway/hermes/internal/store"
)

// openTemp opens a fresh store in t.TempDir and closes it at cleanup.
func openTemp(t testing.TB) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, path
}

// openEpoch opens a fresh store and begins epoch 1.
func openEpoch(t testing.TB) (*store.Store, int64) {
	t.Helper()
	s, _ := openTemp(t)
	epoch, _, err := s.BeginEpoch(context.Background(), "inst-1")
	if err != nil {
		t.Fatalf("BeginEpoch: %v", err)
	}
	return s, epoch
}

// mustTx runs fn in InTx and fails the test on error.
func mustTx(t testing.TB, s *store.Store, epoch int64, fn func(tx *store.Tx) error) {
	t.Helper()
	if err := s.InTx(context.Background(), epoch, fn); err != nil {
		t.Fatalf("InTx: %v", err)
	}
}

// logical returns a logical session row (id == chat_id).
func logical(id string) store.Session {
	return store.Session{ID: id, ChatID: id, Source: "cli", UserID: "uid:1000", Model: "m", Cwd: "/tmp"}
}

// addSession inserts a logical session.
func addSession(t testing.TB, s *store.Store, epoch int64, id string) {
	t.Helper()
	mustTx(t, s, epoch, func(tx *store.Tx) error { return tx.InsertSession(logical(id)) })
}

// submit inserts a queued admission for (principal uid:1000, session, request).
func submit(t testing.TB, s *store.Store, epoch int64, session, request string) store.Admission {
	t.Helper()
	var a store.Admission
	mustTx(t, s, epoch, func(tx *store.Tx) (err error) {
		a, err = tx.InsertAdmission(store.Admission{
			RequestID: request, PrincipalID: "uid:1000", TargetSessionID: session,
			PayloadJSON: `{"text":"` + request + `"}`, PayloadDigest: "d-" + request,
		})
		return err
	})
	return a
}

// claim runs ClaimNext in its own transaction.
func claim(t testing.TB, s *store.Store, epoch int64, session string) (store.Admission, bool, error) {
	t.Helper()
	var a store.Admission
	var ok bool
	err := s.InTx(context.Background(), epoch, func(tx *store.Tx) (err error) {
		a, ok, err = tx.ClaimNext(session)
		return err
	})
	return a, ok, err
}
