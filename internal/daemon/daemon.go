// Package daemon wires the gateway together and owns its lifecycle: the
// home lock, the store and its epoch, recovery, the listeners, and the
// graceful stop. Run is the whole daemon; it returns when the context ends
// (SIGTERM/SIGINT) after every goroutine it started has exited.
//
// It may import the authority and its transports together (its row in
// docs/architecture.md), and must never import cli, doctor or service, which
// call it, nor the clients (client, tui, acp): it is driven over its
// sockets, never linked against its callers.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/authority"
	"github.com/hermes-gateway/hermes/internal/config"
	"github.com/hermes-gateway/hermes/internal/control"
	"github.com/hermes-gateway/hermes/internal/events"
	"github.com/hermes-gateway/hermes/internal/faults"
	"github.com/hermes-gateway/hermes/internal/ids"
	"github.com/hermes-gateway/hermes/internal/logfile"
	"github.com/hermes-gateway/hermes/internal/mcp"
	"github.com/hermes-gateway/hermes/internal/metrics"
	"github.com/hermes-gateway/hermes/internal/server"
	"github.com/hermes-gateway/hermes/internal/store"
)

// Exit codes (docs/protocol.md#exit-codes).
const (
	ExitRuntime     = 1
	ExitUnavailable = 3
	ExitDamaged     = 5
)

// ExitError is a start-up failure with the process exit code it maps to and
// a one-line message that says what to do.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

func exitf(code int, format string, args ...any) error {
	return &ExitError{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Options configure Run.
type Options struct {
	Home   string    // the profile home (HERMES_HOME)
	Listen string    // HERMES_LISTEN; "" = gateway.listen from config.yaml
	Stderr io.Writer // also receives the JSON log when non-nil (foreground run)
	Stdout io.Writer // receives the one "ready" line when non-nil
	// WorkerCommand is the argv of `hermes worker` for safe-mode turns.
	WorkerCommand []string
}

// Run is the daemon: it returns nil after a graceful stop, an *ExitError for
// a start-up refusal, or another error.
func Run(ctx context.Context, opts Options) error {
	if err := setNonDumpable(); err != nil { // first: before any key is read
		return err
	}
	if err := guardHome(opts.Home); err != nil { // before anything touches the home
		return err
	}
	home, err := prepareHome(opts.Home)
	if err != nil {
		return err
	}
	lock, err := acquireLock(home)
	if err != nil {
		return err
	}
	defer lock.release()
	logFile, log, err := openLog(home, opts.Stderr)
	if err != nil {
		return err
	}
	defer logFile.Close()
	d := &daemon{home: home, opts: opts, log: log, logw: logFile, fenced: make(chan struct{})}
	if err := d.start(ctx); err != nil {
		log.Error("gateway did not start", "err", err.Error())
		return err
	}
	return d.serve(ctx)
}

// daemon holds what Run wires together.
type daemon struct {
	home string
	opts Options
	log  *slog.Logger
	logw *logfile.Writer // logs/gateway.log; limits set from config.yaml

	cfg        config.Config
	settings   *settingsSource
	st         *store.Store
	hub        *events.Hub
	tickets    *auth.Tickets
	auth       *authority.Authority
	procs      *procTracker
	sandboxes  *launchers
	mcp        *mcp.Manager // MCP servers (mcp.go)
	ln         net.Listener
	srv        *server.Server
	dash       server.Dashboard
	ctl        *control.Server
	metrics    *metrics.Metrics // always made; served only on metrics.listen
	metricsLn  net.Listener     // nil = no metrics endpoint
	fenced     chan struct{}    // closed once when another gateway took over the database
	fenceOnce  sync.Once
	profileID  string
	instanceID string
	epoch      int64
	state      atomic.Value // string
}

func prepareHome(home string) (string, error) {
	if home == "" {
		return "", exitf(2, "no home directory: set HERMES_HOME or pass --home DIR")
	}
	abs, err := filepath.Abs(home)
	if err != nil {
		return "", exitf(ExitRuntime, "home %s: %v", home, err)
	}
	for _, dir := range []string{abs, filepath.Join(abs, "logs")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", exitf(ExitRuntime, "cannot create %s: %v", dir, err)
		}
	}
	if err := os.Chmod(abs, 0o700); err != nil {
		return "", exitf(ExitRuntime, "cannot restrict %s to its owner: %v", abs, err)
	}
	return abs, nil
}

func openLog(home string, stderr io.Writer) (*logfile.Writer, *slog.Logger, error) {
	f, err := logfile.Open(filepath.Join(home, "logs", "gateway.log"), logfile.DefaultMaxBytes, logfile.DefaultKeep)
	if err != nil {
		return nil, nil, exitf(ExitRuntime, "cannot open the log: %v", err)
	}
	var w io.Writer = f
	if stderr != nil {
		w = io.MultiWriter(f, stderr)
	}
	return f, slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{ReplaceAttr: redactAttr})), nil
}

// start runs the steps before readiness, in order, each once: load config
// (config.yaml and .env, parsed once) → open the sandbox → open the store →
// begin the epoch → wire the parts → recover → listen. Connections are
// accepted only after recovery; serve starts answering them.
func (d *daemon) start(ctx context.Context) error {
	d.state.Store(control.StateStarting)
	if err := d.loadConfig(); err != nil {
		return err
	}
	if err := d.openSandbox(); err != nil {
		return err
	}
	if err := d.openStore(ctx); err != nil {
		return err
	}
	if err := d.beginEpoch(ctx); err != nil {
		return err
	}
	d.wire()
	if err := d.recover(ctx); err != nil {
		return err
	}
	return d.listen()
}

