package dashboard

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/oidctest"
)

// withOIDC makes the harness gated: public_url is the listener's
// localhost name, the issuer is idp.
func withOIDC(idp *oidctest.Provider, subjects, emails []string) harnessOpt {
	return func(c *Config, _ *harnessTLS) {
		c.PublicURL = strings.Replace(c.APIOrigin, "127.0.0.1", "localhost", 1)
		c.OIDC = OIDCConfig{Issuer: idp.Issuer(), ClientID: "hermes-test", AllowedSubjects: subjects, AllowedEmails: emails}
	}
}

// oidcLogin runs the browser's side of the flow; tamper may change the
// callback URL and the state cookie before the callback is requested.
func (h *harness) oidcLogin(tamper func(cb *url.URL, state *http.Cookie)) *http.Response {
	h.t.Helper()
	res := h.do("GET", "/auth/login", nil)
	if res.StatusCode != http.StatusFound {
		h.t.Fatalf("login: HTTP %d", res.StatusCode)
	}
	var state *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == oidcStateCookie {
			state = c
		}
	}
	if state == nil || !state.HttpOnly || state.Path != "/auth/callback" {
		h.t.Fatalf("state cookie: %+v", state)
	}
	idpRes, err := h.http.Get(res.Header.Get("Location"))
	if err != nil || idpRes.StatusCode != http.StatusFound {
		h.t.Fatalf("authorize: %v %v", idpRes, err)
	}
	idpRes.Body.Close()
	cb, _ := url.Parse(idpRes.Header.Get("Location"))
	if tamper != nil {
		tamper(cb, state)
	}
	return h.do("GET", cb.RequestURI(), state)
}

func TestOIDCLoginAllowedSubject(t *testing.T) {
	t.Parallel()
	idp := oidctest.New(t, "alice")
	h := newHarness(t, withOIDC(idp, []string{"alice"}, nil))
	res := h.oidcLogin(nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("callback: HTTP %d %s", res.StatusCode, readAll(t, res))
	}
	c := sessionCookie(t, res)
	if c.SameSite != http.SameSiteLaxMode || !c.HttpOnly || c.Path != "/" {
		t.Errorf("oidc cookie: %+v", c)
	}
	if got, want := h.me(c), auth.OIDCSubject(idp.Issuer(), "alice"); got != want {
		t.Errorf("subject %q, want %q", got, want)
	}
	tk := h.wsTicket(c)
	cl, err := h.dial(url.Values{"ticket": {tk}}, h.dash.publicOrigin())
	if err != nil {
		t.Fatalf("dial from the public origin: %v", err)
	}
	cl.Close()
	// The state was used once.
	if res := h.do("GET", "/auth/callback?"+url.Values{"state": {"x"}, "code": {"y"}}.Encode(), nil); res.StatusCode != http.StatusBadRequest {
		t.Errorf("callback without state cookie: HTTP %d", res.StatusCode)
	}
}

func TestOIDCLoginRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		subjects   []string
		emails     []string
		user       func(*oidctest.Provider)
		tamper     func(cb *url.URL, state *http.Cookie)
		wantStatus int
	}{
		{name: "state mismatch", subjects: []string{"alice"}, wantStatus: http.StatusBadRequest,
			tamper: func(cb *url.URL, _ *http.Cookie) { setQuery(cb, "state", "forged") }},
		{name: "state cookie of another browser", subjects: []string{"alice"}, wantStatus: http.StatusBadRequest,
			tamper: func(_ *url.URL, c *http.Cookie) { c.Value = "other" }},
		{name: "nonce mismatch", subjects: []string{"alice"}, wantStatus: http.StatusUnauthorized,
			user: func(p *oidctest.Provider) { p.ForceNonce("replayed-nonce") }},
		{name: "code tampered", subjects: []string{"alice"}, wantStatus: http.StatusUnauthorized,
			tamper: func(cb *url.URL, _ *http.Cookie) { setQuery(cb, "code", "guessed") }},
		{name: "subject not allowed", subjects: []string{"bob"}, wantStatus: http.StatusForbidden},
		{name: "empty allow-lists", wantStatus: http.StatusForbidden},
		{name: "unverified email", emails: []string{"alice@example.com"}, wantStatus: http.StatusForbidden,
			user: func(p *oidctest.Provider) { p.User("alice", "alice@example.com", false) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			idp := oidctest.New(t, "alice")
			if tc.user != nil {
				tc.user(idp)
			}
			h := newHarness(t, withOIDC(idp, tc.subjects, tc.emails))
			res := h.oidcLogin(tc.tamper)
			if res.StatusCode != tc.wantStatus {
				t.Errorf("HTTP %d, want %d", res.StatusCode, tc.wantStatus)
			}
			for _, c := range res.Cookies() {
				if c.Name == SessionCookie && c.Value != "" {
					t.Errorf("refused login set a session cookie")
				}
			}
		})
	}
}

func TestOIDCLoginAllowedVerifiedEmail(t *testing.T) {
	t.Parallel()
	idp := oidctest.New(t, "alice")
	idp.User("carol-123", "Carol@Example.com", true)
	h := newHarness(t, withOIDC(idp, nil, []string{"carol@example.com"}))
	res := h.oidcLogin(nil)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("callback: HTTP %d", res.StatusCode)
	}
	if got, want := h.me(sessionCookie(t, res)), auth.OIDCSubject(idp.Issuer(), "carol-123"); got != want {
		t.Errorf("subject %q, want %q", got, want)
	}
}

func TestGatedRefusesLinkOnPublicHost(t *testing.T) {
	t.Parallel()
	idp := oidctest.New(t, "alice")
	h := newHarness(t, func(c *Config, _ *harnessTLS) {
		c.PublicURL = "https://dash.example.com"
		c.OIDC = OIDCConfig{Issuer: idp.Issuer(), ClientID: "x"}
	})
	r, _ := http.NewRequest("GET", h.origin+"/auth/link?ticket="+url.QueryEscape(h.mintLink("dashboard:uid:1")), nil)
	r.Host = "dash.example.com"
	res, err := h.http.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("link via the public host: HTTP %d", res.StatusCode)
	}
	if h.login("dashboard:uid:1") == nil {
		t.Error("link on the loopback host refused in gated mode")
	}
}

func setQuery(u *url.URL, k, v string) {
	q := u.Query()
	q.Set(k, v)
	u.RawQuery = q.Encode()
}
