package dashboard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/auth"
)

func TestMutationRoutesNeedSameOrigin(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.login("dashboard:uid:1")
	refused := map[string][]string{
		"no origin, no fetch metadata": nil,
		"foreign origin":               {"Origin: http://evil.example"},
		"null origin":                  {"Origin: null"},
		"sibling port":                 {"Origin: http://localhost:5173"},
		"cross-site with good origin":  {"Origin: " + h.origin, "Sec-Fetch-Site: cross-site"},
		"same-site":                    {"Sec-Fetch-Site: same-site"},
		"cross-site, no origin":        {"Sec-Fetch-Site: cross-site"},
	}
	for _, path := range []string{"/api/auth/ws-ticket", "/auth/logout"} {
		for name, hdrs := range refused {
			if res := h.do("POST", path, c, hdrs...); res.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s: HTTP %d, want 403", path, name, res.StatusCode)
			}
		}
	}
	if h.me(c) == "" {
		t.Fatal("a refused logout ended the session")
	}
	if res := h.do("POST", "/api/auth/ws-ticket", c, "Sec-Fetch-Site: same-origin"); res.StatusCode != http.StatusOK {
		t.Errorf("same-origin fetch without Origin: HTTP %d", res.StatusCode)
	}
	if res := h.do("POST", "/api/auth/ws-ticket", nil, "Origin: "+h.origin); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("ws-ticket without a session: HTTP %d", res.StatusCode)
	}
	bearer := "Authorization: Bearer " + c.Value
	if res := h.do("POST", "/api/auth/ws-ticket", nil, "Origin: "+h.origin, bearer); res.StatusCode != http.StatusOK {
		t.Errorf("ws-ticket with Bearer: HTTP %d", res.StatusCode)
	}
}

func TestNoCORSAndPreflightRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.login("dashboard:uid:1")
	for _, r := range []struct{ method, path string }{
		{"OPTIONS", "/api/auth/ws-ticket"}, {"OPTIONS", "/"}, {"GET", "/"}, {"GET", "/api/auth/me"},
		{"POST", "/api/auth/ws-ticket"}, {"GET", "/assets/app.js"},
	} {
		res := h.do(r.method, r.path, c, "Origin: http://evil.example", "Access-Control-Request-Method: POST")
		for k := range res.Header {
			if strings.HasPrefix(strings.ToLower(k), "access-control-") {
				t.Errorf("%s %s sent %s", r.method, r.path, k)
			}
		}
		if r.method == "OPTIONS" && res.StatusCode != http.StatusForbidden {
			t.Errorf("preflight %s: HTTP %d", r.path, res.StatusCode)
		}
	}
}

func TestWebSocketOriginVariants(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.login("dashboard:uid:1")
	tk := h.wsTicket(c)
	bad := []string{
		"", "null",
		"http://127.0.0.1.evil.com:" + h.port,
		"http://localhost:" + h.port + ".evil.example",
		"http://127.0.0.1:1",
		"https://127.0.0.1:" + h.port,
		"http://LOCALHOST:" + h.port,
		"http://127.0.0.1:" + h.port + "/",
		"ws://127.0.0.1:" + h.port,
	}
	for _, o := range bad {
		if _, err := h.dial(url.Values{"ticket": {tk}}, o); dialStatus(err) != http.StatusForbidden {
			t.Errorf("Origin %q: %v, want 403", o, err)
		}
	}
	// A refused Origin did not consume the ticket; the good Origin uses it once.
	for _, o := range []string{"http://[::1]:" + h.port} {
		cl, err := h.dial(url.Values{"ticket": {tk}}, o)
		if err != nil {
			t.Fatalf("Origin %q: %v", o, err)
		}
		cl.Close()
	}
	if _, err := h.dial(url.Values{"ticket": {tk}}, h.origin); dialStatus(err) != http.StatusUnauthorized {
		t.Errorf("replayed ws ticket: %v, want 401", err)
	}
	if _, err := h.dial(url.Values{"ticket": {"not-a-ticket"}}, h.origin); dialStatus(err) != http.StatusUnauthorized {
		t.Errorf("unknown ws ticket: %v, want 401", err)
	}
}

func TestWSTicketExpires(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tk := h.wsTicket(h.login("dashboard:uid:1"))
	h.clock.Advance(DefaultWSTicketTTL)
	if _, err := h.dial(url.Values{"ticket": {tk}}, h.origin); dialStatus(err) != http.StatusUnauthorized {
		t.Errorf("expired ws ticket: %v, want 401", err)
	}
}

func TestWSTicketRaceHasOneWinner(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tk := h.wsTicket(h.login("dashboard:uid:1"))
	var wins, refusals atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := httptest.NewRequest("GET", "/api/ws?ticket="+url.QueryEscape(tk), nil)
			r.Header.Set("Origin", h.origin)
			<-start
			if _, err := h.dash.AuthenticateWS(r); err == nil {
				wins.Add(1)
			} else {
				refusals.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	if wins.Load() != 1 || refusals.Load() != 63 {
		t.Errorf("wins %d, refusals %d; want 1 and 63", wins.Load(), refusals.Load())
	}
}

func TestInternalCredential(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, secret, done, err := h.dash.ptys.add(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	good := secret.Reveal()
	if len(good) < 43 {
		t.Fatalf("internal credential too short")
	}
	cl, err := h.dial(url.Values{"internal": {good}}, "")
	if err != nil {
		t.Fatalf("internal credential: %v", err)
	}
	cl.Close()
	r := httptest.NewRequest("GET", "/api/ws?internal="+url.QueryEscape(good), nil)
	r.RemoteAddr = "127.0.0.1:5555"
	if sub, err := h.dash.AuthenticateWS(r); err != nil || sub != auth.SubjectInternal {
		t.Errorf("AuthenticateWS = %q, %v", sub, err)
	}
	cases := []struct {
		q      url.Values
		origin string
		want   int
	}{
		{url.Values{"internal": {good + "x"}}, "", http.StatusUnauthorized},
		{url.Values{"internal": {""}}, "", http.StatusUnauthorized},
		{url.Values{"internal": {good}}, "http://evil.example", http.StatusForbidden},
		{url.Values{"internal": {good}, "ticket": {"x"}}, "", http.StatusUnauthorized},
		{url.Values{"internal": {good, good}}, "", http.StatusUnauthorized},
	}
	for i, c := range cases {
		if _, err := h.dial(c.q, c.origin); dialStatus(err) != c.want {
			t.Errorf("case %d: %v, want %d", i, err, c.want)
		}
	}
	if strings.Contains(secret.String(), good) {
		t.Error("internal credential String does not redact")
	}
}

func TestStoresAreBounded(t *testing.T) {
	t.Parallel()
	c := newClock()
	s := newSessions(c.Now, time.Hour, 2*time.Hour)
	first := s.open("a", loginLink)
	for range maxSessions {
		c.Advance(time.Millisecond)
		s.open("b", loginLink)
	}
	if _, ok := s.lookup(first); ok {
		t.Error("oldest session not evicted at capacity")
	}
	w := newWSTickets(c.Now, time.Second)
	for range maxWSTickets {
		if _, err := w.mint(digest{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.mint(digest{}); err == nil {
		t.Error("ws ticket store not bounded")
	}
	c.Advance(time.Second)
	if _, err := w.mint(digest{}); err != nil {
		t.Errorf("expired tickets not swept: %v", err)
	}
}
