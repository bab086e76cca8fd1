package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/control"
	"github.com/hermes-gateway/hermes/internal/daemon"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// callTimeout bounds every single call a benchmark makes: a hang fails the
// benchmark instead of stalling CI.
const callTimeout = 30 * time.Second

// gateway is an in-process daemon on a temp home of the real filesystem.
type gateway struct {
	home  string
	sock  string
	id    control.Identity
	ready *signalWriter // Options.Stdout: fires on the one "ready" line
	log   *logTap       // Options.Stderr: the JSON log with arrival times
	stop  context.CancelFunc
	done  chan error
}

// benchHome makes a short home directory (the control socket path must fit
// in sun_path) under $TMPDIR, removed at cleanup.
func benchHome(b testing.TB) string {
	b.Helper()
	dir, err := os.MkdirTemp("", "hb")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// writeConfig points the home at the fake model (non-streaming) and keeps
// the shutdown short: held turns are interrupted, not waited for.
func writeConfig(b testing.TB, home, modelURL, extra string) {
	b.Helper()
	// titles off: the figures are of turns, comparable with those before
	// automatic titles (one more request after a session's first turn).
	cfg := fmt.Sprintf("model: {default: fake-model, base_url: %q}\nstreaming: {enabled: false}\n"+
		"gateway: {shutdown_timeout: 200ms}\ntitles: {auto: false}\n%s", modelURL, extra)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
}

// startGateway runs daemon.Run on home (already configured) and returns once
// it printed its ready line; it is shut down at cleanup.
func startGateway(b testing.TB, home string) *gateway {
	b.Helper()
	g := launch(home)
	b.Cleanup(func() { g.shutdown(b) })
	if err := g.awaitReady(60 * time.Second); err != nil {
		b.Fatal(err)
	}
	g.identify(b)
	return g
}

// launch starts daemon.Run without waiting.
func launch(home string) *gateway {
	ctx, cancel := context.WithCancel(context.Background())
	g := &gateway{home: home, sock: filepath.Join(home, "gateway.sock"), ready: newSignalWriter(),
		log: &logTap{}, stop: cancel, done: make(chan error, 1)}
	go func() {
		g.done <- daemon.Run(ctx, daemon.Options{Home: home, Listen: "127.0.0.1:0", Stdout: g.ready, Stderr: g.log})
	}()
	return g
}

func (g *gateway) awaitReady(timeout time.Duration) error {
	select {
	case <-g.ready.fired:
		return nil
	case err := <-g.done:
		g.done <- err
		return fmt.Errorf("daemon exited during start: %v", err)
	case <-time.After(timeout):
		return fmt.Errorf("daemon not ready in %v", timeout)
	}
}

// shutdown stops the daemon gracefully and waits for Run to return.
func (g *gateway) shutdown(b testing.TB) {
	if g.stop == nil {
		return
	}
	g.stop()
	g.stop = nil
	if err := <-g.done; err != nil {
		b.Errorf("daemon stopped with %v", err)
	}
}

func (g *gateway) identify(b testing.TB) {
	b.Helper()
	if err := control.Call(context.Background(), g.sock, "identify", nil, &g.id); err != nil {
		b.Fatal(err)
	}
}

// ticket mints one interactive ticket over the control socket.
func (g *gateway) ticket(ctx context.Context) (string, error) {
	var tr control.TicketResult
	p := control.TicketParams{ProfileID: g.id.ProfileID, InstanceID: g.id.InstanceID, Purpose: auth.PurposeInteractive}
	err := control.Call(ctx, g.sock, "session-ticket", p, &tr)
	return tr.Ticket, err
}

// dial mints a ticket and upgrades; the caller owns the event stream.
func (g *gateway) dial(ctx context.Context) (*client.Client, error) {
	t, err := g.ticket(ctx)
	if err != nil {
		return nil, err
	}
	return client.Dial(ctx, g.id.APIOrigin, client.Options{Ticket: t})
}

// connect dials and discards every event in the background, so a
// benchmark that never reads events cannot overflow the client's buffer.
// The connection is closed at cleanup.
func (g *gateway) connect(b testing.TB) *client.Client {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	c, err := g.dial(ctx)
	if err != nil {
		b.Fatal(err)
	}
	go discard(c)
	b.Cleanup(func() { _ = c.Close() })
	return c
}

// discard reads c's events until the connection ends.
func discard(c *client.Client) {
	for range c.Events() {
	}
}

func callCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), callTimeout)
}

// createSession creates a session with explicit toolsets in cwd.
func createSession(b testing.TB, c *client.Client, requestID, cwd string, toolsets []string) string {
	b.Helper()
	ctx, cancel := callCtx()
	defer cancel()
	snap, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: &requestID, Cwd: &cwd, Toolsets: &toolsets})
	if err != nil {
		b.Fatal(err)
	}
	return snap.SessionID
}

func resumeSession(b testing.TB, c *client.Client, sid string) {
	b.Helper()
	ctx, cancel := callCtx()
	defer cancel()
	if _, err := c.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &sid}); err != nil {
		b.Fatal(err)
	}
}

func submit(ctx context.Context, c *client.Client, sid, submissionID, text string) (protocol.Receipt, error) {
	return c.Submit(ctx, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: &submissionID, Text: text})
}

// heldModel is a fake model whose every reply is held by a barrier released
// at cleanup: the first turn of each session blocks in the model call, so
// later submits stay queued and only admission is measured.
func heldModel(b testing.TB) (*modeltest.Server, *modeltest.Barrier) {
	m := modeltest.New(b)
	bar := modeltest.NewBarrier()
	m.Handle(func(*modeltest.Request) modeltest.Reply { return modeltest.Reply{Text: "ok", Hold: bar} })
	b.Cleanup(bar.Release) // registered after New: runs before the server closes
	return m, bar
}

// signalWriter closes fired on its first Write.
type signalWriter struct {
	once  sync.Once
	fired chan struct{}
	at    time.Time // set before fired is closed
}

func newSignalWriter() *signalWriter { return &signalWriter{fired: make(chan struct{})} }

func (w *signalWriter) Write(p []byte) (int, error) {
	w.once.Do(func() {
		w.at = time.Now()
		close(w.fired)
	})
	return len(p), nil
}

// logTap records the daemon's JSON log lines with their arrival time.
type logTap struct {
	mu    sync.Mutex
	lines []logLine // guarded by mu
}

type logLine struct {
	at     time.Time
	msg    string
	fields map[string]any
}

func (t *logTap) Write(p []byte) (int, error) {
	now := time.Now()
	sc := bufio.NewScanner(bytes.NewReader(p))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	t.mu.Lock()
	defer t.mu.Unlock()
	for sc.Scan() {
		var f map[string]any
		if json.Unmarshal(sc.Bytes(), &f) != nil {
			continue
		}
		msg, _ := f["msg"].(string)
		t.lines = append(t.lines, logLine{at: now, msg: msg, fields: f})
	}
	return len(p), nil
}

// first returns the first line with msg.
func (t *logTap) first(msg string) (logLine, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, l := range t.lines {
		if l.msg == msg {
			return l, true
		}
	}
	return logLine{}, false
}
