package authority_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/authority"
	"github.com/hermes-gateway/hermes/internal/events"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
)

// TestTurnPanicContainedToSession: docs/protocol.md#panics. A panic inside one
// session's turn (injected through the profile-key lookup every turn
// makes) settles that turn failed; another session's running turn goes
// on and completes, and the panicked session's FIFO runs its next input.
func TestTurnPanicContainedToSession(t *testing.T) {
	t.Parallel()
	hold := modeltest.NewBarrier()
	t.Cleanup(hold.Release)
	m := modeltest.New(t)
	m.Handle(func(r *modeltest.Request) modeltest.Reply {
		if r.LastUserText() == "HELD" {
			return modeltest.Reply{Text: "held done", Hold: hold}
		}
		return modeltest.Text("ok")
	})
	var boom atomic.Bool // the next turn's key lookup panics
	settings := authority.Settings{
		Defaults: session.Defaults{HomeDir: t.TempDir(), Model: "test-model", Provider: "custom", BaseURL: m.URL()},
		ProfileKey: func(string) string {
			if boom.CompareAndSwap(true, false) {
				panic("injected by the test")
			}
			return ""
		},
	}
	a, p := newAuthority(t, func() authority.Settings { return settings })

	calm, victim := create(t, a, p, "calm"), create(t, a, p, "victim")
	held := submit(t, a, p, calm, "HELD")
	if err := hold.AwaitWaiting(ctxFor(t), 1); err != nil {
		t.Fatal(err)
	}
	boom.Store(true)
	bad := submit(t, a, p, victim, "PANIC")
	if got := awaitTerminal(t, a, p, victim, bad); got != protocol.OutcomeFailed {
		t.Errorf("the panicked turn: outcome %q, want failed", got)
	}
	if boom.Load() {
		t.Fatal("the injected panic never fired")
	}
	hold.Release()
	if got := awaitTerminal(t, a, p, calm, held); got != protocol.OutcomeCompleted {
		t.Errorf("the other session's turn: outcome %q, want completed", got)
	}
	again := submit(t, a, p, victim, "AGAIN")
	if got := awaitTerminal(t, a, p, victim, again); got != protocol.OutcomeCompleted {
		t.Errorf("the panicked session's next turn: outcome %q, want completed", got)
	}
}

// newAuthority opens a fresh store, begins an epoch and returns a
// scheduled Authority (closed in t.Cleanup) and a native principal.
func newAuthority(t *testing.T, settings func() authority.Settings) (*authority.Authority, auth.Principal) {
	t.Helper()
	ctx := ctxFor(t)
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	profile, err := st.EnsureProfileID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	epoch, _, err := st.BeginEpoch(ctx, "test-instance")
	if err != nil {
		t.Fatal(err)
	}
	a := authority.New(authority.Config{Store: st, Hub: events.NewHub(events.Options{}), ProfileID: profile,
		InstanceID: "test-instance", Epoch: epoch, Settings: settings})
	if err := a.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	a.Schedule()
	t.Cleanup(a.Close) // before the store closes (cleanups run last-in first-out)
	return a, auth.Principal{Subject: auth.NativeSubject(0), ProfileID: profile, TransportID: auth.NewTransportID(),
		Caps: auth.InteractiveCaps()}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func create(t *testing.T, a *authority.Authority, p auth.Principal, requestID string) string {
	t.Helper()
	dir := t.TempDir()
	sid, err := a.Create(ctxFor(t), p, protocol.SessionCreateParams{RequestID: &requestID, Cwd: &dir})
	if err != nil {
		t.Fatalf("create %s: %v", requestID, err)
	}
	return sid
}

// submit admits text to sid and returns the admission id.
func submit(t *testing.T, a *authority.Authority, p auth.Principal, sid, text string) string {
	t.Helper()
	rc, err := a.Submit(ctxFor(t), p, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: &text, Text: text})
	if err != nil {
		t.Fatalf("submit %s: %v", text, err)
	}
	return rc.AdmissionID
}

// awaitTerminal polls the receipt until it is terminal and returns the
// outcome.
func awaitTerminal(t *testing.T, a *authority.Authority, p auth.Principal, sid, admissionID string) string {
	t.Helper()
	ctx := ctxFor(t)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		rc, err := a.Receipt(ctx, p, sid, admissionID)
		if err == nil && rc.Status == protocol.StatusTerminal && rc.Outcome != nil {
			return *rc.Outcome
		}
		select {
		case <-ctx.Done():
			t.Fatalf("admission %s not terminal: %+v %v", admissionID, rc, err)
		case <-tick.C:
		}
	}
}
