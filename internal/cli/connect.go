package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"

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

// internalFDEnv names the descriptor on which a terminal pane of the
// dashboard hands its `hermes chat` the pane's internal credential (docs/protocol.md#gates;
// dashboard.InternalFDEnv). The variable holds a descriptor number, never
// the credential: the environment of a process is readable from /proc by
// any process of the same uid.
const internalFDEnv = "HERMES_GATEWAY_INTERNAL_FD"

// paneCredential reads the pane credential once per process; reconnects
// re-present the same value.
var paneCredential = sync.OnceValues(readPaneCredential)

// readPaneCredential reads the credential from the descriptor internalFDEnv
// names, up to end of file, and closes it. Once the credential is in this
// process's memory, the process is made non-dumpable (keepSecret), so no
// same-uid process can read it back from /proc/<pid>/mem. "" without the
// variable.
func readPaneCredential() (string, error) {
	v := os.Getenv(internalFDEnv)
	if v == "" {
		return "", nil
	}
	_ = os.Unsetenv(internalFDEnv)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return "", fmt.Errorf("%s=%q is not an inherited descriptor", internalFDEnv, v)
	}
	f := os.NewFile(uintptr(fd), "pane-credential")
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4<<10))
	if err != nil {
		return "", fmt.Errorf("read the pane credential from descriptor %d: %w", fd, err)
	}
	keepSecret()
	return strings.TrimSpace(string(b)), nil
}

// credential is how this process authenticates its upgrade: a terminal pane
// of the dashboard presents the credential it was handed; anything else
// mints a single-use native ticket over the control socket.
func credential(ctx context.Context, home string, id control.Identity) (client.Options, error) {
	c, err := paneCredential()
	if err != nil {
		return client.Options{}, failf(exitUnavailable, "%v", err)
	}
	if c != "" {
		return client.Options{Query: url.Values{"internal": {c}}}, nil
	}
	var t control.TicketResult
	params := control.TicketParams{ProfileID: id.ProfileID, InstanceID: id.InstanceID, Purpose: auth.PurposeInteractive}
	if err := control.Call(ctx, socketPath(home), control.VerbSessionTicket, params, &t); err != nil {
		return client.Options{}, failf(exitUnavailable, "the gateway refused a ticket: %v", err)
	}
	return client.Options{Ticket: t.Ticket}, nil
}
