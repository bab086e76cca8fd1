package gatewaytest

import (
	"context"
	"fmt"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/control"
)

// Ticket mints a native interactive ticket over the control socket.
func (d *Daemon) Ticket(ctx context.Context) (string, error) {
	id := d.Identity()
	var res control.TicketResult
	err := control.Call(ctx, d.Socket(), "session-ticket", control.TicketParams{
		ProfileID: id.ProfileID, InstanceID: id.InstanceID, Purpose: "interactive",
	}, &res)
	if err != nil {
		return "", fmt.Errorf("session-ticket: %w", err)
	}
	return res.Ticket, nil
}

// Dial mints a ticket and opens a WebSocket connection. Unlike Connect it
// does not touch t, so it may run on any goroutine; the caller closes the
// client.
func (d *Daemon) Dial(ctx context.Context) (*client.Client, error) {
	ticket, err := d.Ticket(ctx)
	if err != nil {
		return nil, err
	}
	return client.Dial(ctx, d.Identity().APIOrigin, client.Options{Ticket: ticket})
}

// Connect is Dial that fails t on error and closes the client in
// t.Cleanup. Drain its Events (Record does) or it is cut off after
// client.DefaultEventBuffer events.
func (d *Daemon) Connect(ctx context.Context) *client.Client {
	d.t.Helper()
	c, err := d.Dial(ctx)
	if err != nil {
		d.t.Fatalf("gatewaytest: connect: %v", err)
	}
	d.t.Cleanup(func() { _ = c.Close() })
	return c
}

// View is Connect plus Record: a viewer whose events are recorded.
func (d *Daemon) View(ctx context.Context) *Recorder {
	d.t.Helper()
	return Record(d.Connect(ctx))
}
