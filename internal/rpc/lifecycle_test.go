package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// clientPipe runs a client Conn against a server Conn over a Pipe.
func clientPipe(t *testing.T, serverOpts, clientOpts Options) (client, server *Conn) {
	t.Helper()
	a, b := Pipe()
	server, client = NewConn(a, serverOpts), NewConn(b, clientOpts)
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	go func() { errs <- server.Run(ctx) }()
	go func() { errs <- client.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-errs
		<-errs
	})
	return client, server
}

func TestCallOverPipe(t *testing.T) {
	t.Parallel()
	c, _ := clientPipe(t, Options{Mux: testMux(t)}, Options{})
	var got struct{ N int }
	if err := c.Call(t.Context(), "echo", map[string]int{"n": 4}, &got); err != nil || got.N != 4 {
		t.Fatalf("echo = %d, %v", got.N, err)
	}
	if err := c.Call(t.Context(), "echo", map[string]any{"n": "x"}, nil); err == nil {
		t.Fatal("want an error for a bad param type")
	}
}

func TestServerCallsClient(t *testing.T) {
	t.Parallel()
	// Both sides may serve: a nil-Mux client answers -32601.
	_, s := clientPipe(t, Options{}, Options{})
	var ce *CallError
	if err := s.Call(t.Context(), "anything", nil, nil); !errors.As(err, &ce) || ce.Code != -32601 {
		t.Fatalf("Call = %v, want -32601", err)
	}
}

func TestCallContextCancelled(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	m := NewMux()
	m.Handle("block", func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	c, _ := clientPipe(t, Options{Mux: m}, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	errs := make(chan error, 1)
	go func() { errs <- c.Call(ctx, "block", nil, nil) }()
	<-started
	cancel()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("Call = %v, want context.Canceled", err)
	}
}

func TestCloseFailsPendingCall(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	m := NewMux()
	m.Handle("block", func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	c, _ := clientPipe(t, Options{Mux: m}, Options{})
	errs := make(chan error, 1)
	go func() { errs <- c.Call(context.Background(), "block", nil, nil) }()
	<-started
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errs; !errors.Is(err, ErrClosed) {
		t.Fatalf("Call = %v, want ErrClosed", err)
	}
	if err := c.Call(t.Context(), "block", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Call after Close = %v, want ErrClosed", err)
	}
	if err := c.Notify(t.Context(), "event", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Notify after Close = %v, want ErrClosed", err)
	}
}

func TestRunEnds(t *testing.T) {
	t.Parallel()
	a, b := Pipe()
	c := NewConn(a, Options{})
	// Notify works before Run (the server's gateway.ready).
	got := make(chan []byte, 1)
	go func() {
		msg, _ := b.Read(context.Background())
		got <- msg
	}()
	if err := c.Notify(t.Context(), "event", map[string]string{"type": "gateway.ready"}); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, <-got, `{"jsonrpc":"2.0","method":"event","params":{"type":"gateway.ready"}}`)

	ctx, cancel := context.WithCancel(t.Context())
	errs := make(chan error, 1)
	go func() { errs <- c.Run(ctx) }()
	cancel()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel = %v", err)
	}
	if err := c.Run(t.Context()); err == nil {
		t.Fatal("second Run: want an error")
	}
	// The peer sees the end of the stream.
	if _, err := b.Read(t.Context()); err == nil {
		t.Fatal("peer Read after Run ended: want EOF")
	}
}

func TestPeerCloseEndsRunCleanly(t *testing.T) {
	t.Parallel()
	a, b := Pipe()
	c := NewConn(a, Options{})
	errs := make(chan error, 1)
	go func() { errs <- c.Run(t.Context()) }()
	_ = b.Close()
	if err := <-errs; err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
}
