// Package operator holds the cross-surface operator tests of docs/protocol.md#gates and #operator-scope
// through the real hermes binary (docs/protocol.md#operator-scope, #gates, #host-and-origin): a
// session created on one authentication surface (native ticket, loopback
// dashboard link, OIDC login in gated mode) is attached, submitted to and
// answered from another, with attribution kept per surface and the private
// operator binding never leaving the server; and the gate's refusals (Host,
// Origin, replay, redemption race, CSRF, cookie flags, forged identity
// params, security headers) at the binary level.
package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/control"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestMain(m *testing.M) { os.Exit(gt.Main(m)) }

// wait bounds every wait of these tests.
const wait = 20 * time.Second

// binding is the JSON key of the private operator binding (docs/protocol.md#operator-scope).
const binding = "local_operator_v1"

// nativeSubject and dashboardSubject are the two loopback principals of
// the test's uid (docs/protocol.md#control-socket, #gates).
func nativeSubject() string    { return fmt.Sprintf("uid:%d", os.Getuid()) }
func dashboardSubject() string { return "dashboard:" + nativeSubject() }

// wire keeps the raw bytes of every RPC result the test received, so a
// test can assert what never appears on the wire.
type wire struct {
	mu  sync.Mutex
	raw [][]byte // guarded by mu
}

// call runs method on v, records the raw result and decodes it into out
// (nil skips decoding).
func (w *wire) call(ctx context.Context, v *gt.Recorder, method string, params, out any) error {
	var raw json.RawMessage
	if err := v.Call(ctx, method, params, &raw); err != nil {
		return err
	}
	w.mu.Lock()
	w.raw = append(w.raw, append([]byte(nil), raw...))
	w.mu.Unlock()
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// must is call that fails t.
func (w *wire) must(t *testing.T, v *gt.Recorder, method string, params, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), gt.CallTimeout)
	defer cancel()
	if err := w.call(ctx, v, method, params, out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// assertAbsent fails t when s appears in any recorded result or in any
// event (re-marshalled) of the viewers.
func (w *wire) assertAbsent(t *testing.T, s string, viewers ...*gt.Recorder) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.raw) == 0 {
		t.Fatal("no RPC result was recorded")
	}
	for _, raw := range w.raw {
		if bytes.Contains(raw, []byte(s)) {
			t.Errorf("an RPC result contains %q: %s", s, raw)
		}
	}
	n := 0
	for _, v := range viewers {
		for _, ev := range v.Events() {
			n++
			b, _ := json.Marshal(ev)
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("a %s event contains %q: %s", ev.Type, s, b)
			}
		}
	}
	if n == 0 {
		t.Fatal("no event was recorded")
	}
}

// browser is a dashboard user agent without a cookie jar: the test sees
// every Set-Cookie and decides what to send. Redirects are not followed.
type browser struct {
	origin string       // the api origin, where requests go
	host   string       // Host header to present; "" = the origin's
	self   string       // the Origin this page sends on mutations
	hc     *http.Client // never follows redirects
	cookie *http.Cookie // the dashboard session cookie, once logged in
	last   *http.Cookie // the last hermes_session Set-Cookie seen
	// check, when set, is run on every response (security headers).
	check func(*testing.T, *http.Request, *http.Response)
}

func newBrowser(apiOrigin string) *browser {
	return &browser{origin: apiOrigin, self: apiOrigin, hc: noRedirect()}
}

