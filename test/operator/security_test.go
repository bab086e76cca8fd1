package operator

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/hermes-gateway/hermes/internal/client"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// gate is one loopback daemon with the legacy token enabled, shared by the
// security subtests.
type gate struct {
	d      *gt.Daemon
	api    string // http://127.0.0.1:PORT
	port   string
	legacy string // the ?token= secret
}

func newGate(t *testing.T) *gate {
	t.Helper()
	f := gt.NewFixture(t, gt.Config{Extra: "dashboard:\n  legacy_token: true\n"})
	d := f.Start()
	g := &gate{d: d, api: d.Identity().APIOrigin}
	u, err := url.Parse(g.api)
	if err != nil || u.Port() == "" {
		t.Fatalf("api origin %q", g.api)
	}
	g.port = u.Port()
	b, err := os.ReadFile(filepath.Join(d.Home, "dashboard.token"))
	if err != nil || strings.TrimSpace(string(b)) == "" {
		t.Fatalf("legacy token file: %v", err)
	}
	g.legacy = strings.TrimSpace(string(b))
	return g
}

// browser is a logged-in dashboard browser whose every response is
// checked for the security headers.
func (g *gate) browser(t *testing.T) *browser {
	t.Helper()
	br := newBrowser(g.api)
	br.check = checkSecurityHeaders
	br.link(t, g.d)
	return br
}

// otherPort is a port of the loopback host that is not the listener's.
func (g *gate) otherPort() string {
	n, _ := strconv.Atoi(g.port)
	if n == 65535 {
		return "1"
	}
	return strconv.Itoa(n + 1)
}

// badOrigins are Origin values a page not on the allow-list may send
// (docs/protocol.md#host-and-origin); none is an exact allow-list member.
func (g *gate) badOrigins() []string {
	return []string{
		"null",
		"http://127.0.0.1:" + g.otherPort(),
		"http://localhost:" + g.port + ".evil.example",
		"http://LOCALHOST:" + g.port,
		"https://127.0.0.1:" + g.port,
		"http://127.0.0.1",
		"http://evil.example",
		"http://127.0.0.1:" + g.port + ".nip.io",
	}
}

// checkSecurityHeaders: every response carries Referrer-Policy:
// no-referrer and a CSP, and never a CORS header.
func checkSecurityHeaders(t *testing.T, req *http.Request, res *http.Response) {
	t.Helper()
	what := req.Method + " " + req.URL.Path + " (Host " + req.Host + ")"
	if got := res.Header.Get("Referrer-Policy"); got != "no-referrer" {
		t.Errorf("%s: HTTP %d Referrer-Policy %q, want no-referrer", what, res.StatusCode, got)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("%s: HTTP %d Content-Security-Policy %q", what, res.StatusCode, csp)
	}
	for k := range res.Header {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			t.Errorf("%s: HTTP %d sends CORS header %s", what, res.StatusCode, k)
		}
	}
}

// TestGateSecurity: the binary-level refusals of docs/protocol.md#gates and #host-and-origin and
// the ticket and params rules (#tickets, #json-rpc).
func TestGateSecurity(t *testing.T) {
	t.Parallel()
	g := newGate(t)
	t.Run("origin", func(t *testing.T) { t.Parallel(); testOrigins(t, g) })
	t.Run("host", func(t *testing.T) { t.Parallel(); testHosts(t, g) })
	t.Run("replay", func(t *testing.T) { t.Parallel(); testReplay(t, g) })
	t.Run("race", func(t *testing.T) { t.Parallel(); testRace(t, g) })
	t.Run("csrf", func(t *testing.T) { t.Parallel(); testCSRF(t, g) })
	t.Run("headers", func(t *testing.T) { t.Parallel(); testHeaders(t, g) })
	t.Run("forged-identity", func(t *testing.T) { t.Parallel(); testForgedIdentity(t, g) })
}

// dialWith dials /api/ws with a native ticket, query and Origin.
func dialWith(g *gate, native string, q url.Values, origin string) int {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := client.Dial(ctx, g.api, client.Options{Ticket: native, Query: q, Header: h})
	return dialStatus(c, err)
}

