package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeGateway is an in-test WebSocket JSON-RPC server: the real websocket
// library and the real rpc engine, with handlers chosen by each test.
type fakeGateway struct {
	URL string

	refuse   int      // HTTP status to refuse the upgrade with; 0 accepts
	selected []string // subprotocols the server may select; nil = hermes-gateway-v1
	// hello runs after the upgrade, before Run; nil sends gateway.ready.
	hello func(conn *rpc.Conn)
	// handlers are registered on each connection's Mux; they get the conn
	// so they can send events around their reply.
	handlers map[string]func(conn *rpc.Conn, params json.RawMessage) (any, error)

	requests chan *http.Request // every upgrade request, buffered
	wg       sync.WaitGroup     // WebSocket handlers (hijacked: httptest does not wait)
}

func startGateway(t *testing.T, g *fakeGateway) *fakeGateway {
	t.Helper()
	g.requests = make(chan *http.Request, 16)
	srv := httptest.NewServer(http.HandlerFunc(g.serveHTTP))
	g.URL = srv.URL
	t.Cleanup(func() {
		srv.Close()
		g.wg.Wait()
	})
	return g
}

func (g *fakeGateway) serveHTTP(w http.ResponseWriter, r *http.Request) {
	g.requests <- r
	if g.refuse != 0 {
		http.Error(w, http.StatusText(g.refuse), g.refuse)
		return
	}
	protos := g.selected
	if protos == nil {
		protos = []string{protocol.Subprotocol}
	}
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: protos})
	if err != nil {
		return
	}
	g.wg.Add(1)
	defer g.wg.Done()
	mux := rpc.NewMux()
	var conn *rpc.Conn
	for method, h := range g.handlers {
		mux.Handle(method, func(_ context.Context, p json.RawMessage) (any, error) { return h(conn, p) })
	}
	conn = rpc.NewConn(rpc.WebSocketStream(ws), rpc.Options{Mux: mux})
	if g.hello != nil {
		g.hello(conn)
	} else {
		sendEvent(conn, protocol.EventGatewayReady, 0)
	}
	_ = conn.Run(context.Background())
}

func sendEvent(conn *rpc.Conn, typ string, seq int64) {
	payload := json.RawMessage(`{}`)
	if typ == protocol.EventGatewayReady {
		payload, _ = json.Marshal(protocol.ReadyPayload{Protocol: protocol.Subprotocol})
	}
	_ = conn.Notify(context.Background(), protocol.MethodEvent,
		protocol.Event{Type: typ, SessionID: "local-1", Seq: seq, Payload: payload})
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func dial(t *testing.T, g *fakeGateway, opts Options) *Client {
	t.Helper()
	c, err := Dial(testCtx(t), g.URL, opts)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

var pingHandler = map[string]func(*rpc.Conn, json.RawMessage) (any, error){
	protocol.MethodPing: func(*rpc.Conn, json.RawMessage) (any, error) { return protocol.PingResult{Pong: true}, nil },
}

func TestDialOffersTicketQueryAndHeader(t *testing.T) {
	t.Parallel()
	g := startGateway(t, &fakeGateway{handlers: pingHandler})
	c := dial(t, g, Options{
		Ticket: "tkt",
		Query:  url.Values{"internal": {"cred"}},
		Header: http.Header{"X-Probe": {"yes"}},
	})
	if err := c.Ping(testCtx(t)); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	r := <-g.requests
	var offered []string
	for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
		for p := range strings.SplitSeq(v, ",") {
			offered = append(offered, strings.TrimSpace(p))
		}
	}
	if d := cmp.Diff([]string{protocol.Subprotocol, protocol.TicketSubprotocolPrefix + "tkt"}, offered); d != "" {
		t.Errorf("offered subprotocols (-want +got):\n%s", d)
	}
	if r.URL.Path != "/api/ws" || r.URL.Query().Get("internal") != "cred" || r.Header.Get("X-Probe") != "yes" {
		t.Errorf("upgrade request = %s %v, want /api/ws?internal=cred with X-Probe", r.URL, r.Header)
	}
	if r.Header.Get("Origin") != "" {
		t.Errorf("native dial sent Origin %q; the native gate refuses any Origin", r.Header.Get("Origin"))
	}
}

func TestDialRefusesOtherSubprotocol(t *testing.T) {
	t.Parallel()
	for name, selected := range map[string][]string{
		"none":   {},
		"ticket": {protocol.TicketSubprotocolPrefix + "tkt"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := startGateway(t, &fakeGateway{selected: selected})
			c, err := Dial(testCtx(t), g.URL, Options{Ticket: "tkt"})
			if !errors.Is(err, ErrSubprotocol) {
				if c != nil {
					_ = c.Close()
				}
				t.Fatalf("Dial = %v, want ErrSubprotocol", err)
			}
		})
	}
}

