package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/hermes-gateway/hermes/internal/acp"
	"github.com/hermes-gateway/hermes/internal/client"
)

// acpCommand is `hermes acp`: an Agent Client Protocol agent on stdin/stdout
// (editors launch it). The first gateway connection may start the daemon
// unless --no-autostart; stdout carries only protocol messages.
func acpCommand(e *env) *cobra.Command {
	var noAutostart bool
	c := e.leaf(&cobra.Command{
		Use:   "acp",
		Short: "an Agent Client Protocol agent on stdin/stdout (for editors such as Zed)",
		Long: "acp speaks the Agent Client Protocol on stdin/stdout; every ACP session is a gateway\n" +
			"session with source acp. stdout carries only protocol messages.",
		Args: noArgs,
	}, func(ctx context.Context, _ []string) error { return acpRun(ctx, e, noAutostart) })
	c.Flags().BoolVar(&noAutostart, "no-autostart", false, "fail instead of starting the daemon")
	return c
}

func acpRun(ctx context.Context, e *env, noAutostart bool) error {
	dial := func(ctx context.Context) (*client.Client, error) {
		return connect(ctx, e.home, !noAutostart)
	}
	if err := acp.Serve(ctx, acp.Options{Dial: dial, Version: Version}, e.io.In, e.io.Out); err != nil {
		return failf(exitRuntime, "acp: %v", err)
	}
	return nil
}
