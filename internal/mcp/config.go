package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"
)

// Transports.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http" // streamable HTTP
	TransportSSE   = "sse"
)

// Config is one server's configuration as a session froze it. It holds no
// secret values of config.yaml: EnvVars and BearerTokenEnv are names that
// Options.Secret resolves at each start.
type Config struct {
	Name      string            `json:"name"`
	Source    string            `json:"source"` // "config" or "editor"
	Transport string            `json:"transport"`
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	EnvVars   []string          `json:"env_vars,omitempty"`
	Cwd       string            `json:"cwd,omitempty"` // absolute; "" = the server's private directory

	URL            string            `json:"url,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	BearerTokenEnv string            `json:"bearer_token_env,omitempty"`

	EnabledTools   []string      `json:"enabled_tools,omitempty"`
	DisabledTools  []string      `json:"disabled_tools,omitempty"`
	StartupTimeout time.Duration `json:"startup_timeout"` // 0 = DefaultStartupTimeout
	ToolTimeout    time.Duration `json:"tool_timeout"`    // 0 = DefaultToolTimeout
	Ask            bool          `json:"ask"`             // approval: ask
	Network        bool          `json:"network"`         // a stdio server's sandbox network
}

// Defaults of zero durations.
const (
	DefaultStartupTimeout = 30 * time.Second
	DefaultToolTimeout    = 120 * time.Second
	DefaultIdleTimeout    = 10 * time.Minute
)

// Key identifies the running server of c: the hash of the whole
// configuration, so a changed configuration is another server.
func (c Config) Key() string {
	b, _ := json.Marshal(c) // plain data: cannot fail; map keys are sorted
	sum := sha256.Sum256(b)
	return c.Name + "-" + hex.EncodeToString(sum[:8])
}

func (c Config) startupTimeout() time.Duration {
	if c.StartupTimeout > 0 {
		return c.StartupTimeout
	}
	return DefaultStartupTimeout
}

func (c Config) toolTimeout() time.Duration {
	if c.ToolTimeout > 0 {
		return c.ToolTimeout
	}
	return DefaultToolTimeout
}

// offers reports whether the tool passes enabled_tools and disabled_tools.
func (c Config) offers(tool string) bool {
	if len(c.EnabledTools) > 0 && !slices.Contains(c.EnabledTools, tool) {
		return false
	}
	return !slices.Contains(c.DisabledTools, tool)
}