func TestDialHTTPRefusalIsDialError(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		g := startGateway(t, &fakeGateway{refuse: status})
		_, err := Dial(testCtx(t), g.URL, Options{Query: url.Values{"token": {"bad"}}})
		var de *DialError
		if !errors.As(err, &de) || de.Status != status {
			t.Fatalf("Dial = %v, want *DialError{Status: %d}", err, status)
		}
		if strings.Contains(err.Error(), "bad") {
			t.Errorf("DialError text leaks the credential: %v", err)
		}
	}
}

func TestDialWaitsForReady(t *testing.T) {
	t.Parallel()
	upgraded, gate := make(chan struct{}), make(chan struct{})
	g := startGateway(t, &fakeGateway{hello: func(conn *rpc.Conn) {
		close(upgraded)
		<-gate
		sendEvent(conn, protocol.EventGatewayReady, 0)
		sendEvent(conn, protocol.EventSessionInfo, 1)
	}})
	type result struct {
		c   *Client
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := Dial(testCtx(t), g.URL, Options{})
		done <- result{c, err}
	}()
	<-upgraded
	select {
	case r := <-done:
		t.Fatalf("Dial returned before gateway.ready: %v", r.err)
	default:
	}
	close(gate)
	r := <-done
	if r.err != nil {
		t.Fatalf("Dial: %v", r.err)
	}
	defer r.c.Close()
	ev, err := r.c.AwaitEvent(testCtx(t), func(protocol.Event) bool { return true })
	if err != nil || ev.Type != protocol.EventSessionInfo {
		t.Fatalf("first event = %+v, %v; want session.info (Dial consumes gateway.ready)", ev, err)
	}
}

func TestDialFailsWithoutReady(t *testing.T) {
	t.Parallel()
	for name, hello := range map[string]func(*rpc.Conn){
		"other event first": func(conn *rpc.Conn) { sendEvent(conn, protocol.EventSessionInfo, 1) },
		"closed":            func(conn *rpc.Conn) { _ = conn.Close() },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := startGateway(t, &fakeGateway{hello: hello})
			if _, err := Dial(testCtx(t), g.URL, Options{}); !errors.Is(err, ErrNotReady) {
				t.Fatalf("Dial = %v, want ErrNotReady", err)
			}
		})
	}
	t.Run("context", func(t *testing.T) {
		t.Parallel()
		upgraded := make(chan struct{})
		g := startGateway(t, &fakeGateway{hello: func(*rpc.Conn) { close(upgraded) }})
		ctx, cancel := context.WithCancel(testCtx(t))
		go func() { <-upgraded; cancel() }()
		if _, err := Dial(ctx, g.URL, Options{}); !errors.Is(err, context.Canceled) {
			t.Fatalf("Dial = %v, want context.Canceled", err)
		}
	})
}

func TestWSURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://127.0.0.1:4000":   "ws://127.0.0.1:4000/api/ws?ticket=t",
		"http://127.0.0.1:4000/":  "ws://127.0.0.1:4000/api/ws?ticket=t",
		"https://gw.example.com":  "wss://gw.example.com/api/ws?ticket=t",
		"ws://[::1]:4000/ignored": "ws://[::1]:4000/api/ws?ticket=t",
	} {
		got, err := wsURL(in, url.Values{"ticket": {"t"}})
		if err != nil || got != want {
			t.Errorf("wsURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := wsURL("ftp://x", nil); err == nil {
		t.Error("wsURL accepted an ftp origin")
	}
}
