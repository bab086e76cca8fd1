package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// MCP approval settings (mcp_servers.NAME.approval).
const (
	MCPApprovalAsk   = "ask"   // every call asks (the default); "always" remembers server+tool
	MCPApprovalNever = "never" // calls run without asking
)

// MCPServer is one entry of mcp_servers: a stdio server (Command) or a
// streamable HTTP server (URL), never both. Secrets are never literals here:
// EnvVars and BearerTokenEnv name variables resolved from the process
// environment, then .env, when the server starts; literal Env and Headers
// values that look like keys are refused.
type MCPServer struct {
	Command string            `yaml:"command"`
	Args    []string          `yaml:"args"`
	Env     map[string]string `yaml:"env"`      // literal, non-secret values
	EnvVars []string          `yaml:"env_vars"` // names passed from the environment / .env
	Cwd     string            `yaml:"cwd"`      // absolute or ~/…; writable for the server

	URL            string            `yaml:"url" want:"an http or https URL"`
	Headers        map[string]string `yaml:"headers"` // literal, non-secret values
	BearerTokenEnv string            `yaml:"bearer_token_env" want:"an environment variable name"`

	EnabledTools  []string `yaml:"enabled_tools"`  // empty = every tool
	DisabledTools []string `yaml:"disabled_tools"` // removed after EnabledTools
	// StartupTimeout bounds start + initialize + tools/list; 0 = 30s.
	StartupTimeout Duration `yaml:"startup_timeout"`
	// ToolTimeout bounds one call (then notifications/cancelled); 0 = 120s.
	ToolTimeout Duration `yaml:"tool_timeout"`
	Approval    string   `yaml:"approval" want:"ask or never"` // "" = ask
	// Network of a stdio server's sandbox: "" = sandbox.network, on, off.
	Network string `yaml:"network" want:"on or off"`
}

// MCP holds the daemon-wide MCP settings.
type MCP struct {
	// IdleTimeout stops a server no session has used for this long; 0 = 10m.
	IdleTimeout Duration `yaml:"idle_timeout"`
}

// DefaultMCPIdleTimeout is mcp.idle_timeout's default (the per-server
// timeouts' defaults are package mcp's).
const DefaultMCPIdleTimeout = 10 * time.Minute

// mcpNameRE: a server name becomes part of tool names mcp__<server>__<tool>
// (OpenAI function names are [A-Za-z0-9_-]{1,64}); "__" would make the
// name ambiguous.
var mcpNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

// ValidMCPServerName reports whether name may name an MCP server.
func ValidMCPServerName(name string) bool {
	return mcpNameRE.MatchString(name) && !strings.Contains(name, "__") && !strings.HasSuffix(name, "_")
}

// secretHeaders may not be literals: they carry credentials.
var secretHeaders = []string{"authorization", "proxy-authorization", "cookie", "x-api-key", "api-key"}

func (c Config) validateMCP() error {
	if c.MCP.IdleTimeout < 0 {
		return fmt.Errorf("mcp.idle_timeout: want a non-negative duration")
	}
	for _, name := range slices.Sorted(maps.Keys(c.MCPServers)) {
		if !ValidMCPServerName(name) {
			return fmt.Errorf("mcp_servers.%s: want a name of letters, digits, - and _ (at most 32, no \"__\")", name)
		}
		if err := c.MCPServers[name].validate("mcp_servers."+name, c.Model.AllowInsecureHTTP); err != nil {
			return err
		}
	}
	return nil
}

func (s MCPServer) validate(path string, insecureOK bool) error {
	switch {
	case (s.Command == "") == (s.URL == ""):
		return fmt.Errorf("%s: want exactly one of command (stdio) or url (streamable HTTP)", path)
	case s.URL != "" && !validURL(s.URL, false):
		return fmt.Errorf("%s.url: want an http or https URL", path)
	case s.URL != "" && !insecureOK && insecureHTTP(s.URL):
		return fmt.Errorf("%s.url: want %s", path, insecureWants)
	case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0 || len(s.EnvVars) > 0 || s.Cwd != "" || s.Network != ""):
		return fmt.Errorf("%s: args, env, env_vars, cwd and network are for stdio servers (command)", path)
	case s.Command != "" && (len(s.Headers) > 0 || s.BearerTokenEnv != ""):
		return fmt.Errorf("%s: headers and bearer_token_env are for HTTP servers (url)", path)
	case s.Cwd != "" && !absPaths([]string{s.Cwd}):
		return fmt.Errorf("%s.cwd: want an absolute path (or ~/…)", path)
	case s.StartupTimeout < 0 || s.ToolTimeout < 0:
		return fmt.Errorf("%s: want non-negative startup_timeout and tool_timeout", path)
	case s.Approval != "" && s.Approval != MCPApprovalAsk && s.Approval != MCPApprovalNever:
		return fmt.Errorf("%s.approval: want ask or never", path)
	case s.Network != "" && s.Network != "on" && s.Network != "off":
		return fmt.Errorf("%s.network: want on or off", path)
	}
	if err := checkEnvName(path+".bearer_token_env", s.BearerTokenEnv); err != nil {
		return err
	}
	for _, n := range s.EnvVars {
		if n == "" || checkEnvName(path+".env_vars", n) != nil {
			return checkEnvName(path+".env_vars", cmpOr(n, "-"))
		}
	}
	if err := literalValues(path+".env", s.Env, false); err != nil {
		return err
	}
	return literalValues(path+".headers", s.Headers, true)
}

// literalValues refuses key-shaped literals (and credential headers): a
// secret belongs in the environment or .env, named by env_vars or
// bearer_token_env.
func literalValues(path string, m map[string]string, headers bool) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !headers && !envNameRE.MatchString(k) {
			return fmt.Errorf("%s.%s: want an environment variable name", path, k)
		}
		if headers && slices.Contains(secretHeaders, strings.ToLower(k)) {
			return fmt.Errorf("%s.%s: credentials are never literals in config.yaml; "+
				"use bearer_token_env and put the token in $HERMES_HOME/.env", path, k)
		}
		// A secret-named key with a real value (MAX_TOKENS: 100 is fine).
		if looksLikeKey(m[k]) || (secretKeyRE.MatchString(k) && len(m[k]) >= 8) {
			return fmt.Errorf("%s.%s: looks like a secret; secrets are never literals in config.yaml: "+
				"name the variable in env_vars (or bearer_token_env) and put it in $HERMES_HOME/.env", path, k)
		}
	}
	return nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// ExpandMCPCwd expands a ~/… cwd against home; "" stays "".
func ExpandMCPCwd(cwd, home string) string {
	switch {
	case cwd == "~":
		return home
	case strings.HasPrefix(cwd, "~/"):
		return filepath.Join(home, cwd[2:])
	}
	return cwd
}
