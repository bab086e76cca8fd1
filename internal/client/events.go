package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// onNotify runs on the rpc read loop, in arrival order; it never blocks.
// The first frame must be gateway.ready; later events go to c.events.
func (c *Client) onNotify(method string, params json.RawMessage) {
	if method != protocol.MethodEvent {
		return // not an event: nothing a consumer subscribed to
	}
	var ev protocol.Event
	if err := json.Unmarshal(params, &ev); err != nil {
		c.fail(fmt.Errorf("client: malformed event: %w", err))
		return
	}
	if !c.gotReady {
		if ev.Type != protocol.EventGatewayReady {
			c.fail(fmt.Errorf("%w: first event is %q", ErrNotReady, ev.Type))
			return
		}
		c.gotReady = true
		close(c.ready)
		return
	}
	if c.Err() != nil {
		return // failing: the connection is being torn down
	}
	select {
	case c.events <- ev:
	default:
		c.fail(ErrEventOverflow)
	}
}

// fail records err and drops the connection at once (no close handshake:
// we are on the read loop, which the handshake would need). Run then
// returns and Events is closed after the events already buffered.
func (c *Client) fail(err error) {
	c.setErr(err)
	_ = c.ws.CloseNow()
}

// AwaitEvent reads Events until match returns true and returns that event.
// Events that do not match are consumed and discarded by this call, so use
// it only where the caller owns the stream (tests, one-shot CLI paths). It
// fails with ctx's error, or when the connection ends (wrapping Err, or
// io.EOF after a clean end).
func (c *Client) AwaitEvent(ctx context.Context, match func(protocol.Event) bool) (protocol.Event, error) {
	for {
		select {
		case ev, ok := <-c.events:
			if !ok {
				cause := c.Err()
				if cause == nil {
					cause = io.EOF
				}
				return protocol.Event{}, fmt.Errorf("client: connection ended while awaiting an event: %w", cause)
			}
			if match(ev) {
				return ev, nil
			}
		case <-ctx.Done():
			return protocol.Event{}, ctx.Err()
		}
	}
}
