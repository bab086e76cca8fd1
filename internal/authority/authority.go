package authority

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/hermes-gateway/hermes/internal/events"
	"github.com/hermes-gateway/hermes/internal/hooks"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/sandbox"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// Settings are the profile's live settings, read from config.yaml and .env
// when a session is created and when a turn or an approval needs them. The
// frozen policy of a session always wins over them.
type Settings struct {
	Defaults        session.Defaults
	ProfileKey      func(provider string) string // the profile's api key for a provider; "" if none
	Allowlist       []string                     // command_allowlist, read live
	ApprovalsOff    bool                         // approvals.mode off: yolo for every session
	ApprovalTimeout time.Duration                // 0 = wait until answered
	ClarifyTimeout  time.Duration                // 0 = wait until answered
	ContextWindow   int
	Compression     Compression
	// Sandbox is the profile's sandbox.* now: frozen into new sessions by
	// Defaults, and used as is by sessions whose receipt has none.
	Sandbox session.SandboxPolicy
	// EnvPassthrough is terminal.env_passthrough, read live.
	EnvPassthrough []string
	// Checkpoints is config.yaml checkpoints, read live.
	Checkpoints CheckpointSettings
	// Hooks is config.yaml hooks (the last good section), frozen into new
	// accept_hooks sessions.
	Hooks hooks.Config
	// Titles is config.yaml titles.auto, read live (titles.go).
	Titles bool
	// Pricing is config.yaml pricing: model name → price, read live (usage.go).
	Pricing map[string]Price
}

// SandboxStatus is what the tool sandbox enforces; the alias lets the
// server carry it to runtime.describe without importing package sandbox.
type SandboxStatus = sandbox.Status

// Compression mirrors config.yaml compression.
type Compression struct {
	Enabled       bool
	Threshold     float64
	ProtectFirstN int
	ProtectLastN  int
}

// Config wires an Authority.
type Config struct {
	Store      *store.Store
	Hub        *events.Hub
	ProfileID  string
	InstanceID string
	Epoch      int64
	Logger     *slog.Logger
	// Settings reads the live settings; it is called often, so it should be cheap.
	Settings func() Settings
	// AppendAllowlist records an "always" approval in config.yaml.
	AppendAllowlist func(pattern string) error
	// Processes is told about every tool child process (control socket refusal).
	Processes tools.ProcessTracker
	SkillsDir string
	// ProfileHome is $HERMES_HOME: always hidden from tool processes.
	ProfileHome string
	// Launcher returns the sandbox launcher of a mode (the daemon keeps one
	// per mode); nil runs tool processes bare (tests that say so).
	Launcher func(sandbox.Mode) *sandbox.Launcher
	// OnFenced, when set, is called once when a write finds the epoch
	// fenced: another gateway owns the database, so this one should stop.
	OnFenced func()
	// WorkerCommand, when set, is the argv that runs a safe-mode turn in an
	// isolated process (hermes worker).
	WorkerCommand []string
	// MCPTools, when set, returns the tools of the session's frozen MCP
	// servers (policy.mcp), starting them as needed (issue 13).
	MCPTools func(ctx context.Context, sessionID string, pol session.Policy) []tools.Tool
	// Observer receives turn, model, tool and prompt measurements; nil = none.
	Observer Observer
}

// Authority owns execution for one profile. Create it with New, call Recover
// before accepting connections, Schedule once ready, and Close on shutdown.
type Authority struct {
	cfg    Config
	reads  reads       // the read models (reads.go)
	turns  turnBuilder // turn assembly (turnbuilder.go)
	log    *slog.Logger
	ctx    context.Context // cancelled by Close: stops every turn
	cancel context.CancelFunc
	wg     sync.WaitGroup // executors
	ckpt   *checkpoints   // checkpoint engine and per-turn state (checkpoint.go)
	titles titleTries     // sessions asked for an automatic title (titles.go)

	mu         sync.Mutex
	live       map[string]*live // logical id → live session; guarded by mu
	draining   bool             // guarded by mu
	scheduling bool             // guarded by mu: Schedule was called
	stale      bool             // guarded by mu: our epoch was fenced off
}

// New returns an Authority; it starts nothing.
func New(cfg Config) *Authority {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &Authority{cfg: cfg, log: cfg.Logger, ctx: ctx, cancel: cancel, live: map[string]*live{},
		ckpt: newCheckpoints(cfg.ProfileHome, cfg.Logger)}
	a.reads = reads{cfg: &a.cfg, lookup: a.liveSession, liveIDs: a.liveIDs}
	a.turns = newTurnBuilder(a)
	return a
}

// liveSession is the live session sid, nil if it is not live (it is not
// restored: see load).
func (a *Authority) liveSession(sid string) *live {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.live[sid]
}

// liveIDs are the ids of the live sessions, in no order.
func (a *Authority) liveIDs() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	ids := make([]string, 0, len(a.live))
	for id := range a.live {
		ids = append(ids, id)
	}
	return ids
}

// ProfileID is the opaque id of the profile this authority serves.
func (a *Authority) ProfileID() string { return a.cfg.ProfileID }

// InstanceID is this process's instance id.
func (a *Authority) InstanceID() string { return a.cfg.InstanceID }

// Epoch is this authority's runtime epoch.
func (a *Authority) Epoch() int64 { return a.cfg.Epoch }

// Drain stops admitting: session.create and prompt.submit answer
// runtime_draining from now on. Running turns go on.
func (a *Authority) Drain() {
	a.mu.Lock()
	a.draining = true
	a.mu.Unlock()
}

func (a *Authority) isDraining() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.draining || a.stale
}

// Wait blocks until no turn is running or ctx is done.
func (a *Authority) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close interrupts every running turn and joins the executors.
func (a *Authority) Close() {
	a.Drain()
	a.cancel()
	a.wg.Wait()
	a.endHookSessions()
}

// Describe answers runtime.describe.
func (a *Authority) Describe() protocol.RuntimeDescribeResult {
	return protocol.RuntimeDescribeResult{
		InstanceID:     a.cfg.InstanceID,
		ProfileID:      a.cfg.ProfileID,
		AuthorityEpoch: a.cfg.Epoch,
		Capabilities:   protocol.RuntimeCapabilities,
		SessionCreate: protocol.CreateSurface{
			Sources:    protocol.Sources,
			Parameters: protocol.CreateParameterNames,
		},
	}
}

// Counts answers the control socket's status verb.
type Counts struct {
	SessionsLive, Queued, Running, Unknown int
}

// Counts reads the admission counts and the number of live sessions.
func (a *Authority) Counts(ctx context.Context) (Counts, error) {
	c, err := a.cfg.Store.Counts(ctx)
	if err != nil {
		return Counts{}, err
	}
	a.mu.Lock()
	n := len(a.live)
	a.mu.Unlock()
	return Counts{SessionsLive: n, Queued: c.Queued, Running: c.Started, Unknown: c.Unknown}, nil
}

// fenced reports err as the daemon-wide fact it is: another process owns the
// database. The authority stops admitting and executing.
func (a *Authority) fenced(err error) error {
	if errors.Is(err, store.ErrStaleEpoch) {
		a.mu.Lock()
		first := !a.stale
		a.stale = true
		a.mu.Unlock()
		if first {
			a.log.Error("epoch fenced: another gateway owns this database; execution stopped")
			if a.cfg.OnFenced != nil {
				a.cfg.OnFenced()
			}
		}
		return wireError(err) // stale_epoch, unless err carries its reason already
	}
	return err
}