// testOrigins: a bad Origin is 403 with each credential type, before a
// single-use ticket is consumed.
func testOrigins(t *testing.T, g *gate) {
	br := g.browser(t)
	native := mintTicket(t, g.d, "interactive")
	for _, o := range append(g.badOrigins(), g.api) { // a native ticket refuses any Origin
		if st := dialWith(g, native, nil, o); st != http.StatusForbidden {
			t.Errorf("native ticket, Origin %q: HTTP %d, want 403", o, st)
		}
	}
	if st := dialWith(g, native, nil, ""); st != http.StatusSwitchingProtocols {
		t.Errorf("native ticket after Origin refusals: HTTP %d, want 101 (not consumed)", st)
	}
	tk := br.wsTicket(t)
	for _, o := range append(g.badOrigins(), "") {
		if st := dialWith(g, "", url.Values{"ticket": {tk}}, o); st != http.StatusForbidden {
			t.Errorf("dashboard ticket, Origin %q: HTTP %d, want 403", o, st)
		}
	}
	if st := dialWith(g, "", url.Values{"ticket": {tk}}, g.api); st != http.StatusSwitchingProtocols {
		t.Errorf("dashboard ticket after Origin refusals: HTTP %d, want 101 (not consumed)", st)
	}
	for _, o := range g.badOrigins() {
		if st := dialWith(g, "", url.Values{"token": {g.legacy}}, o); st != http.StatusForbidden {
			t.Errorf("legacy token, Origin %q: HTTP %d, want 403", o, st)
		}
		if st := dialWith(g, "", url.Values{"internal": {"not-the-credential"}}, o); st != http.StatusForbidden {
			t.Errorf("internal credential, Origin %q: HTTP %d, want 403", o, st)
		}
	}
	for _, o := range []string{"", g.api, "http://localhost:" + g.port} {
		if st := dialWith(g, "", url.Values{"token": {g.legacy}}, o); st != http.StatusSwitchingProtocols {
			t.Errorf("legacy token, Origin %q: HTTP %d, want 101", o, st)
		}
	}
	if st := dialWith(g, "", url.Values{"internal": {"not-the-credential"}}, ""); st != http.StatusUnauthorized {
		t.Errorf("bad internal credential: HTTP %d, want 401", st)
	}
}

// wsHeaders are the headers of a WebSocket upgrade offering subprotocols.
func wsHeaders(protocols ...string) map[string]string {
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	return map[string]string{
		"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
		"Sec-WebSocket-Key": base64.StdEncoding.EncodeToString(key), "Sec-WebSocket-Protocol": strings.Join(protocols, ", "),
	}
}

// testHosts: a Host not on the allow-list is 403 on every route, checked
// before any credential (a valid one is presented and stays unused).
func testHosts(t *testing.T, g *gate) {
	br := g.browser(t)
	native := mintTicket(t, g.d, "interactive")
	link := mintTicket(t, g.d, "dashboard-login")
	wsTk := br.wsTicket(t)
	routes := []struct{ method, path string }{
		{"GET", "/"}, {"GET", "/assets/app.js"}, {"GET", "/auth/link?ticket=" + url.QueryEscape(link)},
		{"GET", "/auth/login"}, {"GET", "/auth/callback?state=x&code=y"}, {"POST", "/auth/logout"},
		{"GET", "/api/auth/me"}, {"POST", "/api/auth/ws-ticket"}, {"GET", "/api/pty"},
		{"GET", "/api/ws?ticket=" + url.QueryEscape(wsTk)}, {"GET", "/api/ws?token=" + url.QueryEscape(g.legacy)},
		{"GET", "/api/ws"}, {"OPTIONS", "/api/ws"}, {"GET", "/no-such-route"},
	}
	hosts := []string{
		"attacker.example:" + g.port, "0.0.0.0:" + g.port, "localhost.attacker.example:" + g.port,
		"127.0.0.1.nip.io:" + g.port, "127.0.0.1:" + g.otherPort(), "127.0.0.1", "localhost", "[::2]:" + g.port,
	}
	for _, host := range hosts {
		for _, r := range routes {
			hdr := map[string]string{"Host": host, "Origin": "http://" + host}
			if strings.HasPrefix(r.path, "/api/ws") {
				for k, v := range wsHeaders(protocol.Subprotocol, protocol.TicketSubprotocolPrefix+native) {
					hdr[k] = v
				}
			}
			if res, _ := br.do(t, r.method, r.path, hdr, br.cookie); res.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s with Host %q: HTTP %d, want 403", r.method, r.path, host, res.StatusCode)
			}
		}
	}
	if st := noHostStatus(t, g); st != http.StatusForbidden {
		t.Errorf("HTTP/1.0 request without Host: HTTP %d, want 403", st)
	}
	// Nothing was consumed by the refused requests.
	if st := dialWith(g, native, nil, ""); st != http.StatusSwitchingProtocols {
		t.Errorf("native ticket after Host refusals: HTTP %d, want 101", st)
	}
	if st := dialWith(g, "", url.Values{"ticket": {wsTk}}, g.api); st != http.StatusSwitchingProtocols {
		t.Errorf("dashboard ticket after Host refusals: HTTP %d, want 101", st)
	}
	if res, _ := br.do(t, "GET", "/auth/link?ticket="+url.QueryEscape(link), nil); res.StatusCode != http.StatusSeeOther {
		t.Errorf("login link after Host refusals: HTTP %d, want 303", res.StatusCode)
	}
}

