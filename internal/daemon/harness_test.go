package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/control"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

// testDaemon is an in-process daemon on a temp home.
type testDaemon struct {
	t     *testing.T
	home  string
	model *modeltest.Server
	stop  context.CancelFunc
	done  chan error
}

func startTest(t *testing.T, extraConfig string) *testDaemon {
	t.Helper()
	m := modeltest.New(t)
	home := t.TempDir()
	cfg := "model: {default: fake-model, base_url: \"" + m.URL() + "\"}\n" + extraConfig
	if !strings.Contains(extraConfig, "streaming:") {
		cfg += "streaming: {enabled: false}\n"
	}
	// Scripted replies are consumed in order: an automatic title would take one.
	if !strings.Contains(extraConfig, "titles:") {
		cfg += "titles: {auto: false}\n"
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	d := &testDaemon{t: t, home: home, model: m, done: make(chan error, 1)}
	d.start()
	t.Cleanup(d.shutdown)
	return d
}

func (d *testDaemon) start() {
	ctx, cancel := context.WithCancel(context.Background())
	d.stop = cancel
	done := make(chan error, 1)
	d.done = done
	go func() { done <- Run(ctx, Options{Home: d.home, Listen: "127.0.0.1:0"}) }()
	d.awaitReady()
}

func (d *testDaemon) awaitReady() {
	d.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var id control.Identity
		err := control.Call(context.Background(), filepath.Join(d.home, "gateway.sock"), "identify", nil, &id)
		if err == nil && id.State == control.StateReady {
			return
		}
		select {
		case err := <-d.done:
			d.t.Fatalf("daemon exited during start: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	d.t.Fatal("daemon not ready in 20s")
}

func (d *testDaemon) shutdown() {
	if d.stop == nil {
		return
	}
	d.stop()
	if err := <-d.done; err != nil {
		d.t.Errorf("daemon stopped with %v", err)
	}
	d.stop = nil
}

// restart stops the daemon gracefully and starts a new one on the same home.
func (d *testDaemon) restart() {
	d.shutdown()
	d.start()
}

func (d *testDaemon) identify() control.Identity {
	d.t.Helper()
	var id control.Identity
	if err := control.Call(context.Background(), filepath.Join(d.home, "gateway.sock"), "identify", nil, &id); err != nil {
		d.t.Fatal(err)
	}
	return id
}

func (d *testDaemon) ticket() (string, control.Identity) {
	d.t.Helper()
	id := d.identify()
	var tr control.TicketResult
	p := control.TicketParams{ProfileID: id.ProfileID, InstanceID: id.InstanceID, Purpose: auth.PurposeInteractive}
	if err := control.Call(context.Background(), filepath.Join(d.home, "gateway.sock"), "session-ticket", p, &tr); err != nil {
		d.t.Fatal(err)
	}
	return tr.Ticket, id
}

func (d *testDaemon) connect() *client.Client {
	d.t.Helper()
	ticket, id := d.ticket()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, id.APIOrigin, client.Options{Ticket: ticket})
	if err != nil {
		d.t.Fatal(err)
	}
	d.t.Cleanup(func() { _ = c.Close() })
	return c
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// reason extracts the wire reason of a call error.
func reason(err error) string {
	if err == nil {
		return ""
	}
	var ce *rpc.CallError
	if errors.As(err, &ce) && ce.Reason != "" {
		return string(ce.Reason)
	}
	s := err.Error()
	for _, r := range []string{"invalid_params", "permission_denied", "profile_mismatch", "not_found",
		"admission_conflict", "runtime_draining", "stale_generation", "unknown_execution", "revision_conflict",
		"launch_credentials_unavailable", "storage_unavailable", "unknown_method"} {
		if strings.Contains(s, r) {
			return r
		}
	}
	return s
}
