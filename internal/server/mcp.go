package server

import (
	"context"
	"encoding/json"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func init() { register(protocol.MethodMCPStatus, mcpStatus) }

// mcpStatus is mcp.status {}: the MCP servers with state and tool counts,
// as runtime.describe lists them. Like runtime.describe it needs only an
// authenticated connection and starts nothing.
func mcpStatus(_ context.Context, c *conn, params json.RawMessage) (any, error) {
	if _, err := decode[empty](params); err != nil {
		return nil, err
	}
	if c.p.Caps == 0 {
		return nil, protocol.Errorf(protocol.ReasonPermissionDenied, "no capabilities")
	}
	return protocol.MCPStatusResult{Servers: nonNilStatus(c.s.mcpServers())}, nil
}

// mcpServers is the MCP servers' status; nil when the daemon wired none.
func (s *Server) mcpServers() []protocol.MCPServerStatus {
	if s.cfg.MCP == nil {
		return nil
	}
	return s.cfg.MCP()
}

func nonNilStatus(s []protocol.MCPServerStatus) []protocol.MCPServerStatus {
	if s == nil {
		return []protocol.MCPServerStatus{}
	}
	return s
}