func noRedirect() *http.Client {
	return &http.Client{
		Timeout:       wait,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// do sends one request; hdr entries are added (a "Host" entry sets the
// Host). The body is read and closed.
func (b *browser) do(t *testing.T, method, path string, hdr map[string]string, cookies ...*http.Cookie) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, b.origin+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.host != "" {
		req.Host = b.host
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	for _, c := range cookies {
		if c != nil {
			req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		}
	}
	res, err := b.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	var body []byte
	if res.StatusCode != http.StatusSwitchingProtocols { // an upgraded body never ends
		body, _ = io.ReadAll(res.Body)
	}
	_ = res.Body.Close()
	if b.check != nil {
		b.check(t, req, res)
	}
	for _, c := range res.Cookies() {
		if c.Name == "hermes_session" {
			b.last = c
		}
	}
	return res, string(body)
}

// link opens a dashboard session on the loopback listener with the
// one-time link `hermes dashboard` prints (docs/protocol.md#gates).
func (b *browser) link(t *testing.T, d *gt.Daemon) {
	t.Helper()
	tk := mintTicket(t, d, "dashboard-login")
	b.last = nil
	res, _ := b.do(t, "GET", "/auth/link?ticket="+url.QueryEscape(tk), nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("GET /auth/link: HTTP %d to %q, want 303 to /", res.StatusCode, res.Header.Get("Location"))
	}
	if b.last == nil || b.last.Value == "" {
		t.Fatal("GET /auth/link set no hermes_session cookie")
	}
	b.cookie = b.last
}

// wsTicket asks POST /api/auth/ws-ticket for a browser WebSocket ticket.
func (b *browser) wsTicket(t *testing.T) string {
	t.Helper()
	tk, status := b.tryWSTicket(t, map[string]string{"Origin": b.self})
	if status != http.StatusOK || tk == "" {
		t.Fatalf("POST /api/auth/ws-ticket: HTTP %d", status)
	}
	return tk
}

func (b *browser) tryWSTicket(t *testing.T, hdr map[string]string) (string, int) {
	t.Helper()
	res, body := b.do(t, "POST", "/api/auth/ws-ticket", hdr, b.cookie)
	if res.StatusCode != http.StatusOK {
		return "", res.StatusCode
	}
	var out struct {
		Ticket string `json:"ticket"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("ws-ticket body: %v", err)
	}
	return out.Ticket, res.StatusCode
}

// dial opens the dashboard WebSocket with a fresh ticket.
func (b *browser) dial(ctx context.Context, t *testing.T) (*client.Client, error) {
	t.Helper()
	return dialTicket(ctx, b.origin, b.wsTicket(t), b.self)
}

// view is dial that fails t, records events and closes in t.Cleanup.
func (b *browser) view(ctx context.Context, t *testing.T) *gt.Recorder {
	t.Helper()
	c, err := b.dial(ctx, t)
	if err != nil {
		t.Fatalf("dashboard dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return gt.Record(c)
}

// dialTicket dials /api/ws with a dashboard ?ticket= and an Origin.
func dialTicket(ctx context.Context, apiOrigin, ticket, origin string) (*client.Client, error) {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	return client.Dial(ctx, apiOrigin, client.Options{Query: url.Values{"ticket": {ticket}}, Header: h})
}

// mintTicket mints a ticket of purpose over the control socket.
func mintTicket(t *testing.T, d *gt.Daemon, purpose string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	id := d.Identity()
	var res control.TicketResult
	if err := control.Call(ctx, d.Socket(), "session-ticket", control.TicketParams{
		ProfileID: id.ProfileID, InstanceID: id.InstanceID, Purpose: purpose,
	}, &res); err != nil {
		t.Fatalf("session-ticket %s: %v", purpose, err)
	}
	return res.Ticket
}

// nativeView dials with a native ticket, records events and closes in t.Cleanup.
func nativeView(ctx context.Context, t *testing.T, d *gt.Daemon) *gt.Recorder {
	t.Helper()
	c, err := client.Dial(ctx, d.Identity().APIOrigin, client.Options{Ticket: mintTicket(t, d, "interactive")})
	if err != nil {
		t.Fatalf("native dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return gt.Record(c)
}

// dialStatus is the HTTP status of a refused upgrade (0 when it succeeded
// or failed otherwise).
func dialStatus(c *client.Client, err error) int {
	if err == nil {
		_ = c.Close()
		return http.StatusSwitchingProtocols
	}
	var de *client.DialError
	if errors.As(err, &de) {
		return de.Status
	}
	return 0
}

// hasAssistant reports whether msgs hold an assistant message with text.
func hasAssistant(msgs []protocol.Message, text string) bool {
	for _, m := range msgs {
		if m.Role == "assistant" && strings.Contains(m.Content, text) {
			return true
		}
	}
	return false
}
