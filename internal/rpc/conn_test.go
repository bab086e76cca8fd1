package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// servePipe runs a server Conn on one end of a Pipe and returns the raw
// other end. Cleanup stops Run and checks it returned.
func servePipe(t *testing.T, opts Options) (*Conn, Stream) {
	t.Helper()
	a, b := Pipe()
	c := NewConn(a, opts)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
		_ = b.Close()
	})
	return c, b
}

func exchange(t *testing.T, peer Stream, frame string) []byte {
	t.Helper()
	if err := peer.Write(t.Context(), []byte(frame)); err != nil {
		t.Fatalf("write: %v", err)
	}
	got, err := peer.Read(t.Context())
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return got
}

func TestFrames(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"parse error", `{"jsonrpc":`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"},"id":null}`},
		{"not json", `hello`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"},"id":null}`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request"},"id":null}`},
		{"scalar", `"ping"`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request"},"id":null}`},
		{"no method", `{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request"},"id":1}`},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request"},"id":1}`},
		{"no version", `{"id":"a","method":"ping"}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request"},"id":"a"}`},
		{"method not string", `{"jsonrpc":"2.0","id":1,"method":5}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request"},"id":1}`},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request"},"id":null}`},
		{"params array", `{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":4001,"message":"invalid_params","data":{"reason":"invalid_params","detail":"params must be a JSON object"}}}`},
		{"unknown method", `{"jsonrpc":"2.0","id":7,"method":"nope"}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"unknown method: nope","data":{"reason":"unknown_method"}}}`},
		{"ping", `{"jsonrpc":"2.0","id":"x","method":"ping","params":{}}`, `{"jsonrpc":"2.0","id":"x","result":{"pong":true}}`},
		{"ping null params", `{"jsonrpc":"2.0","id":2,"method":"ping","params":null}`, `{"jsonrpc":"2.0","id":2,"result":{"pong":true}}`},
		{"ping no params", `{"jsonrpc":"2.0","id":3,"method":"ping"}`, `{"jsonrpc":"2.0","id":3,"result":{"pong":true}}`},
		{"strict params", `{"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":1}}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":4001,"message":"invalid_params","data":{"reason":"invalid_params","detail":"unknown key \"x\""}}}`},
		{"domain detail", `{"jsonrpc":"2.0","id":5,"method":"missing"}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":4001,"message":"not_found","data":{"reason":"not_found","detail":"no session \"s1\""}}}`},
		{"internal", `{"jsonrpc":"2.0","id":6,"method":"internal"}`,
			`{"jsonrpc":"2.0","id":6,"error":{"code":5001,"message":"storage_unavailable","data":{"reason":"storage_unavailable"}}}`},
		{"wrapped cause", `{"jsonrpc":"2.0","id":8,"method":"wrapped"}`,
			`{"jsonrpc":"2.0","id":8,"error":{"code":5001,"message":"storage_unavailable","data":{"reason":"storage_unavailable"}}}`},
		{"panic", `{"jsonrpc":"2.0","id":9,"method":"panic"}`,
			`{"jsonrpc":"2.0","id":9,"error":{"code":5001,"message":"storage_unavailable","data":{"reason":"storage_unavailable"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logs logBuffer
			_, peer := servePipe(t, Options{Mux: testMux(t), Logger: logs.logger()})
			got := exchange(t, peer, tt.in)
			jsonEqual(t, got, tt.want)
			if strings.Contains(string(got), "secret") || strings.Contains(string(got), "hidden") {
				t.Errorf("internal text leaked: %s", got)
			}
		})
	}
}

func TestInternalTextIsLogged(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	_, peer := servePipe(t, Options{Mux: testMux(t), Logger: logs.logger()})
	exchange(t, peer, `{"jsonrpc":"2.0","id":1,"method":"internal"}`)
	exchange(t, peer, `{"jsonrpc":"2.0","id":2,"method":"panic"}`)
	exchange(t, peer, `{"jsonrpc":"2.0","id":3,"method":"wrapped"}`)
	for _, want := range []string{"/secret/path", "secret panic text", "hidden cause"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
}

func TestNotificationsFromPeerAreNotAnswered(t *testing.T) {
	t.Parallel()
	_, peer := servePipe(t, Options{Mux: testMux(t)})
	// A notification (even of an unknown method or with bad params) gets no
	// reply: the next frame read is the answer to the request after it.
	for _, n := range []string{
		`{"jsonrpc":"2.0","method":"ping"}`,
		`{"jsonrpc":"2.0","method":"nope"}`,
		`{"jsonrpc":"2.0","method":"ping","params":3}`,
	} {
		if err := peer.Write(t.Context(), []byte(n)); err != nil {
			t.Fatal(err)
		}
	}
	jsonEqual(t, exchange(t, peer, `{"jsonrpc":"2.0","id":1,"method":"ping"}`), `{"jsonrpc":"2.0","id":1,"result":{"pong":true}}`)
}

func TestRepliesInRequestOrder(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	m := testMux(t)
	m.Handle("slow", func(ctx context.Context, _ json.RawMessage) (any, error) {
		select {
		case <-release:
			return "slow", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	_, peer := servePipe(t, Options{Mux: m})
	frames := []string{
		`{"jsonrpc":"2.0","id":1,"method":"slow"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`garbage`,
		`{"jsonrpc":"2.0","id":3,"method":"nope"}`,
	}
	for _, f := range frames { // each Write returns once the read loop took it
		if err := peer.Write(t.Context(), []byte(f)); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	for _, want := range []string{`1`, `2`, `null`, `3`} {
		got, err := peer.Read(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ ID json.RawMessage }
		if err := json.Unmarshal(got, &r); err != nil || string(r.ID) != want {
			t.Fatalf("got %s, want id %s next", got, want)
		}
	}
}

func TestOverloaded(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	m := NewMux()
	m.Handle("slow", func(ctx context.Context, _ json.RawMessage) (any, error) {
		<-release
		return "ok", nil
	})
	_, peer := servePipe(t, Options{Mux: m, MaxInflight: 1})
	// Requests are queued until the queue (1) and the serve goroutine (1)
	// are busy; the next one is refused at once, out of order.
	for i := 1; ; i++ {
		got := exchangeNoWait(t, peer, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"slow"}`, i))
		if got == nil {
			if i > 2 {
				t.Fatalf("request %d was queued beyond MaxInflight", i)
			}
			continue
		}
		jsonEqual(t, got, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":4001,"message":"overloaded","data":{"reason":"overloaded","detail":"too many requests in flight"}}}`, i))
		break
	}
	close(release)
}

// exchangeNoWait writes frame and returns a reply only when one is already
// waiting to be read (the overload path writes from the read loop).
func exchangeNoWait(t *testing.T, peer Stream, frame string) []byte {
	t.Helper()
	got := make(chan []byte, 1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		b, err := peer.Read(ctx)
		if err == nil {
			got <- b
		}
	})
	if err := peer.Write(t.Context(), []byte(frame)); err != nil {
		t.Fatal(err)
	}
	// The overload reply is written by the read loop before it reads the
	// next frame, so a queued request leaves nothing to read: probe with
	// one more write of a notification that the read loop must take.
	if err := peer.Write(t.Context(), []byte(`{"jsonrpc":"2.0","method":"probe"}`)); err != nil {
		t.Fatal(err)
	}
	cancel()
	wg.Wait()
	select {
	case b := <-got:
		return b
	default:
		return nil
	}
}
