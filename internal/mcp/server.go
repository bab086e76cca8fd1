package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/tools"
)

var errClosed = errors.New("the gateway is stopping")

// Backoff between restarts of a failed server.
const (
	firstBackoff = time.Second
	maxBackoff   = time.Minute
	healthyAfter = time.Minute // a run this long resets the backoff
)

// server is one MCP server configuration and, while it runs, its process
// and client session. Its supervisor (run) is the only writer of conn.
type server struct {
	m   *Manager
	cfg Config
	key string

	mu       sync.Mutex
	state    string          // protocol.MCPState*; guarded by mu
	reason   string          // why failed; guarded by mu
	running  bool            // a supervisor is alive; guarded by mu
	stopReq  bool            // stop was closed, the supervisor is ending; guarded by mu
	stop     chan struct{}   // closed to stop the supervisor; guarded by mu
	changed  chan struct{}   // closed and replaced at each state change; guarded by mu
	conn     *conn           // the live session while ready; guarded by mu
	tools    []tools.MCPTool // the last listing; guarded by mu
	active   int             // calls in flight; guarded by mu
	lastUsed time.Time       // guarded by mu
	sessions map[string]bool // sessions that used it since it started; guarded by mu
	restarts int             // guarded by mu
}

func newServer(m *Manager, c Config, key string) *server {
	return &server{m: m, cfg: c, key: key, state: protocol.MCPStateStopped,
		changed: make(chan struct{}), sessions: map[string]bool{}}
}

// setLocked changes the state and wakes every waiter.
func (s *server) setLocked(state, reason string) {
	s.state, s.reason = state, reason
	close(s.changed)
	s.changed = make(chan struct{})
}

// touch records a use by session sid (idle accounting, status).
func (s *server) touch(sid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastUsed = time.Now()
	if sid != "" {
		s.sessions[sid] = true
	}
}

// acquire starts the server when it is not running and waits until it is
// ready (its conn), failed (the reason, at once) or startup_timeout.
func (s *server) acquire(ctx context.Context) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.startupTimeout()+time.Second)
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if !s.running {
			if err := s.startLocked(); err != nil {
				return nil, err
			}
		}
		switch {
		case s.stopReq: // an idle stop is ending; start again after it
		case s.state == protocol.MCPStateReady:
			return s.conn, nil
		case s.state == protocol.MCPStateFailed:
			return nil, errors.New(s.reason)
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			s.mu.Lock()
			return nil, fmt.Errorf("still starting after %s", s.cfg.startupTimeout())
		}
		s.mu.Lock()
	}
}

func (s *server) startLocked() error {
	s.m.mu.Lock()
	closed := s.m.closed
	if !closed {
		s.m.wg.Add(1)
	}
	s.m.mu.Unlock()
	if closed {
		return errClosed
	}
	s.running, s.stopReq, s.stop = true, false, make(chan struct{})
	s.lastUsed = time.Now()
	s.setLocked(protocol.MCPStateStarting, "")
	go s.run(s.stop)
	return nil
}

// run is the supervisor: start, serve until the session ends, restart
// with backoff, until stop or the manager closes.
func (s *server) run(stop <-chan struct{}) {
	defer s.m.wg.Done()
	backoff := firstBackoff
	for {
		began := time.Now()
		err := s.once(stop)
		if s.stopping(stop) {
			s.finish(protocol.MCPStateStopped, "")
			return
		}
		if time.Since(began) > healthyAfter {
			backoff = firstBackoff
		}
		s.m.log.Warn("MCP server failed; restarting with backoff", "server", s.cfg.Name, "err", err, "backoff", backoff)
		s.mu.Lock()
		s.setLocked(protocol.MCPStateFailed, err.Error())
		s.mu.Unlock()
		select {
		case <-stop:
			s.finish(protocol.MCPStateStopped, "")
			return
		case <-s.m.ctx.Done():
			s.finish(protocol.MCPStateStopped, "")
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
		s.mu.Lock()
		s.restarts++
		s.setLocked(protocol.MCPStateStarting, "")
		s.mu.Unlock()
	}
}

func (s *server) stopping(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	case <-s.m.ctx.Done():
		return true
	default:
		return false
	}
}

// finish ends the supervisor's run in state (stopped, or failed when it
// stopped after a failure it keeps showing).
func (s *server) finish(state, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running, s.stopReq, s.conn = false, false, nil
	if s.state == protocol.MCPStateFailed && state == protocol.MCPStateStopped {
		reason = s.reason // keep why it last failed visible
	}
	s.setLocked(state, reason)
}

