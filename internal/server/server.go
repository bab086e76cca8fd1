// Package server is the HTTP side of the gateway: the /api/ws gate (Host,
// Origin and credential checks before the upgrade), the per-connection
// JSON-RPC wiring, and thin handlers — one file per RPC noun — that decode
// params strictly, check what only a connection knows (has it attached the
// session?) and call the authority. Identity and capabilities come from the
// gate, never from params.
//
// It may import only rpc, protocol, authority, auth, events, gate and ids,
// and must never import store, daemon or dashboard: every state change goes
// through the authority, and the dashboard plugs in as a server.Dashboard,
// not as an import.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/authority"
	"github.com/hermes-gateway/hermes/internal/gate"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Config wires a Server.
type Config struct {
	Authority     *authority.Authority
	Tickets       *auth.Tickets
	Logger        *slog.Logger
	MaxFrameBytes int64
	// LegacyToken enables ?token= when non-empty (loopback, non-gated only).
	LegacyToken string
	// Gated is set when dashboard.public_url is configured.
	Gated bool
	// PublicOrigin is the origin of dashboard.public_url in gated mode.
	PublicOrigin string
	// Dashboard, when set, serves every route but /api/ws (web UI, login,
	// ws-ticket) behind the same Host gate, and authenticates the
	// dashboard's WebSocket credentials (?ticket=, ?internal=).
	Dashboard Dashboard
	// MaxConnections caps concurrent TCP connections (HTTP and WebSocket);
	// one more is answered 503 and closed. 0 = DefaultMaxConnections.
	MaxConnections int
	// WriteTimeout closes a WebSocket whose frame write blocks longer
	// (gateway.write_timeout). 0 = DefaultWriteTimeout.
	WriteTimeout time.Duration
	// Sandbox reports the tool sandbox in force (runtime.describe); nil = unknown.
	Sandbox func() authority.SandboxStatus
	// MCP reports the MCP servers (mcp.status, runtime.describe); nil = none.
	MCP func() []protocol.MCPServerStatus
}

// HTTP timeouts. Both apply to plain HTTP only: a WebSocket, once
// upgraded, is bounded by WriteTimeout and the connection cap.
const (
	// readHeaderTimeout bounds a client that connects and sends nothing.
	readHeaderTimeout = 10 * time.Second
	// idleTimeout closes a keep-alive connection with no request in flight.
	idleTimeout = 60 * time.Second
	// DefaultWriteTimeout is Config.WriteTimeout when 0.
	DefaultWriteTimeout = 10 * time.Second
)

// Dashboard is the dashboard's side of the gate (internal/dashboard).
type Dashboard interface {
	http.Handler
	// AuthenticateWS checks a ?ticket= or ?internal= upgrade (incl. its
	// Origin rules) and returns the subject to grant. A refusal is an error
	// carrying the HTTP status via DashboardRefusal.
	AuthenticateWS(r *http.Request) (subject string, err error)
}

// DashboardRefusal lets the dashboard refuse an upgrade with a status
// (401 bad credential, 403 bad Origin).
type DashboardRefusal struct {
	Status int
	Why    string // logged, never sent
}

func (e *DashboardRefusal) Error() string { return e.Why }

// Server serves /api/ws on one listener.
type Server struct {
	cfg  Config
	log  *slog.Logger
	port string      // listener port, set by Serve before the first request
	gate gate.Policy // Host/Origin allow-list, set by Serve with port

	mu    sync.Mutex
	conns map[*conn]struct{} // open WebSocket connections; guarded by mu
	wg    sync.WaitGroup     // connection goroutines
}

// New returns a Server; Serve starts it.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxFrameBytes <= 0 {
		cfg.MaxFrameBytes = 1 << 20
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	return &Server{cfg: cfg, log: cfg.Logger, conns: map[*conn]struct{}{}}
}

// Serve answers HTTP on ln until ctx is done, then closes every connection
// and returns after their goroutines exited. At most Config.MaxConnections
// connections are open at once; one more is refused at accept.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	s.port = port
	public := ""
	if s.cfg.Gated {
		public = s.cfg.PublicOrigin
	}
	s.gate = gate.NewPolicy(port, public)
	capped := newCapListener(ln, s.cfg.MaxConnections)
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		ConnState:         capped.connState,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(capped) }()
	<-ctx.Done()
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_ = hs.Shutdown(shut)
	s.closeAll()
	s.wg.Wait()
	capped.wait()
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Handler is the whole HTTP surface: every route passes the Host gate and
// carries the security headers.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/ws", s.serveWS)
	if s.cfg.Dashboard != nil {
		mux.Handle("/", s.cfg.Dashboard)
	}
	return s.guard(mux)
}

func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		if !s.gate.HostAllowed(r.Host) {
			http.Error(w, "forbidden host", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Port is the listener port ("" before Serve).
func (s *Server) Port() int {
	n, _ := strconv.Atoi(s.port)
	return n
}
