package operator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/hermes-gateway/hermes/internal/oidctest"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/client"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// publicHost is dashboard.public_url's host in gated mode: a TLS-terminating
// proxy would forward it to the loopback listener, so the test presents it
// as the Host of requests sent to the listener.
const publicHost = "hermes.example"

// gatedConfig is gated mode on the loopback listener with the issuer as
// OIDC provider; the legacy token is asked for, and must stay off.
func gatedConfig(issuer string) string {
	return fmt.Sprintf(`dashboard:
  public_url: "https://%s"
  legacy_token: true
  oidc: {issuer: %q, client_id: "hermes-test", allowed_subjects: ["alice"]}
`, publicHost, issuer)
}

// oidcLogin runs the browser's side of /auth/login → provider →
// /auth/callback and returns the callback's response.
func (b *browser) oidcLogin(t *testing.T) *http.Response {
	t.Helper()
	res, _ := b.do(t, "GET", "/auth/login", nil)
	if res.StatusCode != http.StatusFound {
		t.Fatalf("GET /auth/login: HTTP %d", res.StatusCode)
	}
	var state *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "hermes_oidc_state" {
			state = c
		}
	}
	if state == nil || !state.HttpOnly || state.Path != "/auth/callback" {
		t.Fatalf("state cookie %+v, want HttpOnly with Path /auth/callback", state)
	}
	authz, err := b.hc.Get(res.Header.Get("Location"))
	if err != nil {
		t.Fatalf("authorize: %v", err)
	}
	_ = authz.Body.Close()
	cb, err := url.Parse(authz.Header.Get("Location"))
	if err != nil || authz.StatusCode != http.StatusFound || cb.Host != publicHost || cb.Path != "/auth/callback" {
		t.Fatalf("authorize: HTTP %d to %q, want a redirect to https://%s/auth/callback", authz.StatusCode, authz.Header.Get("Location"), publicHost)
	}
	b.last = nil
	res, _ = b.do(t, "GET", cb.RequestURI(), nil, state)
	return res
}

