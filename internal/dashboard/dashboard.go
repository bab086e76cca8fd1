package dashboard

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/gate"
)

// Config wires a Dashboard.
type Config struct {
	// Tickets redeems the dashboard-login tickets the control socket mints.
	Tickets *auth.Tickets
	// ProfileID, when set, must match a redeemed ticket's profile.
	ProfileID string
	// APIOrigin is the listener origin (http://127.0.0.1:PORT); its port
	// builds the Origin allow-list.
	APIOrigin string
	// PublicURL is dashboard.public_url; set means gated mode (OIDC).
	PublicURL string
	// OIDC configures login in gated mode.
	OIDC OIDCConfig
	// Home is passed as --home to the terminal pane's `hermes chat`.
	Home string
	// Executable is the hermes binary of the terminal pane; "" means
	// os.Executable().
	Executable string
	Logger     *slog.Logger
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
	// IdleTimeout and MaxLifetime bound a dashboard session; 0 = defaults.
	IdleTimeout, MaxLifetime time.Duration
	// WSTicketTTL is the life of a browser WebSocket ticket; 0 = 30 s.
	WSTicketTTL time.Duration
}

// Dashboard serves the web dashboard and authenticates its WebSocket
// credentials. Create it with New; Close ends every terminal pane.
type Dashboard struct {
	cfg       Config
	log       *slog.Logger
	port      string
	public    *url.URL    // nil unless gated
	gate      gate.Policy // the exact Origin allow-list: loopback names with port, public origin
	sessions  *sessions
	wsTickets *wsTickets
	oidc      *oidcLogin // nil unless gated
	ptys      *ptys
	mux       *http.ServeMux
}

// New validates cfg and returns a Dashboard. It starts no goroutine and
// does no network I/O (the OIDC issuer is discovered at the first login).
func New(cfg Config) (*Dashboard, error) {
	cfg = withDefaults(cfg)
	u, err := url.Parse(cfg.APIOrigin)
	if err != nil || u.Port() == "" {
		return nil, fmt.Errorf("dashboard: api origin %q has no port", cfg.APIOrigin)
	}
	d := &Dashboard{
		cfg: cfg, log: cfg.Logger, port: u.Port(),
		sessions:  newSessions(cfg.Now, cfg.IdleTimeout, cfg.MaxLifetime),
		wsTickets: newWSTickets(cfg.Now, cfg.WSTicketTTL),
		ptys:      newPTYs(),
	}
	publicOrigin := ""
	if cfg.PublicURL != "" {
		if d.public, d.oidc, err = newGated(cfg); err != nil {
			return nil, err
		}
		publicOrigin = gate.OriginOf(d.public)
	}
	d.gate = gate.NewPolicy(d.port, publicOrigin)
	d.mux = d.routes()
	return d, nil
}

func withDefaults(cfg Config) Config {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxLifetime <= 0 {
		cfg.MaxLifetime = DefaultMaxLifetime
	}
	if cfg.WSTicketTTL <= 0 {
		cfg.WSTicketTTL = DefaultWSTicketTTL
	}
	if cfg.Executable == "" {
		cfg.Executable, _ = os.Executable()
	}
	return cfg
}

func (d *Dashboard) routes() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /auth/link", d.serveLink)
	m.HandleFunc("GET /auth/login", d.serveLogin)
	m.HandleFunc("GET /auth/callback", d.serveCallback)
	m.HandleFunc("POST /auth/logout", d.serveLogout)
	m.HandleFunc("GET /api/auth/me", d.serveMe)
	m.HandleFunc("POST /api/auth/ws-ticket", d.serveWSTicket)
	m.HandleFunc("GET /api/pty", d.servePTY)
	m.Handle("GET /assets/", assetHandler())
	m.HandleFunc("GET /favicon.ico", serveFavicon)
	m.HandleFunc("GET /{$}", serveIndex)
	return m
}

// ServeHTTP answers every dashboard route. A preflight is refused: the
// dashboard never answers cross-origin requests.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodOptions {
		d.refuseHTTP(w, r, http.StatusForbidden, "preflight refused")
		return
	}
	d.mux.ServeHTTP(w, r)
}

// Close ends every terminal pane (kills its process group) and waits for
// their goroutines. The dashboard keeps serving HTTP; new panes are refused.
func (d *Dashboard) Close() error {
	d.ptys.close()
	return nil
}

// me is GET /api/auth/me: who the browser is signed in as.
type me struct {
	Subject string `json:"subject,omitempty"`
	Gated   bool   `json:"gated"`
}

func (d *Dashboard) serveMe(w http.ResponseWriter, r *http.Request) {
	ds, _, ok := d.session(r)
	if !ok {
		writeJSON(w, http.StatusUnauthorized, me{Gated: d.oidc != nil})
		return
	}
	writeJSON(w, http.StatusOK, me{Subject: ds.subject, Gated: d.oidc != nil})
}

// refuseHTTP answers a refusal with the status text only; why is logged
// with the path (never the query, which may hold a credential).
func (d *Dashboard) refuseHTTP(w http.ResponseWriter, r *http.Request, status int, why string) {
	d.log.Info("dashboard request refused", "status", status, "why", why,
		"method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr)
	http.Error(w, http.StatusText(status), status)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// errClosed: the dashboard is closing; no new terminal pane starts.
var errClosed = errors.New("dashboard closed")
