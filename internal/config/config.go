// Package config reads a profile's config.yaml and .env (docs/protocol.md#config-keys): defaults,
// strict-enough decoding with errors that name the key path, validation, the
// live command_allowlist and its one write path (AppendAllowlist), and the
// redacted snapshot frozen into a session's policy.
//
// It imports nothing internal and must never import the packages that use a
// setting (authority, tools, sandbox, server): the daemon and the doctor
// read the files, and everything else receives plain values.
//
// Unknown keys are ignored (and kept by AppendAllowlist); a key that is
// absent or null keeps its default. Secrets never live in config.yaml: keys
// are named by *_env variables and resolved from the process environment or
// .env into a Secret, whose String and LogValue redact.
package config

import "time"

// Config is the effective configuration of one profile (docs/protocol.md#config-keys). The yaml
// tags are the config.yaml keys; a "want" tag is the error text for a bad
// value of that key.
type Config struct {
	Model            ModelConfig          `yaml:"model"`
	Providers        map[string]Provider  `yaml:"providers"`
	Streaming        Streaming            `yaml:"streaming"`
	Agent            Agent                `yaml:"agent"`
	PlatformToolsets map[string][]string  `yaml:"platform_toolsets"`
	Approvals        Approvals            `yaml:"approvals"`
	CommandAllowlist []string             `yaml:"command_allowlist"`
	Compression      Compression          `yaml:"compression"`
	Gateway          Gateway              `yaml:"gateway"`
	Dashboard        Dashboard            `yaml:"dashboard"`
	Sandbox          Sandbox              `yaml:"sandbox"`
	Terminal         Terminal             `yaml:"terminal"`
	Checkpoints      Checkpoints          `yaml:"checkpoints"`
	MCPServers       map[string]MCPServer `yaml:"mcp_servers"` // name → server (issue 13)
	MCP              MCP                  `yaml:"mcp"`
	Metrics          Metrics              `yaml:"metrics"`
	Logging          Logging              `yaml:"logging"`
	Pricing          map[string]Price     `yaml:"pricing"` // model name → price (issue 14)
	Titles           Titles               `yaml:"titles"`
}

// ModelConfig is the default model endpoint.
type ModelConfig struct {
	Default       string `yaml:"default" want:"a non-empty model name"`
	Provider      string `yaml:"provider"` // a name; "custom" = BaseURL
	BaseURL       string `yaml:"base_url" want:"an http or https URL"`
	APIKeyEnv     string `yaml:"api_key_env" want:"an environment variable name"` // "" = no key
	ContextWindow int    `yaml:"context_window" want:"a positive integer"`        // tokens
	// AllowInsecureHTTP accepts http:// base URLs of non-loopback hosts
	// (profile, providers and session.create); off, only loopback may be
	// plain http.
	AllowInsecureHTTP bool `yaml:"allow_insecure_http"`
}

// Provider is a named endpoint that session.create {provider} may select.
type Provider struct {
	BaseURL   string `yaml:"base_url" want:"an http or https URL"`
	APIKeyEnv string `yaml:"api_key_env" want:"an environment variable name"`
}

// Streaming selects streamed model responses.
type Streaming struct {
	Enabled bool `yaml:"enabled"`
}

// Agent holds turn defaults.
type Agent struct {
	MaxTurns         int      `yaml:"max_turns" want:"a positive integer"`
	ReasoningEffort  string   `yaml:"reasoning_effort"`
	DisabledToolsets []string `yaml:"disabled_toolsets"`
	ClarifyTimeout   Duration `yaml:"clarify_timeout"` // 0 = wait until answered
	DefaultCwd       string   `yaml:"default_cwd"`     // "" = the user's home
}

// Approval modes.
const (
	ApprovalsManual = "manual"
	ApprovalsOff    = "off" // yolo for every session; never the default
)

// Approvals configures command consent.
type Approvals struct {
	Mode    string   `yaml:"mode" want:"manual or off"`
	Timeout Duration `yaml:"timeout"` // 0 = wait until answered
}

// Compression configures transcript compression.
type Compression struct {
	Enabled       bool    `yaml:"enabled"`
	Threshold     float64 `yaml:"threshold" want:"a number in (0, 1]"` // share of the context window
	ProtectFirstN int     `yaml:"protect_first_n" want:"a non-negative integer"`
	ProtectLastN  int     `yaml:"protect_last_n" want:"a non-negative integer"`
}

// Gateway configures the listener.
type Gateway struct {
	Listen          string   `yaml:"listen" want:"host:port"`
	ShutdownTimeout Duration `yaml:"shutdown_timeout"`
	MaxFrameBytes   int64    `yaml:"max_frame_bytes" want:"an integer of at least 1024"`
	// MaxConnections caps concurrent HTTP/WebSocket connections; one more
	// is refused (HTTP 503) until one closes.
	MaxConnections int `yaml:"max_connections" want:"a positive integer"`
	// ViewerBufferBytes bounds one viewer's backlog of undelivered events;
	// past it the viewer is cut off with session.replay_gap.
	ViewerBufferBytes int64 `yaml:"viewer_buffer_bytes" want:"an integer of at least 65536"`
	// WriteTimeout closes a connection whose WebSocket write blocks longer.
	WriteTimeout Duration `yaml:"write_timeout"`
}

