package server

import (
	"context"
	"encoding/json"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

type empty struct{}

func init() {
	register(protocol.MethodPing, ping)
	register(protocol.MethodRuntimeDescribe, describe)
}

func ping(_ context.Context, c *conn, params json.RawMessage) (any, error) {
	if _, err := decode[empty](params); err != nil {
		return nil, err
	}
	if c.p.Caps == 0 {
		return nil, protocol.Errorf(protocol.ReasonPermissionDenied, "no capabilities")
	}
	return protocol.PingResult{Pong: true}, nil
}

func describe(_ context.Context, c *conn, params json.RawMessage) (any, error) {
	if _, err := decode[empty](params); err != nil {
		return nil, err
	}
	if c.p.Caps == 0 {
		return nil, protocol.Errorf(protocol.ReasonPermissionDenied, "no capabilities")
	}
	d := c.s.cfg.Authority.Describe()
	d.Sandbox = c.s.sandboxInfo()
	d.MCPServers = c.s.mcpServers()
	return d, nil
}

// sandboxInfo is runtime.describe's sandbox: what the launcher of the
// profile's sandbox.mode enforces on this machine, and the profile's
// default network. nil when the daemon wired no sandbox (Config.Sandbox).
func (s *Server) sandboxInfo() *protocol.SandboxInfo {
	if s.cfg.Sandbox == nil {
		return nil
	}
	st := s.cfg.Sandbox()
	network := "on"
	if !s.cfg.Authority.SandboxNetwork() {
		network = "off"
	}
	return &protocol.SandboxInfo{Mode: string(st.Mode), Level: string(st.Level), LandlockABI: st.LandlockABI, Network: network}
}
