package cli

import (
	"context"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/tui"
)

// runTUI is `hermes chat` without -q/-z: the terminal UI on a new session
// (source tui) or on --resume ID. The first connection may start the
// daemon; reconnects never do (they wait for a gateway to come back).
func runTUI(ctx context.Context, e *env, o chatOptions) error {
	if !isTerminal(e.io.In) {
		return usagef("chat: the terminal UI needs a terminal; use -q TEXT or -z TEXT for one-shot prompts")
	}
	params, err := o.createParams("tui")
	if err != nil {
		return err
	}
	c, err := connect(ctx, e.home, !o.noAutostart)
	if err != nil {
		return err
	}
	opts := tui.Options{
		Client: c,
		Dial: func(ctx context.Context) (*client.Client, error) {
			return connect(ctx, e.home, false)
		},
		Resume:  o.resume,
		Create:  params,
		Sandbox: sandboxInfo(ctx, c),
	}
	if err := tui.Run(ctx, opts, e.io.In, e.io.Out); err != nil {
		return failf(exitRuntime, "chat: %v", err)
	}
	return nil
}

// sandboxInfo is the gateway's sandbox for the header; nil when describe
// fails (the header then shows none, and the session goes on).
func sandboxInfo(ctx context.Context, c *client.Client) *protocol.SandboxInfo {
	d, err := c.Describe(ctx)
	if err != nil {
		return nil
	}
	return d.Sandbox
}
