package protocol

// MethodMCPStatus is mcp.status {}: the MCP servers of the profile and the
// running editor servers, as runtime.describe's mcp_servers (issue 13).
const MethodMCPStatus = "mcp.status"

// MCP server states.
const (
	MCPStateStarting = "starting" // launched, not yet initialized and listed
	MCPStateReady    = "ready"    // initialized; its tools are listed
	MCPStateFailed   = "failed"   // it did not start or it died; Error says why; restarted with backoff while in use
	MCPStateStopped  = "stopped"  // not running: never used yet, idle, or the gateway is stopping
)

// MCPServerStatus is one MCP server as mcp.status and runtime.describe
// report it. It never carries a command line, an environment, a URL or a
// header: names, states and counts only.
type MCPServerStatus struct {
	Name      string `json:"name"`
	Source    string `json:"source"`    // "config" (config.yaml) or "editor" (an ACP editor's)
	Transport string `json:"transport"` // "stdio", "http" or "sse"
	State     string `json:"state"`     // MCPState*
	Error     string `json:"error,omitempty"`
	Tools     int    `json:"tools"`    // tools offered to the model (after enabled/disabled_tools)
	Sessions  int    `json:"sessions"` // sessions that used it since it started
	Restarts  int    `json:"restarts"` // starts after a crash since the daemon started
}

// MCPStatusResult: mcp.status.
type MCPStatusResult struct {
	Servers []MCPServerStatus `json:"servers"`
}