// Sandbox modes (docs/security.md).
const (
	SandboxAuto   = "auto"   // namespaces + Landlock + seccomp, else Landlock + seccomp
	SandboxStrict = "strict" // the full sandbox or no tool runs
	SandboxOff    = "off"    // explicit only: tools run bare
)

// Sandbox configures the OS boundary under every process a tool starts.
type Sandbox struct {
	Mode          string   `yaml:"mode" want:"auto, strict or off"`
	Network       string   `yaml:"network" want:"on or off"` // off = loopback only
	WritableRoots []string `yaml:"writable_roots"`           // absolute; besides the cwd and a private temp dir
	// HiddenPaths replace the default list of credential paths hidden from
	// tools (~ is the user's home). The profile home is always hidden.
	HiddenPaths []string `yaml:"hidden_paths"`
}

// Terminal configures the terminal tool.
type Terminal struct {
	// EnvPassthrough names variables (or NAME_* prefixes ending in '*')
	// added to the tool environment's allow-list.
	EnvPassthrough []string `yaml:"env_passthrough"`
}

// Checkpoints configures the snapshots taken before an agent's first
// change of each turn (issue 11).
type Checkpoints struct {
	// Enabled is the default of session.create checkpoints for new sessions.
	Enabled bool `yaml:"enabled"`
	// MaxFileBytes: larger files are skipped (and listed), never snapshotted.
	MaxFileBytes int64 `yaml:"max_file_bytes" want:"a positive integer"`
	// KeepDays: checkpoints older than this are pruned.
	KeepDays int `yaml:"keep_days" want:"a positive integer"`
	// MaxBytes bounds the disk the shadow repositories take; the oldest
	// checkpoints are pruned first.
	MaxBytes int64 `yaml:"max_bytes" want:"a positive integer"`
}

// Dashboard configures the web dashboard; a PublicURL means gated mode.
type Dashboard struct {
	PublicURL   string `yaml:"public_url" want:"an http or https URL"`
	OIDC        OIDC   `yaml:"oidc"`
	LegacyToken bool   `yaml:"legacy_token"`
}

// OIDC configures dashboard login in gated mode. Empty allow-lists allow
// nobody.
type OIDC struct {
	Issuer          string   `yaml:"issuer"`
	ClientID        string   `yaml:"client_id"`
	ClientSecretEnv string   `yaml:"client_secret_env" want:"an environment variable name"`
	AllowedSubjects []string `yaml:"allowed_subjects"`
	AllowedEmails   []string `yaml:"allowed_emails"`
}

// Defaults returns the configuration of an empty config.yaml (docs/protocol.md#config-keys).
// Every call returns fresh maps and slices.
func Defaults() Config {
	return Config{
		Model: ModelConfig{
			Default:       "gpt-4.1-mini",
			Provider:      "custom",
			BaseURL:       "http://127.0.0.1:11434/v1",
			APIKeyEnv:     "OPENAI_API_KEY",
			ContextWindow: 128000,
		},
		Providers: map[string]Provider{},
		Streaming: Streaming{Enabled: true},
		Agent:     Agent{MaxTurns: 90, DisabledToolsets: []string{}},
		PlatformToolsets: map[string][]string{
			"cli": {"terminal", "file", "clarify", "todo"},
			"acp": {"terminal", "file", "clarify"},
		},
		Approvals:        Approvals{Mode: ApprovalsManual},
		CommandAllowlist: []string{},
		Compression:      Compression{Enabled: true, Threshold: 0.8, ProtectFirstN: 3, ProtectLastN: 6},
		Gateway: Gateway{
			Listen:            "127.0.0.1:0",
			ShutdownTimeout:   Duration(10 * time.Second),
			MaxFrameBytes:     1 << 20,
			MaxConnections:    256,
			ViewerBufferBytes: 4 << 20,
			WriteTimeout:      Duration(10 * time.Second),
		},
		Dashboard: Dashboard{OIDC: OIDC{AllowedSubjects: []string{}, AllowedEmails: []string{}}},
		Sandbox:   Sandbox{Mode: SandboxAuto, Network: "on", WritableRoots: []string{}, HiddenPaths: DefaultHiddenPaths()},
		Terminal:  Terminal{EnvPassthrough: []string{}},
		Checkpoints: Checkpoints{
			MaxFileBytes: 10 << 20, KeepDays: 7, MaxBytes: 2 << 30,
		},
		MCPServers: map[string]MCPServer{},
		MCP:        MCP{IdleTimeout: Duration(DefaultMCPIdleTimeout)},
		Logging:    Logging{MaxMB: 10, Keep: 3},
		Pricing:    map[string]Price{},
		Titles:     Titles{Auto: true},
	}
}

// DefaultHiddenPaths is the default sandbox.hidden_paths: where credentials
// of other tools live (~ is the user's home, $XDG_RUNTIME_DIR its runtime
// directory, which holds the session bus, agent sockets and the like).
func DefaultHiddenPaths() []string {
	return []string{
		"~/.ssh", "~/.gnupg", "~/.aws", "~/.config/gcloud", "~/.kube", "~/.docker/config.json",
		"~/.netrc", "~/.git-credentials", "~/.config/gh", "~/.config/chromium",
		"~/.config/google-chrome", "~/.mozilla", "~/.password-store", "~/.local/share/keyrings",
		"$XDG_RUNTIME_DIR", "/run/docker.sock", "/var/run/docker.sock",
	}
}
