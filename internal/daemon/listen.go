package daemon

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/config"
	"github.com/hermes-gateway/hermes/internal/control"
	"github.com/hermes-gateway/hermes/internal/gate"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/server"
)

// loadConfig reads config.yaml and .env once: into d.cfg, with
// HERMES_LISTEN applied, and into the live settings, which re-parse only
// when a file changes. The log file takes its limits from it.
func (d *daemon) loadConfig() error {
	stamp := fileStamp(d.home) // before reading: an edit during the read is read again
	cfg, err := config.Load(d.home)
	if err != nil {
		return exitf(ExitRuntime, "%v (fix %s or move it away)", err, filepath.Join(d.home, "config.yaml"))
	}
	// HERMES_LISTEN wins over gateway.listen (validated like it), so the
	// loopback check in listenAPI sees the address really used. The live
	// settings keep the file's config.
	listenCfg := cfg
	override := func(key string) string {
		if key == "HERMES_LISTEN" {
			return d.opts.Listen
		}
		return ""
	}
	if err := listenCfg.ApplyEnv(override); err != nil {
		return exitf(ExitRuntime, "%v (give an address like 127.0.0.1:8787)", err)
	}
	env, err := config.LoadEnv(d.home)
	if err != nil {
		return exitf(ExitRuntime, "%v", err)
	}
	d.cfg = listenCfg
	d.settings = newSettingsSource(d.home, d.log, stamp, cfg, env)
	d.logw.SetLimits(int64(d.cfg.Logging.MaxMB)<<20, d.cfg.Logging.Keep)
	return nil
}

// listen opens the metrics listener, then the API listener and the control
// socket (listenAPI); a failure leaves nothing open. They start serving in
// serve.
func (d *daemon) listen() error {
	if err := d.listenMetrics(); err != nil {
		return err
	}
	if err := d.listenAPI(); err != nil {
		if d.metricsLn != nil {
			_ = d.metricsLn.Close()
		}
		return err
	}
	return nil
}

// listenAPI opens the TCP listener and the control socket, with the server
// that answers on the first.
func (d *daemon) listenAPI() error {
	addr := d.cfg.Gateway.Listen
	if !d.cfg.ListenIsLoopback() && !d.cfg.Gated() {
		return exitf(ExitRuntime, "listen address %s is not loopback; set dashboard.public_url (gated mode) or listen on 127.0.0.1", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return exitf(ExitRuntime, "cannot listen on %s: %v (choose another address with HERMES_LISTEN or gateway.listen)", addr, err)
	}
	d.ln = ln
	token, err := d.legacyToken()
	if err != nil {
		return err
	}
	dash, err := d.dashboard()
	if err != nil {
		_ = ln.Close()
		return err
	}
	d.srv = server.New(server.Config{
		Authority: d.auth, Tickets: d.tickets, Logger: d.log,
		MaxFrameBytes: d.cfg.Gateway.MaxFrameBytes, LegacyToken: token,
		Gated: d.cfg.Gated(), PublicOrigin: gate.PublicOrigin(d.cfg.Dashboard.PublicURL),
		MaxConnections: d.cfg.Gateway.MaxConnections, WriteTimeout: d.cfg.Gateway.WriteTimeout.Std(),
		Dashboard: dash, Sandbox: d.sandboxStatus, MCP: d.mcpStatus,
	})
	d.dash = dash
	ctl, err := control.Listen(filepath.Join(d.home, "gateway.sock"), d, control.Options{Logger: d.log, IsToolProcess: d.procs.IsToolProcess})
	if err != nil {
		_ = ln.Close()
		return exitf(ExitRuntime, "cannot open the control socket: %v", err)
	}
	d.ctl = ctl
	return nil
}

// legacyToken returns the ?token= secret when the legacy path is enabled,
// creating dashboard.token (0600) once.
func (d *daemon) legacyToken() (string, error) {
	if !d.cfg.Dashboard.LegacyToken || d.cfg.Gated() {
		return "", nil
	}
	path := filepath.Join(d.home, "dashboard.token")
	if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b)), nil
	}
	tok, err := auth.NewSecretToken()
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", exitf(ExitRuntime, "cannot write %s: %v", path, err)
	}
	return tok, nil
}

// Identify answers the control socket's identify verb.
func (d *daemon) Identify() control.Identity {
	state, _ := d.state.Load().(string)
	box := d.sandboxStatus()
	return control.Identity{
		State: state, PID: os.Getpid(), InstanceID: d.instanceID, AuthorityEpoch: d.epoch,
		ProfileID: d.profileID, APIOrigin: d.apiOrigin(), Capabilities: protocol.RuntimeCapabilities,
		SandboxMode: string(box.Mode), SandboxLevel: string(box.Level), LandlockABI: box.LandlockABI,
	}
}

// Status answers the control socket's status verb.
func (d *daemon) Status(ctx context.Context) (control.Status, error) {
	c, err := d.auth.Counts(ctx)
	if err != nil {
		return control.Status{}, err
	}
	return control.Status{
		Identity: d.Identify(), SessionsLive: c.SessionsLive,
		AdmissionsQueued: c.Queued, AdmissionsRunning: c.Running, AdmissionsUnknown: c.Unknown,
	}, nil
}

// MintTicket answers session-ticket (the control server has checked the peer).
func (d *daemon) MintTicket(peer auth.Peer, subject, profileID, instanceID, purpose string) (string, error) {
	return d.tickets.MintFor(peer, subject, profileID, instanceID, purpose)
}
