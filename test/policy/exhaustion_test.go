package policy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/control"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
)

// keepAlive is a raw HTTP/1.1 connection kept open between requests.
type keepAlive struct {
	conn net.Conn
	r    *bufio.Reader
	host string
}

func dialKeepAlive(t *testing.T, origin string) *keepAlive {
	t.Helper()
	host := strings.TrimPrefix(origin, "http://")
	c, err := net.DialTimeout("tcp", host, wait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &keepAlive{conn: c, r: bufio.NewReader(c), host: host}
}

// get sends GET path on the connection and reads the whole answer.
func (k *keepAlive) get(path string) (int, string, error) {
	if _, err := fmt.Fprintf(k.conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, k.host); err != nil {
		return 0, "", err
	}
	res, err := http.ReadResponse(k.r, nil)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, string(b), err
}

// TestConnectionCapCountsKeepAlive (issue 10 item 6): with
// gateway.max_connections 8, four idle WebSocket viewers and four idle
// HTTP keep-alive connections all work; the 9th connection, of either
// kind, is refused with 503 while the 8 still answer; a freed slot is
// usable again. (The all-WebSocket case is test/operator.)
func TestConnectionCapCountsKeepAlive(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{NoCompression: true, Extra: "gateway:\n  max_connections: 8\n"})
	d := f.Start()
	ctx := gt.Context(t, wait)
	origin := d.Identity().APIOrigin
	var ws []*client.Client
	for i := range 4 {
		c, err := d.Dial(ctx)
		if err != nil {
			t.Fatalf("viewer %d: %v", i+1, err)
		}
		t.Cleanup(func() { _ = c.Close() })
		ws = append(ws, c)
	}
	var ka []*keepAlive
	for i := range 4 {
		k := dialKeepAlive(t, origin)
		status, body, err := k.get("/")
		if err != nil || status == http.StatusServiceUnavailable {
			t.Fatalf("keep-alive connection %d: HTTP %d %q %v", i+1, status, body, err)
		}
		ka = append(ka, k)
	}
	// The 9th: a plain request and a WebSocket upgrade.
	status, body, err := dialKeepAlive(t, origin).get("/")
	if err != nil || status != http.StatusServiceUnavailable || !strings.Contains(body, "max_connections") {
		t.Errorf("connection 9 (HTTP): %d %q %v, want 503 naming gateway.max_connections", status, body, err)
	}
	c, err := d.Dial(ctx)
	var de *client.DialError
	switch {
	case err == nil:
		_ = c.Close()
		t.Error("connection 9 (WebSocket) was accepted over a cap of 8")
	case !errors.As(err, &de) || de.Status != http.StatusServiceUnavailable:
		t.Errorf("connection 9 (WebSocket): %v, want a 503 refusal", err)
	}
	for i, c := range ws {
		if err := c.Ping(ctx); err != nil {
			t.Errorf("viewer %d after the refusals: %v", i+1, err)
		}
	}
	for i, k := range ka {
		if status, _, err := k.get("/"); err != nil || status == http.StatusServiceUnavailable {
			t.Errorf("keep-alive connection %d after the refusals: HTTP %d %v", i+1, status, err)
		}
	}
	_ = ka[0].conn.Close()
	gt.Await(t, wait, func() bool {
		c, err := d.Dial(ctx)
		if err != nil {
			return false
		}
		defer c.Close()
		return c.Ping(ctx) == nil
	})
}

func mint(ctx context.Context, d *gt.Daemon, purpose string) (string, error) {
	id := d.Identity()
	var res control.TicketResult
	err := control.Call(ctx, d.Socket(), "session-ticket", control.TicketParams{
		ProfileID: id.ProfileID, InstanceID: id.InstanceID, Purpose: purpose,
	}, &res)
	return res.Ticket, err
}

// TestTicketFloodExpiresOldest (issue 10 item 6): one peer minting 1,100
// interactive tickets over the control socket is never refused; its
// oldest unused ticket is expired instead, its newest works, and a
// dashboard-login ticket minted before the flood and one minted after it
// both still open a dashboard session.
func TestTicketFloodExpiresOldest(t *testing.T) {
	t.Parallel()
	d := gt.NewFixture(t, gt.Config{NoCompression: true}).Start()
	ctx := gt.Context(t, wait)
	loginBefore, err := mint(ctx, d, "dashboard-login")
	if err != nil {
		t.Fatal(err)
	}
	oldest, err := mint(ctx, d, "interactive")
	if err != nil {
		t.Fatal(err)
	}
	var newest string
	for i := range 1100 {
		if newest, err = mint(ctx, d, "interactive"); err != nil {
			t.Fatalf("interactive ticket %d of the flood refused: %v", i+1, err)
		}
	}
	loginAfter, err := mint(ctx, d, "dashboard-login")
	if err != nil {
		t.Fatalf("dashboard-login after the flood: %v", err)
	}
	origin := d.Identity().APIOrigin
	if c, err := client.Dial(ctx, origin, client.Options{Ticket: oldest}); err == nil {
		_ = c.Close()
		t.Error("the flood's oldest ticket still works: the pool did not expire it")
	}
	c, err := client.Dial(ctx, origin, client.Options{Ticket: newest})
	if err != nil {
		t.Fatalf("the newest interactive ticket: %v", err)
	}
	defer c.Close()
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for name, tk := range map[string]string{"before": loginBefore, "after": loginAfter} {
		res, err := hc.Get(origin + "/auth/link?ticket=" + url.QueryEscape(tk))
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != http.StatusSeeOther || len(res.Cookies()) == 0 {
			t.Errorf("dashboard-login ticket minted %s the flood: HTTP %d, want 303 with a session cookie", name, res.StatusCode)
		}
	}
}
