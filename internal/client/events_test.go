package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync/atomic"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

// Calls from several goroutines while the server sends events before and
// after each reply: every reply reaches its caller and every event arrives,
// in the server's order.
func TestCallsAndEventsInterleaved(t *testing.T) {
	t.Parallel()
	const callers, callsEach, eventsPerCall = 4, 10, 3
	const total = callers * callsEach * eventsPerCall
	g := startGateway(t, &fakeGateway{handlers: submitHandlers(eventsPerCall)})
	c := dial(t, g, Options{})
	ctx := testCtx(t)

	var eg errgroup.Group
	for i := range callers {
		eg.Go(func() error { return submitMany(ctx, c, i, callsEach) })
	}
	var got []int64
	for len(got) < total {
		ev, err := c.AwaitEvent(ctx, func(protocol.Event) bool { return true })
		if err != nil {
			t.Fatalf("after %d events: %v", len(got), err)
		}
		got = append(got, ev.Seq)
	}
	if err := eg.Wait(); err != nil {
		t.Fatal(err)
	}
	for i, s := range got {
		if s != int64(i+1) {
			t.Fatalf("event %d has seq %d: arrival order lost", i, s)
		}
	}

	_, err := c.SessionInfo(ctx, "local-x")
	var ce *rpc.CallError
	if !errors.As(err, &ce) || ce.Code != protocol.CodeDomain || ce.Reason != protocol.ReasonNotFound {
		t.Fatalf("SessionInfo = %v, want *rpc.CallError not_found", err)
	}
	err = c.Ping(ctx)
	if !errors.As(err, &ce) || ce.Code != protocol.CodeUnknownMethod {
		t.Fatalf("Ping on a server without ping = %v, want -32601", err)
	}
}

// submitHandlers answer prompt.submit after sending n events (seq counts up
// across calls) and session.info with not_found.
func submitHandlers(n int) map[string]func(*rpc.Conn, json.RawMessage) (any, error) {
	var seq atomic.Int64
	return map[string]func(*rpc.Conn, json.RawMessage) (any, error){
		protocol.MethodPromptSubmit: func(conn *rpc.Conn, raw json.RawMessage) (any, error) {
			var p protocol.PromptSubmitParams
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, err
			}
			for range n {
				sendEvent(conn, protocol.EventMessageStart, seq.Add(1))
			}
			return protocol.Receipt{AdmissionID: *p.SubmissionID, Status: protocol.StatusQueued}, nil
		},
		protocol.MethodSessionInfo: func(*rpc.Conn, json.RawMessage) (any, error) {
			return nil, protocol.Errorf(protocol.ReasonNotFound, "no such session")
		},
	}
}

func submitMany(ctx context.Context, c *Client, caller, n int) error {
	for k := range n {
		id := string(rune('a'+caller)) + string(rune('0'+k))
		r, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: "local-1", SubmissionID: &id, Text: "hi"})
		if err != nil {
			return err
		}
		if r.AdmissionID != id {
			return errors.New("receipt for " + r.AdmissionID + ", want " + id)
		}
	}
	return nil
}

// A consumer that falls behind is told so: the buffered events are still
// delivered, then Events closes and Err is ErrEventOverflow. Nothing is
// dropped silently and the read loop never blocked.
func TestEventOverflowClosesWithError(t *testing.T) {
	t.Parallel()
	g := startGateway(t, &fakeGateway{handlers: map[string]func(*rpc.Conn, json.RawMessage) (any, error){
		"test.flood": func(conn *rpc.Conn, _ json.RawMessage) (any, error) {
			for i := range 5 {
				sendEvent(conn, protocol.EventMessageStart, int64(i+1))
			}
			return struct{}{}, nil
		},
	}})
	c := dial(t, g, Options{EventBuffer: 2})
	err := c.Call(testCtx(t), "test.flood", struct{}{}, nil)
	if !errors.Is(err, rpc.ErrClosed) || !errors.Is(err, ErrEventOverflow) {
		t.Fatalf("Call during overflow = %v, want rpc.ErrClosed wrapping ErrEventOverflow", err)
	}
	var seqs []int64
	for ev := range c.Events() {
		seqs = append(seqs, ev.Seq)
	}
	if len(seqs) != 2 || seqs[0] != 1 || seqs[1] != 2 {
		t.Fatalf("delivered %v, want the 2 buffered events [1 2]", seqs)
	}
	if !errors.Is(c.Err(), ErrEventOverflow) {
		t.Fatalf("Err = %v, want ErrEventOverflow", c.Err())
	}
	_, err = c.AwaitEvent(testCtx(t), func(protocol.Event) bool { return true })
	if !errors.Is(err, ErrEventOverflow) {
		t.Fatalf("AwaitEvent after overflow = %v, want ErrEventOverflow", err)
	}
}

func TestCloseJoinsAndEndsEvents(t *testing.T) {
	t.Parallel()
	g := startGateway(t, &fakeGateway{handlers: pingHandler})
	c, err := Dial(testCtx(t), g.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Ping(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	<-c.Done() // Close has joined the read loop
	if _, ok := <-c.Events(); ok {
		t.Fatal("Events still open after Close")
	}
	if err := c.Err(); err != nil {
		t.Fatalf("Err after Close = %v, want nil", err)
	}
	if err := c.Ping(testCtx(t)); !errors.Is(err, rpc.ErrClosed) {
		t.Fatalf("Ping after Close = %v, want rpc.ErrClosed", err)
	}
	_ = c.Close() // idempotent
}

func TestPeerCloseEndsAwait(t *testing.T) {
	t.Parallel()
	g := startGateway(t, &fakeGateway{hello: func(conn *rpc.Conn) {
		sendEvent(conn, protocol.EventGatewayReady, 0)
		sendEvent(conn, protocol.EventSessionUnknown, 1)
		_ = conn.Close()
	}})
	c := dial(t, g, Options{})
	ctx := testCtx(t)
	ev, err := c.AwaitEvent(ctx, func(ev protocol.Event) bool { return ev.Type == protocol.EventSessionUnknown })
	if err != nil || ev.Seq != 1 {
		t.Fatalf("AwaitEvent = %+v, %v", ev, err)
	}
	_, err = c.AwaitEvent(ctx, func(protocol.Event) bool { return true })
	if !errors.Is(err, io.EOF) {
		t.Fatalf("AwaitEvent after a clean close = %v, want io.EOF", err)
	}
}
