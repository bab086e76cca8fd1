package daemon

import (
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/hermes-gateway/hermes/internal/authority"
	"github.com/hermes-gateway/hermes/internal/config"
	"github.com/hermes-gateway/hermes/internal/hooks"
	"github.com/hermes-gateway/hermes/internal/session"
)

// settingsSource reads config.yaml and .env live (the allowlist and the
// defaults of new sessions follow edits) but only re-parses when a file
// changed. A broken edit keeps the last good settings and is logged.
type settingsSource struct {
	home string
	log  *slog.Logger

	mu    sync.Mutex
	stamp string             // mtimes+sizes of the files last parsed; guarded by mu
	cur   authority.Settings // guarded by mu
	cfg   config.Config      // guarded by mu
	env   map[string]string  // guarded by mu
	hooks hooks.Config       // the last good hooks: section; guarded by mu
}

// newSettingsSource starts from config.yaml and .env as start read them
// (stamp taken before the read), so they are not parsed again until a file
// changes.
func newSettingsSource(home string, log *slog.Logger, stamp string, cfg config.Config, env map[string]string) *settingsSource {
	s := &settingsSource{home: home, log: log}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setLocked(stamp, cfg, env)
	return s
}

// Settings is authority.Config.Settings.
func (s *settingsSource) Settings() authority.Settings {
	cur, err := s.load()
	if err != nil {
		s.log.Warn("config.yaml or .env is invalid; keeping the last good settings", "err", err)
	}
	return cur
}

// fileStamp fingerprints config.yaml and .env (mtime and size of each).
func fileStamp(home string) string {
	out := ""
	for _, name := range []string{"config.yaml", ".env"} {
		if fi, err := os.Stat(filepath.Join(home, name)); err == nil {
			out += fi.ModTime().Format(time.RFC3339Nano) + "/" + strconv.FormatInt(fi.Size(), 10) + ";"
		} else {
			out += "-;"
		}
	}
	return out
}

func (s *settingsSource) load() (authority.Settings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stamp := fileStamp(s.home)
	if stamp == s.stamp && s.cur.Defaults.Model != "" {
		return s.cur, nil
	}
	cfg, err := config.Load(s.home)
	if err != nil {
		return s.cur, err
	}
	env, err := config.LoadEnv(s.home)
	if err != nil {
		return s.cur, err
	}
	s.setLocked(stamp, cfg, env)
	return s.cur, nil
}

// setLocked makes a parsed config.yaml and .env the current settings.
func (s *settingsSource) setLocked(stamp string, cfg config.Config, env map[string]string) {
	s.stamp, s.cfg, s.env = stamp, cfg, env
	s.cur = s.build(cfg, env)
	s.cur.Hooks = s.loadHooksLocked()
}

// loadHooksLocked parses config.yaml's hooks: section. A malformed section
// changes nothing else: the last good hooks stay (none at the first read)
// and the log names the key.
func (s *settingsSource) loadHooksLocked() hooks.Config {
	raw, err := config.HooksSection(s.home)
	if err == nil {
		var c hooks.Config
		if c, err = hooks.Parse(raw); err == nil {
			s.hooks = c
			return c
		}
	}
	s.log.Warn("config.yaml: the hooks section is invalid; keeping the last good hooks", "err", "config.yaml: "+err.Error())
	return s.hooks
}

func (s *settingsSource) build(cfg config.Config, env map[string]string) authority.Settings {
	return authority.Settings{
		Defaults:        defaultsFrom(cfg, s.home, config.Snapshot(cfg)),
		ProfileKey:      func(provider string) string { return profileKey(cfg, env, provider) },
		Allowlist:       cfg.CommandAllowlist,
		ApprovalsOff:    cfg.Approvals.Mode == "off",
		ApprovalTimeout: time.Duration(cfg.Approvals.Timeout),
		ClarifyTimeout:  time.Duration(cfg.Agent.ClarifyTimeout),
		ContextWindow:   cfg.Model.ContextWindow,
		Compression: authority.Compression{
			Enabled: cfg.Compression.Enabled, Threshold: cfg.Compression.Threshold,
			ProtectFirstN: cfg.Compression.ProtectFirstN, ProtectLastN: cfg.Compression.ProtectLastN,
		},
		Sandbox:        sandboxSettings(cfg.Sandbox),
		EnvPassthrough: cfg.Terminal.EnvPassthrough,
		Checkpoints: authority.CheckpointSettings{
			MaxFileBytes: cfg.Checkpoints.MaxFileBytes, KeepDays: cfg.Checkpoints.KeepDays, MaxBytes: cfg.Checkpoints.MaxBytes,
		},
		Titles:  cfg.Titles.Auto,
		Pricing: pricing(cfg.Pricing),
	}
}

func defaultsFrom(cfg config.Config, home string, snapshot map[string]any) session.Defaults {
	userHome, _ := os.UserHomeDir()
	providers := map[string]string{}
	for name, p := range cfg.Providers {
		providers[name] = p.BaseURL
	}
	d := session.Defaults{
		HomeDir: userHome, DefaultCwd: cfg.Agent.DefaultCwd,
		Model: cfg.Model.Default, Provider: cfg.Model.Provider, BaseURL: cfg.Model.BaseURL, Providers: providers,
		MaxTurns: cfg.Agent.MaxTurns, Reasoning: cfg.Agent.ReasoningEffort, Streaming: cfg.Streaming.Enabled,
		PlatformToolsets: cfg.PlatformToolsets, DisabledToolsets: cfg.Agent.DisabledToolsets,
		SkillsDir: filepath.Join(home, "skills"), ConfigSnapshot: snapshot,
		AllowInsecureHTTP: cfg.Model.AllowInsecureHTTP, Checkpoints: cfg.Checkpoints.Enabled,
		MCPServers: mcpDefaults(cfg),
	}
	profileBox := sandboxSettings(cfg.Sandbox)
	d.Sandbox = &profileBox
	code := config.Defaults()
	d.CodeDefaults = &session.Defaults{
		HomeDir: userHome, Model: code.Model.Default, Provider: code.Model.Provider, BaseURL: code.Model.BaseURL,
		MaxTurns: code.Agent.MaxTurns, Streaming: code.Streaming.Enabled, PlatformToolsets: code.PlatformToolsets,
		ConfigSnapshot: config.Snapshot(code),
		Sandbox:        safeModeSandbox(sandboxSettings(code.Sandbox), profileBox),
	}
	return d
}

// profileKey resolves the profile's api key for a provider from the process
// environment or .env (never from config.yaml): a named provider's own key;
// the model's key for any other name, or for a provider without a key of
// its own that shares model.base_url (a key goes only to the URL it was
// configured with; session.ProfileKeyName decides who may ask).
func profileKey(cfg config.Config, env map[string]string, provider string) string {
	name := cfg.Model.APIKeyEnv
	if p, ok := cfg.Providers[provider]; ok {
		switch {
		case p.APIKeyEnv != "":
			name = p.APIKeyEnv
		case !session.SameEndpoint(p.BaseURL, cfg.Model.BaseURL):
			name = ""
		}
	}
	if name == "" {
		return ""
	}
	return cfg.ResolveAPIKey(name, env).Reveal()
}

// appendAllowlist records an "always" approval in config.yaml.
func (s *settingsSource) appendAllowlist(pattern string) error {
	return config.AppendAllowlist(s.home, pattern)
}
