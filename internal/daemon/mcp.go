package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/hermes-gateway/hermes/internal/config"
	"github.com/hermes-gateway/hermes/internal/mcp"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/sandbox"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// openMCP makes the MCP manager (issue 13): servers run under the profile's
// sandbox mode, are tracked like tool processes (tool-groups), and stop
// after mcp.idle_timeout. The configured servers are listed as stopped
// until their first use.
func (d *daemon) openMCP() {
	d.mcp = mcp.New(mcp.Options{
		Command: d.mcpCommand, Secret: d.mcpSecret, Processes: d.procs,
		IdleTimeout: time.Duration(d.cfg.MCP.IdleTimeout), Logger: d.log,
	})
	var declared []mcp.Config
	for _, s := range mcpDefaults(d.cfg) {
		declared = append(declared, d.mcpConfig(s, ""))
	}
	d.mcp.Declare(declared)
}

// mcpTools is authority.Config.MCPTools: the tools of the session's frozen
// servers, each started on first use.
func (d *daemon) mcpTools(ctx context.Context, sid string, pol session.Policy) []tools.Tool {
	cfgs := make([]mcp.Config, 0, len(pol.MCP))
	for _, s := range pol.MCP {
		cfgs = append(cfgs, d.mcpConfig(s, pol.Cwd))
	}
	return tools.NewMCPTools(d.mcp, d.mcp.Tools(ctx, sid, cfgs))
}

// mcpStatus is server.Config.MCP (mcp.status, runtime.describe).
func (d *daemon) mcpStatus() []protocol.MCPServerStatus { return d.mcp.Status() }

// mcpDefaults are config.yaml's mcp_servers as session.Defaults freezes
// them, sorted by name.
func mcpDefaults(cfg config.Config) []session.MCPServer {
	out := make([]session.MCPServer, 0, len(cfg.MCPServers))
	home, _ := os.UserHomeDir()
	for _, name := range slices.Sorted(maps.Keys(cfg.MCPServers)) {
		c := cfg.MCPServers[name]
		s := session.MCPServer{
			Name: name, Source: session.MCPSourceConfig, Transport: session.MCPTransportStdio,
			Command: c.Command, Args: c.Args, Env: c.Env, EnvVars: c.EnvVars, Cwd: config.ExpandMCPCwd(c.Cwd, home),
			URL: c.URL, Headers: c.Headers, BearerTokenEnv: c.BearerTokenEnv,
			EnabledTools: c.EnabledTools, DisabledTools: c.DisabledTools,
			StartupTimeoutMS: time.Duration(c.StartupTimeout).Milliseconds(), ToolTimeoutMS: time.Duration(c.ToolTimeout).Milliseconds(),
			Approval: c.Approval, Network: c.Network,
		}
		if c.URL != "" {
			s.Transport = session.MCPTransportHTTP
		}
		if s.Approval == "" {
			s.Approval = config.MCPApprovalAsk
		}
		out = append(out, s)
	}
	return out
}

// mcpConfig is the manager's configuration of a frozen server. An editor's
// stdio server without a cwd runs in the session's cwd.
func (d *daemon) mcpConfig(s session.MCPServer, sessionCwd string) mcp.Config {
	c := mcp.Config{
		Name: s.Name, Source: s.Source, Transport: s.Transport, Command: s.Command, Args: s.Args,
		Env: s.Env, EnvVars: s.EnvVars, Cwd: s.Cwd, URL: s.URL, Headers: s.Headers, BearerTokenEnv: s.BearerTokenEnv,
		EnabledTools: s.EnabledTools, DisabledTools: s.DisabledTools,
		StartupTimeout: time.Duration(s.StartupTimeoutMS) * time.Millisecond,
		ToolTimeout:    time.Duration(s.ToolTimeoutMS) * time.Millisecond,
		Ask:            s.Approval != config.MCPApprovalNever,
		Network:        d.cfg.Sandbox.Network != "off",
	}
	switch s.Network {
	case "on":
		c.Network = true
	case "off":
		c.Network = false
	}
	if c.Cwd == "" && s.Source == session.MCPSourceEditor && s.Transport == session.MCPTransportStdio {
		c.Cwd = sessionCwd
	}
	return c
}

// mcpCommand builds a stdio server's command under the profile's sandbox:
// writable are its cwd and a private temp directory (its cwd when none is
// configured); the profile home and sandbox.hidden_paths are hidden; the
// environment is the tool allow-list plus its env, its env_vars (from the
// environment or .env) and the tool marker; it leads its own process group.
func (d *daemon) mcpCommand(ctx context.Context, c mcp.Config) (*exec.Cmd, error) {
	tmp, err := mcpTempDir(c.Key())
	if err != nil {
		return nil, fmt.Errorf("no private directory for the server: %w", err)
	}
	cwd := c.Cwd
	if cwd == "" {
		cwd = tmp
	}
	home, _ := os.UserHomeDir()
	hidden := append([]string{d.home}, sandbox.ExpandPaths(d.cfg.Sandbox.HiddenPaths, home)...)
	if real, err := filepath.EvalSymlinks(d.home); err == nil && real != d.home {
		hidden = append(hidden, real)
	}
	p := sandbox.Policy{Cwd: cwd, HiddenPaths: hidden, Home: home, TempDir: tmp, Network: c.Network}
	env := tools.ToolEnviron(os.Environ(), d.cfg.Terminal.EnvPassthrough)
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		env = append(env, k+"="+c.Env[k])
	}
	for _, k := range c.EnvVars {
		if v := d.mcpSecret(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	env = append(env, tools.ToolProcessMarker)
	la := d.sandboxes.For(sandbox.Mode(d.cfg.Sandbox.Mode))
	return la.Command(ctx, p, env, append([]string{c.Command}, c.Args...)...)
}

// mcpSecret resolves a variable: the process environment, then .env.
func (d *daemon) mcpSecret(name string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	env, err := config.LoadEnv(d.home)
	if err != nil {
		return ""
	}
	return env[name]
}

// mcpTempDir is a server's private directory:
// os.TempDir()/hermes-<uid>/mcp-<hash of its key>, 0700 and ours.
func mcpTempDir(key string) (string, error) {
	parent := filepath.Join(os.TempDir(), "hermes-"+strconv.Itoa(os.Getuid()))
	sum := sha256.Sum256([]byte(key))
	dir := filepath.Join(parent, "mcp-"+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	for _, p := range []string{parent, dir} {
		fi, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() {
			return "", fmt.Errorf("%s is not a directory of ours", p)
		}
		if fi.Mode().Perm() != 0o700 {
			if err := os.Chmod(p, 0o700); err != nil {
				return "", err
			}
		}
	}
	return dir, nil
}