// noHostStatus sends an HTTP/1.0 request without a Host header.
func noHostStatus(t *testing.T, g *gate) int {
	t.Helper()
	conn, err := net.Dial("tcp", "127.0.0.1:"+g.port)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := fmt.Fprint(conn, "GET / HTTP/1.0\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	_ = res.Body.Close()
	return res.StatusCode
}

// upgradeRefusal sends a WebSocket upgrade that must be refused and
// returns its status and body.
func upgradeRefusal(t *testing.T, br *browser, path string, protocols ...string) (int, string) {
	t.Helper()
	hdr := wsHeaders(append([]string{protocol.Subprotocol}, protocols...)...)
	if !strings.Contains(path, "token=") && len(protocols) == 0 {
		hdr["Origin"] = br.self
	}
	res, body := br.do(t, "GET", path, hdr)
	return res.StatusCode, body
}

// testReplay: used, unknown and wrong-purpose credentials are 401 with
// one answer (no oracle).
func testReplay(t *testing.T, g *gate) {
	br := g.browser(t)
	native := mintTicket(t, g.d, "interactive")
	if st := dialWith(g, native, nil, ""); st != http.StatusSwitchingProtocols {
		t.Fatalf("first use of a native ticket: HTTP %d", st)
	}
	wsTk := br.wsTicket(t)
	if st := dialWith(g, "", url.Values{"ticket": {wsTk}}, g.api); st != http.StatusSwitchingProtocols {
		t.Fatalf("first use of a dashboard ticket: HTTP %d", st)
	}
	unknownStatus, unknownBody := upgradeRefusal(t, br, "/api/ws", protocol.TicketSubprotocolPrefix+"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	cases := []struct {
		name  string
		path  string
		proto []string
	}{
		{"replayed native ticket", "/api/ws", []string{protocol.TicketSubprotocolPrefix + native}},
		{"replayed dashboard ticket", "/api/ws?ticket=" + url.QueryEscape(wsTk), nil},
		{"unknown dashboard ticket", "/api/ws?ticket=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", nil},
		{"dashboard-login ticket as native", "/api/ws", []string{protocol.TicketSubprotocolPrefix + mintTicket(t, g.d, "dashboard-login")}},
		{"native ticket as dashboard ticket", "/api/ws?ticket=" + url.QueryEscape(mintTicket(t, g.d, "interactive")), nil},
		{"wrong legacy token", "/api/ws?token=" + url.QueryEscape(g.legacy+"x"), nil},
	}
	for _, c := range cases {
		st, body := upgradeRefusal(t, br, c.path, c.proto...)
		if st != http.StatusUnauthorized || st != unknownStatus || body != unknownBody {
			t.Errorf("%s: HTTP %d %q, want 401 identical to an unknown ticket (%d %q)", c.name, st, body, unknownStatus, unknownBody)
		}
	}
	link := mintTicket(t, g.d, "dashboard-login")
	for i, want := range []int{http.StatusSeeOther, http.StatusUnauthorized} {
		if res, _ := br.do(t, "GET", "/auth/link?ticket="+url.QueryEscape(link), nil); res.StatusCode != want {
			t.Errorf("login link use %d: HTTP %d, want %d", i+1, res.StatusCode, want)
		}
	}
	interactive := mintTicket(t, g.d, "interactive")
	if res, _ := br.do(t, "GET", "/auth/link?ticket="+url.QueryEscape(interactive), nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("interactive ticket on /auth/link: HTTP %d, want 401", res.StatusCode)
	}
	if st := dialWith(g, interactive, nil, ""); st != http.StatusUnauthorized {
		t.Errorf("interactive ticket after a wrong-purpose presentation: HTTP %d, want 401 (consumed)", st)
	}
}

// testRace: 64 concurrent redemptions of one ticket upgrade exactly once.
func testRace(t *testing.T, g *gate) {
	br := g.browser(t)
	for _, kind := range []string{"dashboard", "native"} {
		var native string
		var q url.Values
		origin := ""
		if kind == "native" {
			native = mintTicket(t, g.d, "interactive")
		} else {
			q, origin = url.Values{"ticket": {br.wsTicket(t)}}, g.api
		}
		var wg sync.WaitGroup
		statuses := make([]int, 64)
		start := make(chan struct{})
		for i := range statuses {
			wg.Go(func() {
				<-start
				statuses[i] = dialWith(g, native, q, origin)
			})
		}
		close(start)
		wg.Wait()
		count := map[int]int{}
		for _, st := range statuses {
			count[st]++
		}
		if count[http.StatusSwitchingProtocols] != 1 || count[http.StatusUnauthorized] != 63 {
			t.Errorf("%s ticket redeemed 64 times at once: statuses %v, want one 101 and 63 401", kind, count)
		}
	}
}

// testCSRF: POST /api/auth/ws-ticket and /auth/logout need an allow-listed
// Origin (or Sec-Fetch-Site: same-origin); cross-site requests are 403
// and change nothing. The link's cookie is HttpOnly; SameSite=Strict.
func testCSRF(t *testing.T, g *gate) {
	br := g.browser(t)
	if c := br.cookie; !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Errorf("link session cookie %+v, want HttpOnly, SameSite=Strict, Path=/", c)
	}
	bad := []map[string]string{
		{},
		{"Origin": "http://evil.example"},
		{"Origin": "null"},
		{"Origin": "http://127.0.0.1:" + g.otherPort()},
		{"Origin": g.api, "Sec-Fetch-Site": "cross-site"},
		{"Origin": g.api, "Sec-Fetch-Site": "same-site"},
		{"Sec-Fetch-Site": "cross-site"},
		{"Sec-Fetch-Site": "same-site"},
	}
	for _, path := range []string{"/api/auth/ws-ticket", "/auth/logout"} {
		for _, hdr := range bad {
			res, _ := br.do(t, "POST", path, hdr, br.cookie)
			if res.StatusCode != http.StatusForbidden || len(res.Cookies()) != 0 {
				t.Errorf("POST %s with %v: HTTP %d, cookies %v; want 403 and no cookie", path, hdr, res.StatusCode, res.Cookies())
			}
		}
	}
	if _, st := br.tryWSTicket(t, map[string]string{"Sec-Fetch-Site": "same-origin"}); st != http.StatusOK {
		t.Errorf("ws-ticket with Sec-Fetch-Site: same-origin: HTTP %d, want 200", st)
	}
	pending := br.wsTicket(t) // the session survived every refused logout
	if res, _ := br.do(t, "POST", "/auth/logout", map[string]string{"Origin": g.api}, br.cookie); res.StatusCode != http.StatusNoContent {
		t.Fatalf("logout: HTTP %d, want 204", res.StatusCode)
	}
	if _, st := br.tryWSTicket(t, map[string]string{"Origin": g.api}); st != http.StatusUnauthorized {
		t.Errorf("ws-ticket after logout: HTTP %d, want 401", st)
	}
	if st := dialWith(g, "", url.Values{"ticket": {pending}}, g.api); st != http.StatusUnauthorized {
		t.Errorf("ticket minted before logout: HTTP %d, want 401", st)
	}
}