// openStore opens state.db (quick_check, migrations) and reads the
// profile's id from it.
func (d *daemon) openStore(ctx context.Context) error {
	st, err := store.Open(ctx, filepath.Join(d.home, "state.db"))
	if errors.Is(err, store.ErrCorrupt) {
		return exitf(ExitDamaged, "state.db is damaged (%v); nothing was run or repaired — restore a backup or move %s away",
			err, filepath.Join(d.home, "state.db"))
	}
	if err != nil {
		return exitf(ExitRuntime, "cannot open state.db: %v", err)
	}
	d.st = st
	d.log.Info("store opened", "quick_check_ms", st.QuickCheckDuration().Milliseconds())
	d.profileID, err = st.EnsureProfileID(ctx)
	return err
}

// beginEpoch takes this process's runtime epoch: every write from now on is
// fenced by it, and the executions the previous epoch left started are
// marked unknown (logged here; recover restores their sessions).
func (d *daemon) beginEpoch(ctx context.Context) error {
	d.instanceID = ids.New("", 16)
	epoch, unknown, err := d.st.BeginEpoch(ctx, d.instanceID)
	if err != nil {
		return exitf(ExitRuntime, "cannot begin a runtime epoch: %v", err)
	}
	d.epoch = epoch
	for _, e := range unknown {
		d.log.Warn("interrupted execution marked unknown", "session_id", e.SessionID, "admission_id", e.AdmissionID)
	}
	faults.Hit(faults.RecoveryAfterUnknown)
	return nil
}

// wire makes the parts that serve the epoch: the metrics registry, the
// event hub, the ticket minter, the tool-process tracker (after killing the
// tool processes a killed predecessor left), the MCP manager and the
// authority. It starts nothing.
func (d *daemon) wire() {
	d.newMetrics()
	d.hub = events.NewHub(events.Options{BufferBytes: d.cfg.Gateway.ViewerBufferBytes})
	d.tickets = auth.NewTickets(d.profileID, d.instanceID)
	killOrphanTools(d.home, d.log)
	d.procs = newProcTracker(filepath.Join(d.home, toolGroupsFile))
	d.openMCP()
	d.auth = authority.New(authority.Config{
		Store: d.st, Hub: d.hub, ProfileID: d.profileID, InstanceID: d.instanceID, Epoch: d.epoch,
		Logger: d.log, Settings: d.settings.Settings, AppendAllowlist: d.settings.appendAllowlist,
		Processes: d.procs, SkillsDir: filepath.Join(d.home, "skills"), WorkerCommand: d.opts.WorkerCommand,
		ProfileHome: d.home, Launcher: d.sandboxes.For,
		OnFenced: func() { d.fenceOnce.Do(func() { close(d.fenced) }) },
		Observer: d.observer(),
		MCPTools: d.mcpTools,
	})
}

// recover restores every session with work or a waiter (Authority.Recover);
// nothing is scheduled until serve.
func (d *daemon) recover(ctx context.Context) error {
	if err := d.auth.Recover(ctx); err != nil {
		return exitf(ExitRuntime, "recovery failed: %v", err)
	}
	return nil
}

// serve runs the listeners until ctx ends, then stops gracefully.
func (d *daemon) serve(ctx context.Context) error {
	srvCtx, stopServers := context.WithCancel(context.WithoutCancel(ctx))
	g, gctx := errgroup.WithContext(srvCtx)
	g.Go(func() error { return d.srv.Serve(gctx, d.ln) })
	g.Go(func() error { return d.ctl.Run(gctx) })
	g.Go(func() error { return d.mcp.Run(gctx) }) // after the drain: stops every MCP server
	g.Go(func() error { return d.serveMetrics(gctx) })
	d.state.Store(control.StateReady)
	d.log.Info("gateway ready", "api_origin", d.apiOrigin(), "epoch", d.epoch, "pid", os.Getpid())
	if d.opts.Stdout != nil {
		fmt.Fprintf(d.opts.Stdout, "hermes gateway ready on %s (home %s, epoch %d)\n", d.apiOrigin(), d.home, d.epoch)
	}
	faults.Hit(faults.RecoveryBeforeSchedule)
	d.auth.Schedule()
	faults.Hit(faults.RecoveryAfterReady)
	select {
	case <-ctx.Done():
	case <-gctx.Done():
	case <-d.fenced:
	}
	d.drain()
	stopServers()
	err := g.Wait()
	if c, ok := d.dash.(io.Closer); ok {
		_ = c.Close() // kills and joins the terminal panes
	}
	if cerr := d.st.Checkpoint(context.Background()); cerr != nil {
		d.log.Warn("wal checkpoint failed", "err", cerr)
	}
	_ = d.st.Close()
	d.log.Info("gateway stopped")
	select {
	case <-d.fenced:
		return exitf(ExitUnavailable, "another gateway took over %s (its epoch fenced this one off); this gateway stopped without writing",
			filepath.Join(d.home, "state.db"))
	default:
	}
	return err
}

// drain stops admitting, lets running turns end within shutdown_timeout,
// then interrupts what is left (those rows stay started → unknown next time).
func (d *daemon) drain() {
	d.state.Store(control.StateDraining)
	d.auth.Drain()
	timeout := time.Duration(d.cfg.Gateway.ShutdownTimeout)
	wctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := d.auth.Wait(wctx); err != nil {
		d.log.Warn("shutdown deadline reached; interrupting running turns")
	}
	d.auth.Close()
}

func (d *daemon) apiOrigin() string {
	if d.ln == nil {
		return ""
	}
	_, port, _ := net.SplitHostPort(d.ln.Addr().String())
	host, _, _ := net.SplitHostPort(d.ln.Addr().String())
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
