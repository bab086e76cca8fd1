package cli

import (
	"context"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/tui"
)

// runTUI is `hermes chat` without -q/-z: the terminal UI on a new session
// (source tui), on --resume ID or on the newest session of the cwd
// (--continue). The first connection may start the
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
	if o.resume, err = o.target(ctx, c, *params.Cwd); err != nil {
		_ = c.Close()
		return err
	}
	sandbox, mcp := headerInfo(ctx, c)
	opts := tui.Options{
		Client: c,
		Dial: func(ctx context.Context) (*client.Client, error) {
			return connect(ctx, e.home, false)
		},
		Resume:     o.resume,
		Create:     params,
		Sandbox:    sandbox,
		MCPServers: mcp,
	}
	if err := tui.Run(ctx, opts, e.io.In, e.io.Out); err != nil {
		return failf(exitRuntime, "chat: %v", err)
	}
	return nil
}

// target is the session the terminal UI attaches to: --continue's, the
// one --resume names (a unique prefix resolved), or "" for a new one.
func (o chatOptions) target(ctx context.Context, c *client.Client, cwd string) (string, error) {
	switch {
	case o.cont:
		return latestSessionIn(ctx, c, cwd)
	case o.resume != "":
		return resolveSessionID(ctx, c, o.resume)
	}
	return "", nil
}

// headerInfo is the gateway's sandbox and MCP servers for the header; nil
// when describe fails (the header then shows none, and the session goes on).
func headerInfo(ctx context.Context, c *client.Client) (*protocol.SandboxInfo, []protocol.MCPServerStatus) {
	d, err := c.Describe(ctx)
	if err != nil {
		return nil, nil
	}
	return d.Sandbox, d.MCPServers
}
