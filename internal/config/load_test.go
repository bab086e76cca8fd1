package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestLoadDefaults(t *testing.T) {
	t.Parallel()
	for name, home := range map[string]string{
		"missing":       t.TempDir(),
		"empty":         writeConfig(t, ""),
		"comments only": writeConfig(t, "# nothing here\n"),
		"null document": writeConfig(t, "~\n"),
		"null sections": writeConfig(t, "model:\nproviders:\nstreaming:\nagent:\nplatform_toolsets:\napprovals:\ncommand_allowlist:\ncompression:\ngateway:\ndashboard:\n  oidc:\n"),
		"null values":   writeConfig(t, "agent: {max_turns: null}\nplatform_toolsets: {cli: null}\ngateway: {shutdown_timeout: ~}\n"),
		"unknown keys":  writeConfig(t, "telemetry: {x: 1}\nmodel: {flavour: vanilla}\nagent: {personality: kind}\n"),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := Load(home)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(Defaults(), got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

func TestDefaultsMatchSpec(t *testing.T) {
	t.Parallel()
	d := Defaults()
	checks := map[string][2]any{
		"model.default":        {d.Model.Default, "gpt-4.1-mini"},
		"model.provider":       {d.Model.Provider, "custom"},
		"model.base_url":       {d.Model.BaseURL, "http://127.0.0.1:11434/v1"},
		"model.api_key_env":    {d.Model.APIKeyEnv, "OPENAI_API_KEY"},
		"model.context_window": {d.Model.ContextWindow, 128000},
		"streaming.enabled":    {d.Streaming.Enabled, true},
		"agent.max_turns":      {d.Agent.MaxTurns, 90},
		"approvals.mode":       {d.Approvals.Mode, "manual"},
		"approvals.timeout":    {d.Approvals.Timeout.Std(), time.Duration(0)},
		"compression":          {d.Compression, Compression{Enabled: true, Threshold: 0.8, ProtectFirstN: 3, ProtectLastN: 6}},
		"gateway.listen":       {d.Gateway.Listen, "127.0.0.1:0"},
		"gateway.shutdown":     {d.Gateway.ShutdownTimeout.Std(), 10 * time.Second},
		"gateway.max_frame":    {d.Gateway.MaxFrameBytes, int64(1048576)},
		"cli toolsets":         {d.PlatformToolsets["cli"], []string{"terminal", "file", "clarify", "todo"}},
		"acp toolsets":         {d.PlatformToolsets["acp"], []string{"terminal", "file", "clarify"}},
		"gated":                {d.Gated(), false},
		"loopback":             {d.ListenIsLoopback(), true},
	}
	for name, c := range checks {
		if d := cmp.Diff(c[1], c[0]); d != "" {
			t.Errorf("%s (-want +got)\n%s", name, d)
		}
	}
	if err := d.Validate(); err != nil {
		t.Errorf("Defaults invalid: %v", err)
	}
}

func TestLoadOverrides(t *testing.T) {
	t.Parallel()
	home := writeConfig(t, `# my config
model:
  default: llama3   # local
  base_url: https://openrouter.ai/api/v1
  api_key_env: OPENROUTER_API_KEY
providers:
  openrouter: {base_url: "https://openrouter.ai/api/v1", api_key_env: OPENROUTER_API_KEY}
streaming: {enabled: false}
agent: {max_turns: 5, clarify_timeout: 1m, disabled_toolsets: [todo]}
platform_toolsets: {cli: [terminal]}
approvals: {mode: off, timeout: 30}  # YAML 1.2: unquoted off is a string
command_allowlist: ["git status"]
compression: {threshold: 0.5}
gateway: {listen: "0.0.0.0:8080", shutdown_timeout: 2.5, max_frame_bytes: 2048}
dashboard: {public_url: "https://h.example.com", oidc: {client_secret_env: OIDC_SECRET, allowed_emails: [a@b.c]}}
`)
	got, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	want.Model.Default, want.Model.BaseURL, want.Model.APIKeyEnv = "llama3", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"
	want.Providers = map[string]Provider{"openrouter": {BaseURL: "https://openrouter.ai/api/v1", APIKeyEnv: "OPENROUTER_API_KEY"}}
	want.Streaming.Enabled = false
	want.Agent = Agent{MaxTurns: 5, ClarifyTimeout: Duration(time.Minute), DisabledToolsets: []string{"todo"}}
	want.PlatformToolsets["cli"] = []string{"terminal"} // acp keeps its default
	want.Approvals = Approvals{Mode: ApprovalsOff, Timeout: Duration(30 * time.Second)}
	want.CommandAllowlist = []string{"git status"}
	want.Compression.Threshold = 0.5
	want.Gateway.Listen, want.Gateway.ShutdownTimeout, want.Gateway.MaxFrameBytes = "0.0.0.0:8080", Duration(2500*time.Millisecond), 2048
	want.Dashboard.PublicURL = "https://h.example.com"
	want.Dashboard.OIDC.ClientSecretEnv = "OIDC_SECRET"
	want.Dashboard.OIDC.AllowedEmails = []string{"a@b.c"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
	if got.ListenIsLoopback() || !got.Gated() {
		t.Errorf("loopback=%v gated=%v", got.ListenIsLoopback(), got.Gated())
	}
}

func TestLoadErrorsNameTheKey(t *testing.T) {
	t.Parallel()
	keyAdvice := "want the NAME of an environment variable (e.g. OPENAI_API_KEY), not a key; put the key itself in $HERMES_HOME/.env as NAME=key"
	tests := []struct{ name, body, want string }{
		{"max_turns zero", "agent: {max_turns: 0}", "config.yaml: agent.max_turns: want a positive integer"},
		{"max_turns string", "agent: {max_turns: lots}", "config.yaml: agent.max_turns: want a positive integer"},
		{"max_turns float", "agent: {max_turns: 1.5}", "config.yaml: agent.max_turns: want a positive integer"},
		{"context window", "model: {context_window: -1}", "config.yaml: model.context_window: want a positive integer"},
		{"empty model", `model: {default: ""}`, "config.yaml: model.default: want a non-empty model name"},
		{"base_url", "model: {base_url: ftp://x}", "config.yaml: model.base_url: want an http or https URL"},
		{"approvals mode", "approvals: {mode: yolo}", "config.yaml: approvals.mode: want manual or off"},
		{"approvals timeout", "approvals: {timeout: -5}", "config.yaml: approvals.timeout: want a non-negative duration"},
		{"threshold zero", "compression: {threshold: 0}", "config.yaml: compression.threshold: want a number in (0, 1]"},
		{"threshold big", "compression: {threshold: 1.5}", "config.yaml: compression.threshold: want a number in (0, 1]"},
		{"protect", "compression: {protect_last_n: -1}", "config.yaml: compression.protect_last_n: want a non-negative integer"},
		{"frame bytes", "gateway: {max_frame_bytes: 100}", "config.yaml: gateway.max_frame_bytes: want an integer of at least 1024"},
		{"listen", "gateway: {listen: localhost}", "config.yaml: gateway.listen: want host:port with a port in 0..65535"},
		{"listen port", "gateway: {listen: '127.0.0.1:99999'}", "config.yaml: gateway.listen: want host:port with a port in 0..65535"},
		{"duration", "gateway: {shutdown_timeout: soon}", `config.yaml: gateway.shutdown_timeout: want a duration such as "10s" or a number of seconds`},
		{"bool", "streaming: {enabled: maybe}", "config.yaml: streaming.enabled: want true or false"},
		{"list", "command_allowlist: rm", "config.yaml: command_allowlist: want a list of strings"},
		{"section type", "model: [1, 2]", "config.yaml: model: want a mapping"},
		{"map type", "providers: [x]", "config.yaml: providers: want a mapping"},
		{"provider url", "providers: {p: {api_key_env: P_KEY}}", "config.yaml: providers.p.base_url: want an http or https URL"},
		{"toolset type", "platform_toolsets: {cli: terminal}", "config.yaml: platform_toolsets.cli: want a list of strings"},
		{"top level", "- a\n- b\n", "config.yaml: top level: want a mapping"},
		{"duplicate", "agent: {max_turns: 1, max_turns: 2}", "config.yaml: agent.max_turns: duplicate key"},
		{"literal key", "model: {api_key_env: sk-proj-abc123def456}", "config.yaml: model.api_key_env: " + keyAdvice},
		{"literal key name-like", "model: {api_key_env: A1B2C3D4E5F6G7H8J9K0L1M2N3P4Q5R6}", "config.yaml: model.api_key_env: " + keyAdvice},
		{"provider key", "providers: {p: {base_url: 'https://x', api_key_env: 'sk-123'}}", "config.yaml: providers.p.api_key_env: " + keyAdvice},
		{"oidc secret", "dashboard: {oidc: {client_secret_env: 'abc def'}}", "config.yaml: dashboard.oidc.client_secret_env: " + keyAdvice},
		{"http to a remote model", "model: {base_url: 'http://models.example/v1'}", "config.yaml: model.base_url: want " + insecureWants},
		{"http to a remote provider", "providers: {p: {base_url: 'http://10.0.0.2:8080/v1'}}", "config.yaml: providers.p.base_url: want " + insecureWants},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(writeConfig(t, tt.body))
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v\nwant   %s", err, tt.want)
			}
			if strings.Contains(err.Error(), "sk-") || strings.Contains(err.Error(), "A1B2") {
				t.Errorf("error echoes a literal key: %v", err)
			}
		})
	}
}

func TestLoadSyntaxAndReadErrors(t *testing.T) {
	t.Parallel()
	_, err := Load(writeConfig(t, "model: {default: x\nagent: 1\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "config.yaml: ") || !strings.Contains(err.Error(), "line") {
		t.Errorf("syntax error = %v, want config.yaml: line …", err)
	}
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, FileName), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err = Load(home)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(home, FileName)) {
		t.Errorf("unreadable = %v, want the file named", err)
	}
}

