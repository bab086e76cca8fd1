package cli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/control"
)

// dashboardCommand mints a dashboard-login ticket over the control socket and
// prints <api_origin>/auth/link?ticket=<t>: a one-time link (single use,
// 30 s) that opens a dashboard session in the browser that follows it. It
// opens a browser when $BROWSER names one or a display is available.
func dashboardCommand(e *env) *cobra.Command {
	var noOpen, noAutostart bool
	c := e.leaf(&cobra.Command{
		Use:   "dashboard",
		Short: "print a one-time login link to the dashboard and open a browser",
		Long: "dashboard prints <origin>/auth/link?ticket=…: a link that works once, within 30 seconds,\n" +
			"and opens a dashboard session in the browser that follows it. It opens $BROWSER, or the\n" +
			"platform's opener when a display is available.",
		Args: noArgs,
	}, func(ctx context.Context, _ []string) error { return dashboardRun(ctx, e, noOpen, noAutostart) })
	c.Flags().BoolVar(&noOpen, "no-open", false, "only print the link; do not open a browser")
	c.Flags().BoolVar(&noAutostart, "no-autostart", false, "do not start the gateway when none is running")
	return c
}

func dashboardRun(ctx context.Context, e *env, noOpen, noAutostart bool) error {
	id, err := ensureGateway(ctx, e.home, !noAutostart)
	if err != nil {
		return err
	}
	var t control.TicketResult
	params := control.TicketParams{ProfileID: id.ProfileID, InstanceID: id.InstanceID, Purpose: auth.PurposeDashboardLogin}
	if err := control.Call(ctx, socketPath(e.home), control.VerbSessionTicket, params, &t); err != nil {
		return failf(exitUnavailable, "the gateway refused a dashboard ticket: %v", err)
	}
	link := id.APIOrigin + "/auth/link?ticket=" + url.QueryEscape(t.Ticket)
	fmt.Fprintln(e.io.Out, link)
	if !noOpen {
		if name, ok := openBrowser(link); ok {
			fmt.Fprintf(e.io.Err, "opened in %s (the link works once, within 30 seconds)\n", name)
		} else {
			fmt.Fprintln(e.io.Err, "open the link above in a browser on this machine within 30 seconds (it works once)")
		}
	}
	return nil
}

// openBrowser starts a browser on link without waiting for it: the first
// command of $BROWSER (a colon-separated list; "%s" is replaced by the
// link), else the platform opener when a display is available.
func openBrowser(link string) (string, bool) {
	for _, c := range browserCommands() {
		argv := strings.Fields(c)
		if len(argv) == 0 {
			continue
		}
		if !strings.Contains(c, "%s") {
			argv = append(argv, link)
		} else {
			for i := range argv {
				argv[i] = strings.ReplaceAll(argv[i], "%s", link)
			}
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		if cmd.Start() == nil {
			_ = cmd.Process.Release()
			return argv[0], true
		}
	}
	return "", false
}

func browserCommands() []string {
	if b := os.Getenv("BROWSER"); b != "" {
		return strings.Split(b, ":")
	}
	switch {
	case runtime.GOOS == "darwin":
		return []string{"open"}
	case os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "":
		return []string{"xdg-open"}
	}
	return nil
}