// TestGatedOIDCOperator: gated mode. An allow-listed OIDC login (cookie
// SameSite=Lax) gets a ws-ticket, attaches to a natively created session,
// answers its approval and submits under its own subject; a subject not
// allow-listed gets no session; ?token= is refused.
func TestGatedOIDCOperator(t *testing.T) {
	t.Parallel()
	p := oidctest.New(t, "alice")
	f := gt.NewFixture(t, gt.Config{Extra: gatedConfig(p.Issuer())})
	dir := gt.Cwd(t)
	owned := filepath.Join(dir, "owned")
	if err := os.Mkdir(owned, 0o700); err != nil {
		t.Fatal(err)
	}
	legacy := "legacy-token-canary-5f0c2a"
	gt.WriteFile(t, filepath.Join(f.Home, "dashboard.token"), legacy+"\n")
	f.Turns.Set("native: remove it", modeltest.ToolCall("terminal", gt.TerminalArgs("rm -r -- "+owned)), modeltest.Text("NATIVE_DONE"))
	f.Turns.Set("oidc: hello", modeltest.Text("OIDC_DONE"))
	d := f.Start()
	ctx := gt.Context(t, 2*wait)
	api := d.Identity().APIOrigin
	sum := sha256.Sum256([]byte(p.Issuer()))
	subject := "oidc:" + hex.EncodeToString(sum[:])[:16] + ":alice"

	br := newBrowser(api)
	br.host, br.self = publicHost, "https://"+publicHost
	refuseUnlisted(t, br, p)
	res := br.oidcLogin(t)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" || br.last == nil {
		t.Fatalf("callback: HTTP %d to %q, cookie %v", res.StatusCode, res.Header.Get("Location"), br.last)
	}
	br.cookie = br.last
	if c := br.cookie; !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || !c.Secure {
		t.Errorf("OIDC session cookie %+v, want HttpOnly, SameSite=Lax, Path=/, Secure (public https)", c)
	}
	if got := me(t, br); got != subject {
		t.Errorf("/api/auth/me subject %q, want %q", got, subject)
	}

	vn := nativeView(ctx, t, d)
	w := &wire{}
	var snap protocol.Snapshot
	w.must(t, vn, "session.create", protocol.SessionCreateParams{RequestID: gt.Ptr("gated"), Cwd: &dir}, &snap)
	sid := snap.SessionID
	var rn protocol.Receipt
	w.must(t, vn, "prompt.submit", protocol.PromptSubmitParams{SessionID: sid, SubmissionID: gt.Ptr("same-input"), Text: "native: remove it"}, &rn)
	pn := gt.AwaitPrompt(t, vn, wait)

	vo := br.view(ctx, t)
	var so protocol.Snapshot
	w.must(t, vo, "session.resume", protocol.SessionResumeParams{SessionID: &sid}, &so)
	if len(so.Prompts) != 1 || so.Prompts[0].PromptID != pn.PromptID {
		t.Fatalf("OIDC viewer prompts %+v, want %s", so.Prompts, pn.PromptID)
	}
	respond(t, w, vo, sid, pn)
	if mc := gt.AwaitComplete(t, vo, rn.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
		t.Errorf("native turn answered by OIDC: outcome %q", mc.Outcome)
	}
	checkSettledBy(t, vn, pn.PromptID, subject)
	var ro protocol.Receipt
	w.must(t, vo, "prompt.submit", protocol.PromptSubmitParams{SessionID: sid, SubmissionID: gt.Ptr("same-input"), Text: "oidc: hello"}, &ro)
	if mc := gt.AwaitComplete(t, vn, ro.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted || mc.Text != "OIDC_DONE" {
		t.Errorf("OIDC turn: %+v", mc)
	}
	if _, err := os.Stat(owned); !os.IsNotExist(err) {
		t.Errorf("the approved command did not run")
	}
	refuseLegacyToken(t, api, legacy)
	w.assertAbsent(t, binding, vn, vo)
	for _, r := range f.Model.Requests() {
		if strings.Contains(string(r.Raw), binding) || strings.Contains(string(r.Raw), subject) {
			t.Errorf("model request %d carries the binding or the OIDC subject", r.N)
		}
	}
	if code := d.Stop(); code != 0 {
		t.Fatalf("graceful stop: exit %d", code)
	}
	db := gt.OpenDB(t, f.Home)
	got := map[string]string{}
	for _, a := range gt.Admissions(t, db) {
		got[a.ID] = a.Principal
	}
	if got[rn.AdmissionID] != nativeSubject() || got[ro.AdmissionID] != subject || len(got) != 2 {
		t.Errorf("admission principals %v, want %s=%s and %s=%s", got, rn.AdmissionID, nativeSubject(), ro.AdmissionID, subject)
	}
	gt.NoSecretAtRest(t, f.Home, br.cookie.Value)
}

// refuseUnlisted: a verified login whose subject is not allow-listed gets
// 403 and no session cookie.
func refuseUnlisted(t *testing.T, br *browser, p *oidctest.Provider) {
	t.Helper()
	p.User("mallory", "", false)
	defer p.User("alice", "", false)
	res := br.oidcLogin(t)
	if res.StatusCode != http.StatusForbidden || (br.last != nil && br.last.Value != "") {
		t.Errorf("login as mallory: HTTP %d, cookie %v; want 403 without a session", res.StatusCode, br.last)
	}
}

func me(t *testing.T, br *browser) string {
	t.Helper()
	res, body := br.do(t, "GET", "/api/auth/me", nil, br.cookie)
	var out struct {
		Subject string `json:"subject"`
		Gated   bool   `json:"gated"`
	}
	if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &out) != nil || !out.Gated {
		t.Fatalf("/api/auth/me: HTTP %d %s", res.StatusCode, body)
	}
	return out.Subject
}

// refuseLegacyToken: ?token= is never accepted in gated mode, even with
// legacy_token: true and the right token.
func refuseLegacyToken(t *testing.T, api, token string) {
	t.Helper()
	for _, origin := range []string{"", api, "https://" + publicHost} {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		ctx := gt.Context(t, wait)
		c, err := client.Dial(ctx, api, client.Options{Query: url.Values{"token": {token}}, Header: h})
		if st := dialStatus(c, err); st != http.StatusUnauthorized {
			t.Errorf("?token= in gated mode (Origin %q): HTTP %d, want 401", origin, st)
		}
	}
}