// once runs the server one time: connect, list, serve until its session
// ends (an error: it crashed) or stop (nil).
func (s *server) once(stop <-chan struct{}) error {
	ctx, cancel := context.WithCancel(s.m.ctx)
	defer cancel()
	c, err := s.connect(ctx)
	if err != nil {
		return err
	}
	defer c.close()
	s.mu.Lock()
	s.conn = c
	s.setLocked(protocol.MCPStateReady, "")
	s.mu.Unlock()
	for {
		select {
		case <-stop:
			return nil
		case <-ctx.Done():
			return nil
		case <-c.done:
			s.mu.Lock()
			s.conn = nil
			s.mu.Unlock()
			c.close()
			return fmt.Errorf("the server exited%s", c.exitDetail())
		case <-c.refresh:
			s.refresh(ctx, c)
		}
	}
}

// connect starts the transport, initializes and lists the tools, all
// within startup_timeout.
func (s *server) connect(ctx context.Context) (*conn, error) {
	sctx, cancel := context.WithTimeout(ctx, s.cfg.startupTimeout())
	defer cancel()
	c, err := dial(ctx, sctx, s.m, s.cfg)
	if err != nil {
		return nil, err
	}
	list, err := listTools(sctx, c, s.cfg, s.key, s.m.log)
	if err != nil {
		c.close()
		if sctx.Err() != nil {
			return nil, fmt.Errorf("no tool list within startup_timeout %s%s", s.cfg.startupTimeout(), c.exitDetail())
		}
		return nil, fmt.Errorf("tools/list: %v%s", err, c.exitDetail())
	}
	s.mu.Lock()
	s.tools = list
	s.mu.Unlock()
	return c, nil
}

// refresh re-lists the tools after notifications/tools/list_changed.
func (s *server) refresh(ctx context.Context, c *conn) {
	rctx, cancel := context.WithTimeout(ctx, s.cfg.startupTimeout())
	defer cancel()
	list, err := listTools(rctx, c, s.cfg, s.key, s.m.log)
	if err != nil {
		s.m.log.Warn("MCP tool list refresh failed; keeping the last list", "server", s.cfg.Name, "err", err)
		return
	}
	s.mu.Lock()
	s.tools = list
	s.mu.Unlock()
	s.m.log.Info("MCP tool list refreshed", "server", s.cfg.Name, "tools", len(list))
}

// stopIfIdle stops the server when no call is in flight and it has not
// been used for idle.
func (s *server) stopIfIdle(now time.Time, idle time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running || s.active > 0 || now.Sub(s.lastUsed) < idle {
		return
	}
	if s.stopReq {
		return
	}
	s.m.log.Info("stopping idle MCP server", "server", s.cfg.Name, "idle", idle)
	close(s.stop)
	s.stopReq = true // the supervisor ends it; a use meanwhile waits and starts anew
}

func (s *server) toolList() []tools.MCPTool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

func (s *server) status() protocol.MCPServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := protocol.MCPServerStatus{Name: s.cfg.Name, Source: s.cfg.Source, Transport: s.cfg.Transport,
		State: s.state, Tools: len(s.tools), Sessions: len(s.sessions), Restarts: s.restarts}
	if s.state == protocol.MCPStateFailed || s.state == protocol.MCPStateStopped {
		st.Error = s.reason
	}
	return st
}

// call runs one tool call on the server (see tools.MCPCaller).
func (s *server) call(ctx context.Context, tool string, args json.RawMessage) (tools.Result, error) {
	s.touch("") // before acquire: the reaper leaves a server just used
	c, err := s.acquire(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return errResult("MCP server %q is not available: %v", s.cfg.Name, err), nil
	}
	s.mu.Lock()
	s.active++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.active--
		s.lastUsed = time.Now()
		s.mu.Unlock()
	}()
	timeout := s.cfg.toolTimeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := c.session.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	switch {
	case ctx.Err() != nil:
		return tools.Result{}, ctx.Err() // the turn was interrupted; the SDK cancelled the call
	case cctx.Err() != nil:
		return errResult("the call of %q on MCP server %q took longer than its tool_timeout %s and was cancelled", tool, s.cfg.Name, timeout), nil
	case err != nil && c.died(err):
		return errResult("MCP server %q exited during the call of %q%s; the call did not complete", s.cfg.Name, tool, c.exitDetail()), nil
	case err != nil:
		return errResult("MCP server %q: %s", s.cfg.Name, oneLine(err.Error())), nil
	}
	return toResult(res), nil
}
