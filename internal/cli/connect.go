package cli

import (
	"context"
	"errors"
	"net/url"
	"os"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/control"
)

// connect mints a native ticket over the control socket and opens an
// authenticated WebSocket; autostart starts the daemon when none runs.
func connect(ctx context.Context, home string, autostart bool) (*client.Client, error) {
	id, err := ensureGateway(ctx, home, autostart)
	if err != nil {
		return nil, err
	}
	opts, err := credential(ctx, home, id)
	if err != nil {
		return nil, err
	}
	c, err := client.Dial(ctx, id.APIOrigin, opts)
	if err != nil {
		return nil, failf(exitUnavailable, "cannot connect to %s: %v", id.APIOrigin, err)
	}
	return c, nil
}

// ensureGateway identifies the running gateway; autostart starts the daemon when
// none answers. Without a gateway the error exits 3.
func ensureGateway(ctx context.Context, home string, autostart bool) (control.Identity, error) {
	id, err := identify(ctx, home)
	if err != nil && autostart && errors.Is(err, control.ErrUnavailable) {
		id, err = startDaemon(ctx, home)
	}
	if err != nil {
		var x *exitError
		if errors.As(err, &x) {
			return id, err
		}
		return id, failf(exitUnavailable, "no gateway is running on %s; start it with `hermes gateway start`", home)
	}
	return id, nil
}

// internalEnv carries the dashboard's per-process internal credential into
// the terminal panes it spawns (SPEC §4); nothing else sets it.
const internalEnv = "HERMES_GATEWAY_INTERNAL"

// credential is how this process authenticates its upgrade: a terminal pane
// of the dashboard presents the internal credential it was handed; anything
// else mints a single-use native ticket over the control socket.
func credential(ctx context.Context, home string, id control.Identity) (client.Options, error) {
	if c := os.Getenv(internalEnv); c != "" {
		return client.Options{Query: url.Values{"internal": {c}}}, nil
	}
	var t control.TicketResult
	params := control.TicketParams{ProfileID: id.ProfileID, InstanceID: id.InstanceID, Purpose: auth.PurposeInteractive}
	if err := control.Call(ctx, socketPath(home), control.VerbSessionTicket, params, &t); err != nil {
		return client.Options{}, failf(exitUnavailable, "the gateway refused a ticket: %v", err)
	}
	return client.Options{Ticket: t.Ticket}, nil
}
