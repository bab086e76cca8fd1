package cli

import (
	"context"
	"errors"
	"os"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/control"
)

// connect mints a native ticket over the control socket and opens an
// authenticated WebSocket; autostart starts the daemon when none runs.
func connect(ctx context.Context, home string, autostart bool) (*client.Client, control.Identity, error) {
	id, err := identify(ctx, home)
	if err != nil && autostart && errors.Is(err, control.ErrUnavailable) {
		id, err = startDaemon(ctx, home)
	}
	if err != nil {
		var x *exitError
		if errors.As(err, &x) {
			return nil, id, err
		}
		return nil, id, failf(exitUnavailable, "no gateway is running on %s; start it with `hermes gateway start`", home)
	}
	var t control.TicketResult
	params := control.TicketParams{ProfileID: id.ProfileID, InstanceID: id.InstanceID, Purpose: auth.PurposeInteractive}
	if err := control.Call(ctx, socketPath(home), "session-ticket", params, &t); err != nil {
		return nil, id, failf(exitUnavailable, "the gateway refused a ticket: %v", err)
	}
	c, err := client.Dial(ctx, id.APIOrigin, client.Options{Ticket: t.Ticket})
	if err != nil {
		return nil, id, failf(exitUnavailable, "cannot connect to %s: %v", id.APIOrigin, err)
	}
	return c, id, nil
}

var _ = os.Getenv
