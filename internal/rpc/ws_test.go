package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// wsServer serves one rpc.Conn per WebSocket upgrade on a loopback
// httptest server. onConn (optional) sees each server Conn before Run.
type wsServer struct {
	url     string
	runErrs chan error // Run's result, one per connection
}

func newWSServer(t testing.TB, opts Options, readLimit int64, onConn func(*Conn)) *wsServer {
	t.Helper()
	s := &wsServer{runErrs: make(chan error, 16)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		ws.SetReadLimit(readLimit)
		c := NewConn(WebSocketStream(ws), opts)
		if onConn != nil {
			onConn(c)
		}
		s.runErrs <- c.Run(r.Context())
	}))
	t.Cleanup(srv.Close) // runs after the clients' cleanups close them
	s.url = "ws" + strings.TrimPrefix(srv.URL, "http")
	return s
}

// dial returns a client Conn running until the test ends.
func (s *wsServer) dial(t testing.TB, opts Options) *Conn {
	t.Helper()
	ws, _, err := websocket.Dial(t.Context(), s.url, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	c := NewConn(WebSocketStream(ws), opts)
	done := make(chan error, 1)
	go func() { done <- c.Run(context.Background()) }()
	t.Cleanup(func() {
		_ = c.Close()
		if err := <-done; err != nil {
			t.Errorf("client Run: %v", err)
		}
	})
	return c
}

func TestWebSocketCall(t *testing.T) {
	t.Parallel()
	s := newWSServer(t, Options{Mux: testMux(t)}, 1<<20, nil)
	c := s.dial(t, Options{})

	var pong struct{ Pong bool }
	if err := c.Call(t.Context(), "ping", struct{}{}, &pong); err != nil || !pong.Pong {
		t.Fatalf("ping = %+v, %v", pong, err)
	}
	tests := []struct {
		method string
		want   CallError
	}{
		{"nope", CallError{Code: -32601, Message: "unknown method: nope", Reason: protocol.ReasonUnknownMethod}},
		{"missing", CallError{Code: 4001, Message: "not_found", Reason: protocol.ReasonNotFound, Detail: `no session "s1"`}},
		{"internal", CallError{Code: 5001, Message: "storage_unavailable", Reason: protocol.ReasonStorageUnavailable}},
		{"panic", CallError{Code: 5001, Message: "storage_unavailable", Reason: protocol.ReasonStorageUnavailable}},
	}
	for _, tt := range tests {
		err := c.Call(t.Context(), tt.method, nil, nil)
		var ce *CallError
		if !errors.As(err, &ce) || *ce != tt.want {
			t.Errorf("Call(%s) = %#v, want %#v", tt.method, err, tt.want)
		}
	}
}

func TestWebSocketConcurrentCallsMatch(t *testing.T) {
	t.Parallel()
	s := newWSServer(t, Options{Mux: testMux(t)}, 1<<20, nil)
	c := s.dial(t, Options{})
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			var got struct{ N int }
			if err := c.Call(t.Context(), "echo", map[string]int{"n": i}, &got); err != nil || got.N != i {
				t.Errorf("echo %d = %d, %v", i, got.N, err)
			}
		})
	}
	wg.Wait()
}

// Notifications from the server race replies on the same socket: every frame
// must arrive whole (the race detector checks the writer) and all must arrive.
func TestWebSocketNotifyWithReplies(t *testing.T) {
	t.Parallel()
	const events, calls = 200, 50
	serverConn := make(chan *Conn, 1)
	s := newWSServer(t, Options{Mux: testMux(t)}, 1<<20, func(c *Conn) { serverConn <- c })
	var got atomic.Int64
	allEvents := make(chan struct{})
	c := s.dial(t, Options{OnNotify: func(method string, params json.RawMessage) {
		var p struct{ I int }
		if method != protocol.MethodEvent || json.Unmarshal(params, &p) != nil {
			t.Errorf("bad notification %s %s", method, params)
		}
		if got.Add(1) == events {
			close(allEvents)
		}
	}})
	sc := <-serverConn
	var wg sync.WaitGroup
	for i := range events {
		wg.Go(func() {
			if err := sc.Notify(t.Context(), protocol.MethodEvent, map[string]int{"i": i}); err != nil {
				t.Errorf("notify: %v", err)
			}
		})
	}
	for i := range calls {
		wg.Go(func() {
			var r struct{ N int }
			if err := c.Call(t.Context(), "echo", map[string]int{"n": i}, &r); err != nil || r.N != i {
				t.Errorf("echo %d = %d, %v", i, r.N, err)
			}
		})
	}
	wg.Wait()
	<-allEvents
}

// Notify is not held up by a handler that is still running.
func TestNotifyDuringSlowHandler(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	m := testMux(t)
	m.Handle("slow", func(ctx context.Context, _ json.RawMessage) (any, error) {
		<-release
		return "done", nil
	})
	serverConn := make(chan *Conn, 1)
	s := newWSServer(t, Options{Mux: m}, 1<<20, func(c *Conn) { serverConn <- c })
	gotEvent := make(chan string, 1)
	c := s.dial(t, Options{OnNotify: func(method string, _ json.RawMessage) { gotEvent <- method }})
	sc := <-serverConn

	callDone := make(chan error, 1)
	go func() { callDone <- c.Call(context.Background(), "slow", nil, nil) }()
	if err := sc.Notify(t.Context(), "event", map[string]string{"type": "x"}); err != nil {
		t.Fatal(err)
	}
	if m := <-gotEvent; m != "event" {
		t.Fatalf("event = %q", m)
	}
	close(release)
	if err := <-callDone; err != nil {
		t.Fatal(err)
	}
}

func TestWebSocketOversizeFrameCloses1009(t *testing.T) {
	t.Parallel()
	s := newWSServer(t, Options{Mux: testMux(t)}, 1024, nil)
	ws, _, err := websocket.Dial(t.Context(), s.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":%q}}`, strings.Repeat("x", 2048))
	if err := ws.Write(t.Context(), websocket.MessageText, []byte(big)); err != nil {
		t.Fatal(err)
	}
	_, _, err = ws.Read(t.Context())
	if got := websocket.CloseStatus(err); got != websocket.StatusMessageTooBig {
		t.Fatalf("close status = %v (%v), want 1009", got, err)
	}
	if runErr := <-s.runErrs; !errors.Is(runErr, websocket.ErrMessageTooBig) {
		t.Fatalf("server Run = %v, want ErrMessageTooBig", runErr)
	}
}

func TestWebSocketPeerCloseEndsRun(t *testing.T) {
	t.Parallel()
	s := newWSServer(t, Options{Mux: testMux(t)}, 1<<20, nil)
	ws, _, err := websocket.Dial(t.Context(), s.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Close(websocket.StatusNormalClosure, ""); err != nil {
		t.Fatal(err)
	}
	if err := <-s.runErrs; err != nil {
		t.Fatalf("server Run after a clean close = %v, want nil", err)
	}
}

func BenchmarkWebSocketPing(b *testing.B) {
	s := newWSServer(b, Options{Mux: testMux(b)}, 1<<20, nil)
	c := s.dial(b, Options{})
	var pong struct{ Pong bool }
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Call(b.Context(), "ping", nil, &pong); err != nil {
			b.Fatal(err)
		}
	}
}
