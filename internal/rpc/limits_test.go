package rpc

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestWebSocketInvalidUTF8Closes1007(t *testing.T) {
	t.Parallel()
	s := newWSServer(t, Options{Mux: testMux(t)}, 1<<20, nil)
	ws, _, err := websocket.Dial(t.Context(), s.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	bad := []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"s\":\"\xff\xfe\"}}")
	if err := ws.Write(t.Context(), websocket.MessageText, bad); err != nil {
		t.Fatal(err)
	}
	_, _, err = ws.Read(t.Context())
	if got := websocket.CloseStatus(err); got != websocket.StatusInvalidFramePayloadData {
		t.Fatalf("close status = %v (%v), want 1007", got, err)
	}
	if runErr := <-s.runErrs; !errors.Is(runErr, ErrInvalidUTF8) {
		t.Fatalf("server Run = %v, want ErrInvalidUTF8", runErr)
	}
}

// A peer that never reads makes a write block once the socket buffers are
// full; past WriteTimeout the write fails and the connection closes.
func TestWebSocketBlockedWriteClosesConnection(t *testing.T) {
	t.Parallel()
	notifyErr := make(chan error, 1)
	s := newWSServer(t, Options{Mux: testMux(t), WriteTimeout: 200 * time.Millisecond}, 1<<20, func(c *Conn) {
		go func() {
			pad := strings.Repeat("x", 256<<10)
			for {
				if err := c.Notify(t.Context(), "event", map[string]string{"pad": pad}); err != nil {
					notifyErr <- err
					return
				}
			}
		}()
	})
	ws, _, err := websocket.Dial(t.Context(), s.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if err := <-notifyErr; !errors.Is(err, errWriteTimeout) {
		t.Fatalf("Notify to a peer that never reads = %v, want the write timeout", err)
	}
	if runErr := <-s.runErrs; runErr != nil {
		t.Logf("server Run = %v", runErr)
	}
}
