package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// Options wire a Manager.
type Options struct {
	// Command builds the (not yet started) command of a stdio server under
	// the tool sandbox: argv, environment, cwd, process group. ctx ends the
	// server's life (cancelling it kills the group). Required for stdio.
	Command func(ctx context.Context, c Config) (*exec.Cmd, error)
	// Secret resolves a variable name (the process environment, then .env);
	// "" when unset. Used for bearer_token_env.
	Secret func(name string) string
	// Processes is told the pid of every stdio server (orphan tracking).
	Processes tools.ProcessTracker
	// IdleTimeout stops a server unused this long; 0 = DefaultIdleTimeout.
	IdleTimeout time.Duration
	Logger      *slog.Logger
	// Version is the gateway's version, sent as the client's implementation.
	Version string
}

// Manager owns the running MCP servers of one profile. Create it with New,
// run Run for the idle reaper; Close stops everything.
type Manager struct {
	o   Options
	log *slog.Logger
	ctx context.Context // cancelled by Close: ends every supervisor
	end context.CancelFunc
	wg  sync.WaitGroup // supervisors

	mu       sync.Mutex
	servers  map[string]*server // Config.Key → server; guarded by mu
	declared []Config           // config.yaml's servers, listed while never used; guarded by mu
	closed   bool               // guarded by mu
}

// New returns a Manager; it starts nothing.
func New(o Options) *Manager {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	ctx, end := context.WithCancel(context.Background())
	return &Manager{o: o, log: o.Logger, ctx: ctx, end: end, servers: map[string]*server{}}
}

// Declare lists the profile's configured servers, so that Status shows
// them as stopped before their first use.
func (m *Manager) Declare(cfgs []Config) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.declared = slices.Clone(cfgs)
}

// Run reaps idle servers until ctx ends, then closes the manager.
func (m *Manager) Run(ctx context.Context) error {
	tick := time.NewTicker(min(m.o.IdleTimeout/4, time.Second))
	defer tick.Stop()
	defer m.Close()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-m.ctx.Done():
			return nil
		case now := <-tick.C:
			for _, s := range m.list() {
				s.stopIfIdle(now, m.o.IdleTimeout)
			}
		}
	}
}

// Close stops every server (killing its process group) and waits for
// their supervisors. Later uses fail.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.end()
	m.wg.Wait()
}

func (m *Manager) list() []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s)
	}
	return out
}

// server returns the server of c, creating its entry (not started).
func (m *Manager) server(c Config) (*server, error) {
	key := c.Key()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errClosed
	}
	s, ok := m.servers[key]
	if !ok {
		s = newServer(m, c, key)
		m.servers[key] = s
	}
	return s, nil
}

// Tools starts (when needed) the servers of cfgs for session sid, waits for
// each up to its startup_timeout, and returns the tools they offer. A server
// that fails offers the tools of its last listing, if any (their calls
// answer with the failure); the failure is in Status.
func (m *Manager) Tools(ctx context.Context, sid string, cfgs []Config) []tools.MCPTool {
	lists := make([][]tools.MCPTool, len(cfgs))
	var wg sync.WaitGroup
	for i, c := range cfgs {
		wg.Go(func() {
			s, err := m.server(c)
			if err != nil {
				return
			}
			s.touch(sid)
			if _, err := s.acquire(ctx); err != nil {
				m.log.Warn("MCP server not available for a turn", "server", c.Name, "session_id", sid, "err", err)
			}
			lists[i] = s.toolList()
		})
	}
	wg.Wait()
	return slices.Concat(lists...)
}

// CallMCP implements tools.MCPCaller.
func (m *Manager) CallMCP(ctx context.Context, t tools.MCPTool, args json.RawMessage) (tools.Result, error) {
	s := m.byKey(t.Key)
	if s == nil {
		return errResult("MCP server %q is not available: it is not running in this gateway", t.Server), nil
	}
	return s.call(ctx, t.Tool, args)
}

func (m *Manager) byKey(key string) *server {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.servers[key]
}

// Status lists every known server: the declared config servers (stopped
// until used) and every server started since the daemon began, sorted by
// name then source.
func (m *Manager) Status() []protocol.MCPServerStatus {
	m.mu.Lock()
	declared := slices.Clone(m.declared)
	m.mu.Unlock()
	var out []protocol.MCPServerStatus
	seen := map[string]bool{}
	for _, s := range m.list() {
		st := s.status()
		out = append(out, st)
		seen[st.Source+"/"+st.Name] = true
	}
	for _, c := range declared {
		if !seen[c.Source+"/"+c.Name] {
			out = append(out, protocol.MCPServerStatus{Name: c.Name, Source: c.Source, Transport: c.Transport, State: protocol.MCPStateStopped})
		}
	}
	slices.SortFunc(out, func(a, b protocol.MCPServerStatus) int {
		return strings.Compare(a.Name+"\x00"+a.Source+"\x00"+a.State, b.Name+"\x00"+b.Source+"\x00"+b.State)
	})
	return out
}

func errResult(format string, args ...any) tools.Result {
	return tools.Result{Output: "error: " + fmt.Sprintf(format, args...), IsError: true}
}
