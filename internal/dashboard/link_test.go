package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/auth"
)

func TestLinkLoginToWebSocket(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	res := h.do("GET", "/auth/link?ticket="+url.QueryEscape(h.mintLink("dashboard:uid:1000")), nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("link: HTTP %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	c := sessionCookie(t, res)
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Secure || c.Domain != "" {
		t.Errorf("cookie attributes: %+v", c)
	}
	if got := h.me(c); got != "dashboard:uid:1000" {
		t.Errorf("me = %q", got)
	}
	cl, err := h.dial(url.Values{"ticket": {h.wsTicket(c)}}, h.origin)
	if err != nil {
		t.Fatalf("dial with ws ticket: %v", err)
	}
	defer cl.Close()
	var pong map[string]any
	if err := cl.Call(context.Background(), "ping", map[string]any{}, &pong); err != nil {
		t.Fatalf("ping: %v", err)
	}
	r, _ := http.NewRequest("GET", "/api/ws?ticket="+url.QueryEscape(h.wsTicket(c)), nil)
	r.Header.Set("Origin", "http://localhost:"+h.port)
	if sub, err := h.dash.AuthenticateWS(r); err != nil || sub != "dashboard:uid:1000" {
		t.Errorf("AuthenticateWS = %q, %v; want dashboard:uid:1000", sub, err)
	}
}

func (h *harness) me(c *http.Cookie) string {
	h.t.Helper()
	res := h.do("GET", "/api/auth/me", c)
	var m struct{ Subject string }
	_ = json.NewDecoder(res.Body).Decode(&m)
	return m.Subject
}

func TestLinkRotatesPlantedAndOldSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	old := h.login("dashboard:uid:1")
	planted := &http.Cookie{Name: SessionCookie, Value: "attacker-chosen-value"}
	for _, presented := range []*http.Cookie{old, planted} {
		res := h.do("GET", "/auth/link?ticket="+url.QueryEscape(h.mintLink("dashboard:uid:1")), presented)
		fresh := sessionCookie(t, res)
		if fresh.Value == presented.Value {
			t.Errorf("login kept the presented session id")
		}
		if h.me(presented) != "" {
			t.Errorf("presented session still valid after login")
		}
		if h.me(fresh) != "dashboard:uid:1" {
			t.Errorf("fresh session not valid")
		}
	}
}

func TestLinkRefusesReplayedExpiredAndForeignTickets(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	used := h.mintLink("dashboard:uid:1")
	h.do("GET", "/auth/link?ticket="+url.QueryEscape(used), nil)
	expired := h.mintLink("dashboard:uid:1")
	interactive, _ := h.tickets.Mint("uid:1", testProfile, "i-test", auth.PurposeInteractive)
	h.clock.Advance(31 * time.Second)
	cases := map[string]string{
		"replayed":          "?ticket=" + url.QueryEscape(used),
		"expired":           "?ticket=" + url.QueryEscape(expired),
		"interactive":       "?ticket=" + url.QueryEscape(interactive),
		"unknown":           "?ticket=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		"none":              "",
		"two":               "?ticket=a&ticket=b",
		"oversized garbage": "?ticket=" + strings.Repeat("x", 5000),
	}
	var bodies []string
	for name, q := range cases {
		res := h.do("GET", "/auth/link"+q, nil)
		if res.StatusCode != http.StatusUnauthorized || len(res.Cookies()) != 0 {
			t.Errorf("%s: HTTP %d, cookies %v", name, res.StatusCode, res.Cookies())
		}
		bodies = append(bodies, readAll(t, res))
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Errorf("refusal bodies differ (oracle): %q vs %q", b, bodies[0])
		}
	}
}

func TestLogoutEndsSessionAndItsTickets(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.login("dashboard:uid:1")
	tk := h.wsTicket(c)
	res := h.do("POST", "/auth/logout", c, "Origin: "+h.origin)
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("logout: HTTP %d", res.StatusCode)
	}
	if cleared := res.Cookies(); len(cleared) != 1 || cleared[0].MaxAge >= 0 {
		t.Errorf("logout cookies: %v", cleared)
	}
	if h.me(c) != "" {
		t.Error("session alive after logout")
	}
	if _, err := h.dial(url.Values{"ticket": {tk}}, h.origin); dialStatus(err) != http.StatusUnauthorized {
		t.Errorf("ticket of a logged-out session: %v", err)
	}
}

func TestSessionIdleAndAbsoluteExpiry(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.login("dashboard:uid:1")
	h.clock.Advance(DefaultIdleTimeout - time.Minute)
	if h.me(c) == "" {
		t.Fatal("session expired before its idle timeout")
	}
	h.clock.Advance(DefaultIdleTimeout - time.Minute) // touched above: still idle-valid
	if h.me(c) == "" {
		t.Fatal("idle timer not refreshed by use")
	}
	h.clock.Advance(DefaultIdleTimeout)
	if h.me(c) != "" {
		t.Fatal("session outlived its idle timeout")
	}
	c = h.login("dashboard:uid:1")
	for i := 0; i < 20; i++ {
		h.clock.Advance(DefaultMaxLifetime / 20)
		h.me(c)
	}
	if h.me(c) != "" {
		t.Fatal("session outlived its absolute lifetime")
	}
}

func TestCookieSecureOverHTTPS(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withTLS())
	c := h.login("dashboard:uid:7")
	if !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
		t.Errorf("cookie over https: %+v", c)
	}
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}
