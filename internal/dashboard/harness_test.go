package dashboard

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/authority"
	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/server"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testProfile = "p-test"

// clock is a settable test clock (monotonic enough for expiry checks).
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Unix(1_800_000_000, 0)} }

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// harness is the real server package with a Dashboard on a loopback
// listener (optionally TLS).
type harness struct {
	t       *testing.T
	clock   *clock
	tickets *auth.Tickets
	dash    *Dashboard
	origin  string // http(s)://127.0.0.1:PORT
	port    string
	http    *http.Client // never follows redirects; no cookie jar
}

type harnessOpt func(*Config, *harnessTLS)

type harnessTLS struct {
	cfg    *tls.Config
	client *http.Client
}

func withTLS() harnessOpt {
	return func(_ *Config, h *harnessTLS) {
		ts := httptest.NewUnstartedServer(http.NotFoundHandler())
		ts.StartTLS()
		h.cfg, h.client = ts.TLS.Clone(), ts.Client()
		ts.Close()
	}
}

func newHarness(t *testing.T, opts ...harnessOpt) *harness {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	h := &harness{t: t, clock: newClock(), port: port, origin: "http://127.0.0.1:" + port}
	h.tickets = auth.NewTickets(testProfile, "i-test", auth.WithClock(h.clock.Now))
	cfg := Config{Tickets: h.tickets, ProfileID: testProfile, APIOrigin: h.origin, Home: t.TempDir(), Now: h.clock.Now}
	var tl harnessTLS
	for _, o := range opts {
		o(&cfg, &tl)
	}
	h.dash, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	if tl.cfg != nil {
		ln = tls.NewListener(ln, tl.cfg)
		h.origin = "https://127.0.0.1:" + port
		base = tl.client.Transport.(*http.Transport)
	}
	h.http = &http.Client{Transport: base, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	h.serve(ln, cfg)
	return h
}

func (h *harness) serve(ln net.Listener, cfg Config) {
	a := authority.New(authority.Config{ProfileID: testProfile, InstanceID: "i-test"})
	srv := server.New(server.Config{Authority: a, Tickets: h.tickets, Dashboard: h.dash,
		Gated: cfg.PublicURL != "", PublicOrigin: h.dash.publicOrigin()})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ctx, ln) }()
	h.t.Cleanup(func() {
		h.http.CloseIdleConnections()
		_ = h.dash.Close()
		cancel()
		if err := <-errc; err != nil {
			h.t.Errorf("serve: %v", err)
		}
	})
}

// publicOrigin is the public_url origin the server's Host guard needs.
func (d *Dashboard) publicOrigin() string {
	if d.public == nil {
		return ""
	}
	return d.public.Scheme + "://" + d.public.Host
}

// do sends a request to the harness; headers are "Key: value" pairs.
func (h *harness) do(method, path string, cookie *http.Cookie, headers ...string) *http.Response {
	h.t.Helper()
	req, err := http.NewRequest(method, h.origin+path, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, kv := range headers {
		k, v, _ := strings.Cut(kv, ": ")
		req.Header.Set(k, v)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	res, err := h.http.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { res.Body.Close() })
	return res
}

// mintLink mints a dashboard-login ticket as the control socket would.
func (h *harness) mintLink(subject string) string {
	h.t.Helper()
	tk, err := h.tickets.Mint(subject, testProfile, "i-test", auth.PurposeDashboardLogin)
	if err != nil {
		h.t.Fatal(err)
	}
	return tk
}

// login follows a fresh link and returns the session cookie.
func (h *harness) login(subject string) *http.Cookie {
	h.t.Helper()
	res := h.do("GET", "/auth/link?ticket="+url.QueryEscape(h.mintLink(subject)), nil)
	if res.StatusCode != http.StatusSeeOther {
		h.t.Fatalf("link: HTTP %d", res.StatusCode)
	}
	return sessionCookie(h.t, res)
}

func sessionCookie(t *testing.T, res *http.Response) *http.Cookie {
	t.Helper()
	for _, c := range res.Cookies() {
		if c.Name == SessionCookie && c.Value != "" {
			return c
		}
	}
	t.Fatalf("no %s cookie in %v", SessionCookie, res.Header.Values("Set-Cookie"))
	return nil
}

// wsTicket asks for a browser WebSocket ticket with an allow-listed Origin.
func (h *harness) wsTicket(c *http.Cookie) string {
	h.t.Helper()
	res := h.do("POST", "/api/auth/ws-ticket", c, "Origin: "+h.origin)
	if res.StatusCode != http.StatusOK {
		h.t.Fatalf("ws-ticket: HTTP %d", res.StatusCode)
	}
	var body struct{ Ticket string }
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || body.Ticket == "" {
		h.t.Fatalf("ws-ticket body: %v", err)
	}
	return body.Ticket
}

// dial upgrades /api/ws with a query credential and an Origin ("" = none).
func (h *harness) dial(q url.Values, origin string) (*client.Client, error) {
	hdr := http.Header{}
	if origin != "" {
		hdr.Set("Origin", origin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return client.Dial(ctx, h.origin, client.Options{Query: q, Header: hdr})
}

func dialStatus(err error) int {
	var de *client.DialError
	if errors.As(err, &de) {
		return de.Status
	}
	return 0
}