// testHeaders: the security headers on successful answers, refusals, a
// preflight and the 101 of an upgrade; a preflight is 403.
func testHeaders(t *testing.T, g *gate) {
	br := g.browser(t)
	evil := map[string]string{"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}
	for _, r := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/", http.StatusOK}, {"GET", "/assets/app.js", http.StatusOK}, {"GET", "/api/auth/me", http.StatusOK},
		{"OPTIONS", "/api/auth/ws-ticket", http.StatusForbidden}, {"OPTIONS", "/api/ws", http.StatusForbidden},
		{"OPTIONS", "/", http.StatusForbidden}, {"GET", "/no-such-route", http.StatusNotFound},
		{"POST", "/api/auth/ws-ticket", http.StatusForbidden}, {"GET", "/api/ws", http.StatusUnauthorized},
		{"GET", "/auth/login", http.StatusNotFound},
	} {
		if res, _ := br.do(t, r.method, r.path, evil, br.cookie); res.StatusCode != r.want {
			t.Errorf("%s %s from a foreign page: HTTP %d, want %d", r.method, r.path, res.StatusCode, r.want)
		}
	}
	ctx := gt.Context(t, wait)
	ws, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(g.api, "http")+"/api/ws", &websocket.DialOptions{
		Subprotocols: []string{protocol.Subprotocol, protocol.TicketSubprotocolPrefix + mintTicket(t, g.d, "interactive")},
	})
	if err != nil {
		t.Fatalf("native upgrade: %v", err)
	}
	defer ws.CloseNow()
	checkSecurityHeaders(t, res.Request, res)
	if got := res.Header.Get("Sec-WebSocket-Protocol"); got != protocol.Subprotocol {
		t.Errorf("selected subprotocol %q, want only %s (never the ticket)", got, protocol.Subprotocol)
	}
}

