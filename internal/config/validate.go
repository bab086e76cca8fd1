package config

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Validate checks the values Load cannot check by type. Each error names its
// key path and what is wanted.
func (c Config) Validate() error {
	checks := []struct {
		ok          bool
		path, wants string
	}{
		{strings.TrimSpace(c.Model.Default) != "", "model.default", "a non-empty model name"},
		{c.Model.ContextWindow > 0, "model.context_window", "a positive integer"},
		{c.Agent.MaxTurns > 0, "agent.max_turns", "a positive integer"},
		{c.Agent.ClarifyTimeout >= 0, "agent.clarify_timeout", "a non-negative duration"},
		{slices.Contains([]string{ApprovalsManual, ApprovalsOff}, c.Approvals.Mode), "approvals.mode", "manual or off"},
		{c.Approvals.Timeout >= 0, "approvals.timeout", "a non-negative duration"},
		{c.Compression.Threshold > 0 && c.Compression.Threshold <= 1, "compression.threshold", "a number in (0, 1]"},
		{c.Compression.ProtectFirstN >= 0, "compression.protect_first_n", "a non-negative integer"},
		{c.Compression.ProtectLastN >= 0, "compression.protect_last_n", "a non-negative integer"},
		{validListen(c.Gateway.Listen), "gateway.listen", "host:port with a port in 0..65535"},
		{c.Gateway.ShutdownTimeout >= 0, "gateway.shutdown_timeout", "a non-negative duration"},
		{c.Gateway.MaxFrameBytes >= 1024, "gateway.max_frame_bytes", "an integer of at least 1024"},
		{c.Gateway.MaxConnections > 0, "gateway.max_connections", "a positive integer"},
		{c.Gateway.ViewerBufferBytes >= 64<<10, "gateway.viewer_buffer_bytes", "an integer of at least 65536"},
		{c.Gateway.WriteTimeout > 0, "gateway.write_timeout", "a positive duration"},
		{slices.Contains([]string{SandboxAuto, SandboxStrict, SandboxOff}, c.Sandbox.Mode), "sandbox.mode", "auto, strict or off"},
		{c.Sandbox.Network == "on" || c.Sandbox.Network == "off", "sandbox.network", "on or off"},
		{absPaths(c.Sandbox.WritableRoots), "sandbox.writable_roots", "absolute paths (or ~/…)"},
		{absPaths(c.Sandbox.HiddenPaths), "sandbox.hidden_paths", "absolute paths (or ~/…)"},
		{c.Checkpoints.MaxFileBytes > 0, "checkpoints.max_file_bytes", "a positive integer"},
		{c.Checkpoints.KeepDays > 0, "checkpoints.keep_days", "a positive integer"},
		{c.Checkpoints.MaxBytes > 0, "checkpoints.max_bytes", "a positive integer"},
		{validURL(c.Model.BaseURL, false), "model.base_url", "an http or https URL"},
		{c.Model.AllowInsecureHTTP || !insecureHTTP(c.Model.BaseURL), "model.base_url", insecureWants},
		{validURL(c.Dashboard.PublicURL, true), "dashboard.public_url", "an http or https URL"},
	}
	for _, ch := range checks {
		if !ch.ok {
			return fmt.Errorf("%s: want %s", ch.path, ch.wants)
		}
	}
	if err := c.validateMCP(); err != nil {
		return err
	}
	if err := c.validateOperability(); err != nil {
		return err
	}
	return c.validateEnvNames()
}

func (c Config) validateEnvNames() error {
	if err := checkEnvName("model.api_key_env", c.Model.APIKeyEnv); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(c.Providers)) {
		p := c.Providers[name]
		if !validURL(p.BaseURL, false) {
			return fmt.Errorf("providers.%s.base_url: want an http or https URL", name)
		}
		if !c.Model.AllowInsecureHTTP && insecureHTTP(p.BaseURL) {
			return fmt.Errorf("providers.%s.base_url: want %s", name, insecureWants)
		}
		if err := checkEnvName("providers."+name+".api_key_env", p.APIKeyEnv); err != nil {
			return err
		}
	}
	return checkEnvName("dashboard.oidc.client_secret_env", c.Dashboard.OIDC.ClientSecretEnv)
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkEnvName accepts "" (no key) or a variable name. A value that looks
// like a literal key is refused with advice, without echoing it.
func checkEnvName(path, v string) error {
	if v == "" || (envNameRE.MatchString(v) && !looksLikeKey(v)) {
		return nil
	}
	return fmt.Errorf("%s: want the NAME of an environment variable (e.g. OPENAI_API_KEY), "+
		"not a key; put the key itself in $HERMES_HOME/.env as NAME=key", path)
}

// looksLikeKey: a known key prefix, or a long run of key characters with
// several digits and few separators (model names and URLs do not qualify).
func looksLikeKey(v string) bool {
	if strings.ContainsAny(v, " \t\n") {
		return false
	}
	for _, p := range []string{"sk-", "sk_", "pk-", "ghp_", "gho_", "github_pat_", "xoxb-", "xoxp-", "AKIA"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	if len(v) < 32 || !keyCharsRE.MatchString(v) {
		return false
	}
	digits := 0
	for _, r := range v {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	return digits >= 4 && strings.Count(v, "-")+strings.Count(v, "_") <= 3
}

var keyCharsRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func validListen(s string) bool {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 0 && n <= 65535
}

// validURL: an absolute http(s) URL with a host, no userinfo.
func validURL(s string, emptyOK bool) bool {
	if s == "" {
		return emptyOK
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

// absPaths: every entry is absolute, ~ or ~/…, or starts with $XDG_RUNTIME_DIR.
func absPaths(ps []string) bool {
	for _, p := range ps {
		ok := strings.HasPrefix(p, "/") || p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "$XDG_RUNTIME_DIR")
		if !ok || strings.ContainsRune(p, 0) {
			return false
		}
	}
	return true
}

// insecureWants names the plain-http rule of base URLs.
const insecureWants = "https, or http:// only to a loopback host (127.0.0.0/8, ::1, localhost) " +
	"unless model.allow_insecure_http: true"

// insecureHTTP: a plain http:// URL to a host that is not loopback (the
// same rule as session's insecureHTTP, which config may not import).
func insecureHTTP(s string) bool {
	u, err := url.Parse(s)
	if err != nil || !strings.EqualFold(u.Scheme, "http") {
		return false
	}
	h := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if h == "localhost" || h == "localhost.localdomain" {
		return false
	}
	ip := net.ParseIP(h)
	return ip == nil || !ip.IsLoopback()
}
