package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-gateway/hermes/internal/sandbox"
)

// stderrTail is how much of a stdio server's stderr is kept for the
// failure reason.
const stderrTail = 4 << 10

// conn is one live client session with a server, and for stdio its
// process.
type conn struct {
	session *sdk.ClientSession
	done    chan struct{} // closed when the session ended (the server died or was closed)
	refresh chan struct{} // notifications/tools/list_changed (buffered 1)

	m      *Manager
	cmd    *exec.Cmd           // stdio only
	stderr *sandbox.TailBuffer // stdio only
	once   sync.Once

	mu     sync.Mutex
	reaped bool // cmd was waited for: its ProcessState may be read; guarded by mu
}

// dial starts the server's transport and initializes a session: life is
// the server's lifetime (it kills a stdio process when it ends), startup
// bounds the start.
func dial(life, startup context.Context, m *Manager, cfg Config) (*conn, error) {
	c := &conn{m: m, done: make(chan struct{}), refresh: make(chan struct{}, 1)}
	client := sdk.NewClient(&sdk.Implementation{Name: "hermes-gateway", Version: m.o.Version}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{}, // no roots, sampling or elicitation
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case c.refresh <- struct{}{}:
			default:
			}
		},
	})
	t, err := c.transport(life, cfg)
	if err != nil {
		return nil, err
	}
	cs, err := client.Connect(startup, t, nil)
	if err != nil { // the SDK closed the transport, which reaped a started process
		c.kill()
		c.markReaped()
		if startup.Err() != nil {
			return nil, fmt.Errorf("not initialized within startup_timeout %s%s", cfg.startupTimeout(), c.exitDetail())
		}
		return nil, fmt.Errorf("initialize: %s%s", oneLine(err.Error()), c.exitDetail())
	}
	c.session = cs
	go func() { // joined by close: it ends when the session does
		_ = cs.Wait()
		close(c.done)
	}()
	return c, nil
}

func (c *conn) transport(life context.Context, cfg Config) (sdk.Transport, error) {
	switch cfg.Transport {
	case TransportStdio:
		if c.m.o.Command == nil {
			return nil, errors.New("stdio MCP servers are not available in this gateway")
		}
		cmd, err := c.m.o.Command(life, cfg)
		if err != nil {
			return nil, err
		}
		c.cmd, c.stderr = cmd, sandbox.NewTailBuffer(stderrTail)
		cmd.Stderr = c.stderr
		cmd.WaitDelay = time.Second
		return &startedTransport{inner: &sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}, c: c}, nil
	case TransportHTTP, TransportSSE:
		hc := &http.Client{Transport: &headers{base: http.DefaultTransport, set: c.headers(cfg)}}
		if cfg.Transport == TransportSSE {
			return &sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: hc}, nil
		}
		return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: hc, MaxRetries: -1}, nil
	}
	return nil, fmt.Errorf("unknown MCP transport %q", cfg.Transport)
}

func (c *conn) headers(cfg Config) map[string]string {
	h := map[string]string{}
	for k, v := range cfg.Headers {
		h[k] = v
	}
	if cfg.BearerTokenEnv != "" && c.m.o.Secret != nil {
		if tok := c.m.o.Secret(cfg.BearerTokenEnv); tok != "" {
			h["Authorization"] = "Bearer " + tok
		}
	}
	return h
}

// startedTransport reports the pid of a stdio server once it started.
type startedTransport struct {
	inner *sdk.CommandTransport
	c     *conn
}

func (t *startedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err == nil && t.c.m.o.Processes != nil {
		t.c.m.o.Processes.Started(t.inner.Command.Process.Pid)
	}
	return conn, err
}

// died reports whether a call's error err means the server is gone: the
// session ended, or is ending (the read side saw EOF first).
func (c *conn) died(err error) bool {
	if errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	select {
	case <-c.done:
		return true
	case <-time.After(diedGrace):
		return false
	}
}

// diedGrace is how long a failed call waits for the session's end before
// it counts as the server's own error.
const diedGrace = 200 * time.Millisecond

// close ends the session and, for stdio, kills the process group (the
// sandbox helper is pid 1 of its namespace: everything inside dies with
// it) and reaps it.
func (c *conn) close() {
	c.once.Do(func() {
		c.kill()
		if c.session != nil {
			_ = c.session.Close() // closes stdin, reaps the process
			<-c.done
			c.markReaped()
		}
		if c.cmd != nil && c.cmd.Process != nil && c.m.o.Processes != nil {
			c.m.o.Processes.Exited(c.cmd.Process.Pid)
		}
	})
}

// kill SIGKILLs a started stdio server's process group.
func (c *conn) kill() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
}

// exitDetail describes how a stdio server ended: its exit status and the
// last line of its stderr ("" when it is still running or not stdio).
func (c *conn) exitDetail() string {
	if c.cmd == nil {
		return ""
	}
	var parts []string
	c.mu.Lock()
	reaped := c.reaped
	c.mu.Unlock()
	if ps := c.cmd.ProcessState; reaped && ps != nil {
		parts = append(parts, ps.String())
	}
	if line := lastLine(c.stderr); line != "" {
		parts = append(parts, "stderr: "+line)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

func (c *conn) markReaped() {
	c.mu.Lock()
	c.reaped = c.cmd != nil && c.cmd.Process != nil
	c.mu.Unlock()
}

// headers adds fixed headers to every request of an HTTP server.
type headers struct {
	base http.RoundTripper
	set  map[string]string
}

func (h *headers) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.set) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.set {
			r.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(r)
}

// lastLine is the last non-empty line written to t (nil: none), cut to
// 300 bytes.
func lastLine(t *sandbox.TailBuffer) string {
	if t == nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(t.String()), "\n")
	return oneLine(lines[len(lines)-1])
}

// oneLine trims s to one line of at most 300 bytes, valid UTF-8.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return strings.ToValidUTF8(s, "")
}
