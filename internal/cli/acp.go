package cli

import (
	"context"

	"github.com/hermes-gateway/hermes/internal/acp"
	"github.com/hermes-gateway/hermes/internal/client"
)

// acpCmd is `hermes acp`: an Agent Client Protocol agent on stdin/stdout
// (editors launch it). The first gateway connection may start the daemon
// unless --no-autostart; stdout carries only protocol messages.
func acpCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags("acp", e)
	noAutostart := fs.Bool("no-autostart", false, "fail instead of starting the daemon")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("acp takes no arguments")
	}
	dial := func(ctx context.Context) (*client.Client, error) {
		return connect(ctx, e.home, !*noAutostart)
	}
	if err := acp.Serve(ctx, acp.Options{Dial: dial, Version: Version}, e.io.In, e.io.Out); err != nil {
		return failf(exitRuntime, "acp: %v", err)
	}
	return nil
}
