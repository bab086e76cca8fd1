package client

import (
	"context"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// MCPStatus is mcp.status: the profile's MCP servers with their state and
// tool counts (`hermes mcp list`).
func (c *Client) MCPStatus(ctx context.Context) (protocol.MCPStatusResult, error) {
	return call[protocol.MCPStatusResult](ctx, c, protocol.MethodMCPStatus, struct{}{})
}
