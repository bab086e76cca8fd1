package session

import (
	"errors"
	"time"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// SourcePlatform maps each session.create source to its agent platform
// (docs/protocol.md#create-fields). The stored source keeps the creation label.
var SourcePlatform = map[string]string{
	"cli": "cli", "tui": "tui", "gui": "desktop", "acp": "acp", "tool": "cli", "oneshot": "cli",
}

// Defaults is what the daemon's config says at creation time; the caller
// fills it. Build never reads config itself.
type Defaults struct {
	ProfileID  string // the profile's opaque id (never a path)
	HomeDir    string // the user's home: the cwd when DefaultCwd is ""
	DefaultCwd string // agent.default_cwd

	Model, Provider, BaseURL string
	Providers                map[string]string // provider name → base_url

	// AllowInsecureHTTP is model.allow_insecure_http: a session.create
	// base_url may be plain http to a non-loopback host. It is the daemon's
	// rule, so it applies under ignore_user_config too.
	AllowInsecureHTTP bool

	MaxTurns  int // 0 = unlimited
	Reasoning string
	Streaming bool

	PlatformToolsets map[string][]string // "cli", "acp"; a missing key = built-in list
	DisabledToolsets []string

	// Checkpoints is checkpoints.enabled: the default of the launch flag.
	Checkpoints bool
	// MCPServers are config.yaml's mcp_servers (Source MCPSourceConfig).
	MCPServers []MCPServer

	SkillsDir      string         // $HERMES_HOME/skills
	ConfigSnapshot map[string]any // effective config, secrets nulled; frozen as config_json
	// Sandbox is sandbox.* to freeze into the policy; nil freezes nothing
	// (the session follows the profile's current settings).
	Sandbox *SandboxPolicy

	// CodeDefaults replaces this Defaults (except ProfileID and HomeDir) under
	// safe_mode/ignore_user_config: code defaults only, no user config at
	// all. Nil means the built-in code defaults.
	CodeDefaults *Defaults
}

// Launch is a validated session.create: the receipt to commit plus what
// must never be stored.
type Launch struct {
	Receipt     Receipt
	APIKey      string // the launch key, memory only; "" if none
	RequestID   string // as given, or random when the client sent none
	RequestJSON string // == Receipt.Policy.RequestJSON
}

// Build validates every field of p (docs/protocol.md#create-fields and #toolsets) and
// builds the frozen receipt of subject's session. Errors are
// *protocol.Error: invalid_params with a Detail naming the field, or
// unknown_skill. Build only reads the filesystem (cwd, workspace markers,
// skills); it never changes config, environment or anything else.
func Build(p protocol.SessionCreateParams, subject string, d Defaults, now time.Time) (Launch, error) {
	if d.ProfileID == "" || subject == "" {
		return Launch{}, protocol.Wrap(protocol.ReasonStorageUnavailable, errors.New("session.Build: no profile or subject"))
	}
	b := &builder{p: p, d: d}
	for _, step := range buildSteps {
		if err := step(b); err != nil {
			return Launch{}, err
		}
	}
	return b.launch(subject, now), nil
}

// newReceipt assembles the receipt of a fresh session.
func newReceipt(profileID, subject, requestID string, pol Policy, now time.Time) Receipt {
	id := LogicalID(profileID, subject, requestID)
	route := RouteKey(id)
	ts := Timestamp(now)
	return Receipt{
		ProfileID:   profileID,
		PrincipalID: subject,
		RequestID:   requestID,
		SessionID:   id,
		Route:       route,
		Entry: Entry{
			SessionKey: route,
			SessionID:  id,
			CreatedAt:  ts,
			UpdatedAt:  ts,
			Origin:     localOrigin(id, subject),
			Platform:   "local",
			Yolo:       pol.Yolo,
		},
		Policy: pol,
	}
}

func localOrigin(id, subject string) Origin {
	return Origin{Platform: "local", ChatID: id, UserID: subject, ChatType: "dm"}
}

// builtinCodeDefaults are the code defaults used under safe_mode or
// ignore_user_config when the caller passes none.
func builtinCodeDefaults() Defaults {
	return Defaults{
		MaxTurns:         90,
		Streaming:        true,
		PlatformToolsets: builtinPlatformToolsets,
	}
}