// testForgedIdentity: identity and capability keys in params are
// invalid_params and write nothing (docs/protocol.md#json-rpc, #operator-scope).
func testForgedIdentity(t *testing.T, g *gate) {
	ctx := gt.Context(t, wait)
	v := nativeView(ctx, t, g.d)
	dir := gt.Cwd(t)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("forged-base"), Cwd: &dir})
	sid := snap.SessionID
	forged := []struct{ method, params string }{
		{"session.create", `{"request_id":"f1","capabilities":["session:operator"]}`},
		{"session.create", `{"request_id":"f2","operator":true}`},
		{"session.create", `{"request_id":"f3","principal_id":"uid:1"}`},
		{"session.create", `{"request_id":"f4","Principal_ID":"uid:1"}`},
		{"session.create", `{"request_id":"f5","scopes":["session:operator"]}`},
		{"session.create", `{"request_id":"f6","native_bootstrap":true}`},
		{"session.create", `{"request_id":"f7","profile":"other"}`},
		{"session.create", `{"request_id":"f8","Source":"cli"}`},
		{"session.create", `{"request_id":"f9","source":"tui","source":"cli"}`},
		{"session.create", `{"request_id":"f10","local_operator_v1":{"principal_id":"uid:1"}}`},
		{"session.resume", `{"session_id":"` + sid + `","capabilities":["session:operator"]}`},
		{"session.resume", `{"session_id":"` + sid + `","operator":true}`},
		{"prompt.submit", `{"session_id":"` + sid + `","submission_id":"s1","text":"t","local_operator_v1":{"profile_id":"p","session_id":"` + sid + `","principal_id":"uid:1"}}`},
		{"prompt.submit", `{"session_id":"` + sid + `","submission_id":"s2","text":"t","principal_id":"uid:1"}`},
		{"prompt.submit", `{"session_id":"` + sid + `","submission_id":"s3","text":"t","capabilities":["session:operator"]}`},
	}
	for _, f := range forged {
		err := v.Call(ctx, f.method, json.RawMessage(f.params), nil)
		if gt.Reason(err) != protocol.ReasonInvalidParams {
			t.Errorf("%s %s: err %v, want invalid_params", f.method, f.params, err)
		}
	}
	list, err := v.ListSessions(ctx, protocol.SessionListParams{Scope: gt.Ptr("stored")})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != sid {
		t.Errorf("stored sessions after forged creates: %+v, want only %s", list.Sessions, sid)
	}
	st, err := g.d.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.AdmissionsQueued+st.AdmissionsRunning+st.AdmissionsUnknown != 0 {
		t.Errorf("status after forged submits: %+v, want no admission", st)
	}
	again := gt.Resume(t, v, sid)
	if len(again.Pending) != 0 || again.MessageCount != 0 {
		t.Errorf("session after forged submits: pending %+v, %d messages; want none", again.Pending, again.MessageCount)
	}
}
