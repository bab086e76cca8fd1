package gatewaytest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/modeltest"
)

// Fixture is the usual process test setup: a built binary, a fake model
// answering by prompt (Turns), an effects ledger and one profile home
// whose config points at the fake model.
type Fixture struct {
	T      testing.TB
	Bin    string
	Home   string
	Config Config
	Model  *modeltest.Server
	Turns  *Turns
	Ledger *Ledger
	Env    []string // added to every daemon this fixture starts
	D      *Daemon  // the last daemon started
}

// NewFixture builds the binary with tags, starts the fake model and writes
// cfg (ModelURL filled in) to a new home. No daemon runs yet.
func NewFixture(t testing.TB, cfg Config, tags ...string) *Fixture {
	t.Helper()
	f := &Fixture{T: t, Bin: Build(t, tags...), Model: modeltest.New(t), Turns: NewTurns(), Ledger: NewLedger(t)}
	f.Model.Handle(f.Turns.Reply)
	cfg.ModelURL = f.Model.URL()
	// Tools run sandboxed: the ledger (outside every cwd, under the host
	// /tmp the sandbox replaces) must be a writable root for the effects a
	// test counts. A test that configures the sandbox itself says so.
	if !strings.Contains(cfg.Extra, "sandbox:") {
		cfg.Extra += "sandbox: {writable_roots: [" + q(filepath.Dir(f.Ledger.Path)) + "]}\n"
	}
	f.Config = cfg
	f.Home = NewHome(t, cfg.YAML())
	return f
}

// Start starts a daemon on the fixture's home and waits until it is ready.
func (f *Fixture) Start(env ...string) *Daemon {
	f.T.Helper()
	f.D = Start(f.T, f.Bin, f.Home, append(append([]string(nil), f.Env...), env...)...)
	return f.D
}

// Launch starts a daemon without waiting for readiness.
func (f *Fixture) Launch(env ...string) *Daemon {
	f.T.Helper()
	f.D = Launch(f.T, f.Bin, f.Home, append(append([]string(nil), f.Env...), env...)...)
	return f.D
}

// Crash SIGKILLs the current daemon (when it still runs) and starts a new
// one without faults.
func (f *Fixture) Crash() *Daemon {
	f.T.Helper()
	if f.D != nil && f.D.Alive() {
		f.D.Kill()
	}
	return f.Start()
}