func TestApplyEnv(t *testing.T) {
	t.Parallel()
	c := Defaults()
	env := map[string]string{"HERMES_LISTEN": "127.0.0.1:4242"}
	if err := c.ApplyEnv(func(k string) string { return env[k] }); err != nil || c.Gateway.Listen != "127.0.0.1:4242" {
		t.Fatalf("ApplyEnv = %v, listen %s", err, c.Gateway.Listen)
	}
	env["HERMES_LISTEN"] = "bogus"
	if err := c.ApplyEnv(func(k string) string { return env[k] }); err == nil {
		t.Fatal("bad HERMES_LISTEN accepted")
	}
}

func TestListenIsLoopback(t *testing.T) {
	t.Parallel()
	for listen, want := range map[string]bool{
		"127.0.0.1:0": true, "localhost:80": true, "[::1]:9": true, "127.1.2.3:5": true,
		"0.0.0.0:80": false, ":8080": false, "[::]:1": false, "192.168.1.2:80": false, "example.com:80": false,
	} {
		c := Defaults()
		c.Gateway.Listen = listen
		if got := c.ListenIsLoopback(); got != want {
			t.Errorf("ListenIsLoopback(%q) = %v", listen, got)
		}
	}
}

// TestLoadPlainHTTP: plain http is for loopback hosts, or for any host once
// model.allow_insecure_http is set.
func TestLoadPlainHTTP(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		"model: {base_url: 'http://127.0.0.2:8080/v1'}",
		"model: {base_url: 'http://[::1]:8080/v1'}",
		"model: {base_url: 'http://LOCALHOST/v1'}",
		"model: {base_url: 'http://models.example/v1', allow_insecure_http: true}\nproviders: {p: {base_url: 'http://10.0.0.2/v1'}}",
	} {
		if _, err := Load(writeConfig(t, body)); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
}
