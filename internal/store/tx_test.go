package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hermes-gateway/hermes/internal/store"
)

func TestInTxRollbackOnError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	boom := errors.New("boom")
	err := s.InTx(ctx, epoch, func(tx *store.Tx) error {
		if err := tx.InsertSession(logical("local-x")); err != nil {
			return err
		}
		if err := tx.PutMeta("k", "v"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx = %v, want the fn's error", err)
	}
	if _, err := s.Session(ctx, "local-x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("rolled-back session visible: %v", err)
	}
	if _, ok, _ := s.Meta(ctx, "k"); ok {
		t.Error("rolled-back meta visible")
	}
	// The writer is usable afterwards (the connection was released).
	addSession(t, s, epoch, "local-y")
}

func TestInTxRollbackOnPanic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	func() {
		defer func() {
			if r := recover(); r != "kaboom" {
				t.Errorf("recovered %v, want the original panic", r)
			}
		}()
		_ = s.InTx(ctx, epoch, func(tx *store.Tx) error {
			if err := tx.InsertSession(logical("local-x")); err != nil {
				return err
			}
			panic("kaboom")
		})
		t.Error("InTx returned instead of re-panicking")
	}()
	if _, err := s.Session(ctx, "local-x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("session of a panicked tx visible: %v", err)
	}
	addSession(t, s, epoch, "local-y")
}

func TestTxSessionMutators(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	addSession(t, s, epoch, "local-a")
	if err := s.InTx(ctx, epoch, func(tx *store.Tx) error { return tx.InsertSession(logical("local-a")) }); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate session = %v, want ErrConflict", err)
	}
	child := store.Session{ID: "phys-1", ChatID: "local-a", Source: "cli", ParentSessionID: "local-a", ModelConfig: `{"_reset_from":"local-a"}`}
	mustTx(t, s, epoch, func(tx *store.Tx) error {
		if err := tx.InsertSession(child); err != nil {
			return err
		}
		if err := tx.EndSession("local-a", "session_reset", 1234); err != nil {
			return err
		}
		if err := tx.SetTitle("local-a", "My title"); err != nil {
			return err
		}
		if err := tx.SetArchived("local-a", true); err != nil {
			return err
		}
		rev, err := tx.BumpRevision("local-a")
		if err != nil || rev != 1 {
			t.Errorf("BumpRevision = %d, %v; want 1", rev, err)
		}
		return nil
	})
	got, err := s.Session(ctx, "local-a")
	if err != nil || got.EndReason != "session_reset" || got.EndedAtMs != 1234 || got.Title != "My title" ||
		!got.Archived || got.RuntimeRevision != 1 || got.ReplayEpoch == "" || got.StartedAtMs == 0 {
		t.Errorf("session after mutators = %+v, %v", got, err)
	}
	ph, err := s.Session(ctx, "phys-1")
	if err != nil || ph.ParentSessionID != "local-a" || ph.ChatID != "local-a" || ph.EndedAtMs != 0 || ph.EndReason != "" {
		t.Errorf("child = %+v, %v", ph, err)
	}
	for name, fn := range map[string]func(tx *store.Tx) error{
		"EndSession":   func(tx *store.Tx) error { return tx.EndSession("ghost", "x", 1) },
		"SetTitle":     func(tx *store.Tx) error { return tx.SetTitle("ghost", "x") },
		"SetArchived":  func(tx *store.Tx) error { return tx.SetArchived("ghost", true) },
		"BumpRevision": func(tx *store.Tx) error { _, err := tx.BumpRevision("ghost"); return err },
		"Session":      func(tx *store.Tx) error { _, err := tx.Session("ghost"); return err },
	} {
		if err := s.InTx(ctx, epoch, fn); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s(ghost) = %v, want ErrNotFound", name, err)
		}
	}
}

func TestTxMetaRoutesMutations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	mustTx(t, s, epoch, func(tx *store.Tx) error {
		if _, ok, err := tx.Meta("gateway.local_policy.v1:local-a"); ok || err != nil {
			t.Errorf("Meta(absent) = %v, %v", ok, err)
		}
		if err := tx.PutMeta("gateway.local_policy.v1:local-a", `{"a":1}`); err != nil {
			return err
		}
		if err := tx.PutMeta("gateway.local_policy.v1:local-a", `{"a":2}`); err != nil {
			return err
		}
		if v, ok, err := tx.Meta("gateway.local_policy.v1:local-a"); v != `{"a":2}` || !ok || err != nil {
			t.Errorf("Meta = %q, %v, %v", v, ok, err)
		}
		if err := tx.PutMeta("gateway.other", "x"); err != nil {
			return err
		}
		if err := tx.PutRoute(store.Route{SessionKey: "agent:main:local:dm:local-a", EntryJSON: `{"session_id":"local-a"}`}); err != nil {
			return err
		}
		if err := tx.PutRoute(store.Route{SessionKey: "agent:main:local:dm:local-a", EntryJSON: `{"session_id":"phys"}`, UpdatedAtMs: 7}); err != nil {
			return err
		}
		if err := tx.PutMutation("uid:1", "local-a", "m1", "dg", `{"revision":1}`); err != nil {
			return err
		}
		if err := tx.PutMutation("uid:1", "local-a", "m1", "dg", `{}`); !errors.Is(err, store.ErrConflict) {
			t.Errorf("PutMutation twice = %v, want ErrConflict", err)
		}
		return nil
	})
	mustTx(t, s, epoch, func(tx *store.Tx) error {
		r, ok, err := tx.Route("", "agent:main:local:dm:local-a")
		if err != nil || !ok || r.EntryJSON != `{"session_id":"phys"}` || r.UpdatedAtMs != 7 {
			t.Errorf("Route = %+v, %v, %v", r, ok, err)
		}
		if _, ok, _ := tx.Route("other", "agent:main:local:dm:local-a"); ok {
			t.Error("route found under another scope")
		}
		d, res, ok, err := tx.Mutation("uid:1", "local-a", "m1")
		if d != "dg" || res != `{"revision":1}` || !ok || err != nil {
			t.Errorf("Mutation = %q, %q, %v, %v", d, res, ok, err)
		}
		if _, _, ok, err := tx.Mutation("uid:2", "local-a", "m1"); ok || err != nil {
			t.Errorf("Mutation(other principal) = %v, %v", ok, err)
		}
		return tx.DeleteMeta("gateway.other")
	})
	keys, err := s.MetaKeys(ctx, "gateway.")
	if err != nil || len(keys) != 1 || keys[0] != "gateway.local_policy.v1:local-a" {
		t.Errorf("MetaKeys = %v, %v", keys, err)
	}
	if keys, _ := s.MetaKeys(ctx, "gateway.local_policy.v1:"); len(keys) != 1 {
		t.Errorf("MetaKeys(policy prefix) = %v", keys)
	}
}
