package gatewaytest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// NewHome makes a fresh profile home (mode 0700) in a new temporary
// directory and writes cfg as its config.yaml (nothing is written when cfg
// is empty). The directory is short (a unix socket path must fit in 108
// bytes, which t.TempDir's test-named paths may not) and removed in
// t.Cleanup. Daemon output files go next to the home.
func NewHome(t testing.TB, cfg string) string {
	t.Helper()
	base, err := os.MkdirTemp("", "hgw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	home := filepath.Join(base, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if cfg != "" {
		WriteFile(t, filepath.Join(home, "config.yaml"), cfg)
	}
	return home
}

// WriteFile writes data to path (0600), failing t on error.
func WriteFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Config renders a config.yaml for tests. The zero value plus ModelURL is a
// usable profile: model "test-model", no API key, streaming off, manual
// approvals without a timeout.
type Config struct {
	ModelURL        string   // base_url of the fake model (modeltest.Server.URL)
	Model           string   // model.default; "" = "test-model"
	APIKeyEnv       string   // model.api_key_env; "" = none (no Authorization header)
	Streaming       bool     // streaming.enabled
	ApprovalMode    string   // approvals.mode; "" = manual
	ApprovalTimeout string   // approvals.timeout, e.g. "2s"; "" = 0 (wait for an answer)
	CLIToolsets     []string // platform_toolsets.cli; nil = the default
	Allowlist       []string // command_allowlist
	DefaultCwd      string   // agent.default_cwd
	MaxTurns        int      // agent.max_turns; 0 = the default
	NoCompression   bool     // compression.enabled: false
	// Titles is titles.auto. Off by default here (the product's default is
	// on): tests count and script model requests, and an automatic title is
	// one more after a session's first completed turn.
	Titles bool
	Extra  string // raw YAML appended at the end (top-level keys)
}

// YAML renders c.
func (c Config) YAML() string {
	var b strings.Builder
	model := c.Model
	if model == "" {
		model = "test-model"
	}
	fmt.Fprintf(&b, "model:\n  default: %s\n  provider: custom\n  base_url: %s\n  api_key_env: %s\n",
		q(model), q(c.ModelURL), q(c.APIKeyEnv))
	fmt.Fprintf(&b, "streaming: {enabled: %t}\n", c.Streaming)
	mode := c.ApprovalMode
	if mode == "" {
		mode = "manual"
	}
	timeout := c.ApprovalTimeout
	if timeout == "" {
		timeout = "0"
	}
	fmt.Fprintf(&b, "approvals: {mode: %s, timeout: %s}\n", q(mode), q(timeout))
	b.WriteString(c.agentYAML())
	if c.CLIToolsets != nil {
		fmt.Fprintf(&b, "platform_toolsets:\n  cli: %s\n", list(c.CLIToolsets))
	}
	fmt.Fprintf(&b, "command_allowlist: %s\n", list(c.Allowlist))
	if c.NoCompression {
		b.WriteString("compression: {enabled: false}\n")
	}
	fmt.Fprintf(&b, "titles: {auto: %t}\n", c.Titles)
	b.WriteString(c.Extra)
	return b.String()
}

func (c Config) agentYAML() string {
	var parts []string
	if c.DefaultCwd != "" {
		parts = append(parts, "default_cwd: "+q(c.DefaultCwd))
	}
	if c.MaxTurns > 0 {
		parts = append(parts, "max_turns: "+strconv.Itoa(c.MaxTurns))
	}
	if len(parts) == 0 {
		return ""
	}
	return "agent: {" + strings.Join(parts, ", ") + "}\n"
}

// q quotes s as a YAML (JSON-compatible) double-quoted scalar. Durations
// are written as strings ("2s"), which config.Duration accepts; "0" too.
func q(s string) string { return strconv.Quote(s) }

func list(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = q(s)
	}
	return "[" + strings.Join(out, ", ") + "]"
}
