package session

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// endpointStep resolves provider and base_url. A named provider brings its
// configured base_url unless base_url is given too. It records which
// configured endpoint (if any) the base_url is, so that the profile's keys
// go only to the URL they were configured with (endpoint.go).
func (b *builder) endpointStep() error {
	b.pol.Provider, b.pol.BaseURL = b.eff.Provider, b.eff.BaseURL
	if b.p.Provider != nil {
		known := append(sortedKeys(b.eff.Providers), b.eff.Provider)
		if err := checkProvider(*b.p.Provider, known); err != nil {
			return err
		}
		b.pol.Provider = *b.p.Provider
		if u, ok := b.eff.Providers[b.pol.Provider]; ok {
			b.pol.BaseURL = u
		}
	}
	if b.p.BaseURL != nil {
		if err := checkBaseURL(*b.p.BaseURL, b.d.AllowInsecureHTTP); err != nil {
			return err
		}
		b.pol.BaseURL = *b.p.BaseURL
	}
	b.pol.KeyEndpoint = KeyEndpointNone
	if !b.pol.IgnoreUserConfig {
		b.pol.KeyEndpoint = keyEndpoint(b.pol.BaseURL, b.pol.Provider, b.eff)
	}
	return nil
}

// apiKeyStep keeps the launch key in memory only; the policy gets a ref.
func (b *builder) apiKeyStep() error {
	if b.p.APIKey == nil {
		return nil
	}
	if blank(*b.p.APIKey) {
		return invalid("api_key: must be a non-empty string")
	}
	b.apiKey = *b.p.APIKey
	ref := CredentialRef(b.apiKey)
	b.pol.CredentialRef = &ref
	return nil
}

func (b *builder) limitsStep() error {
	b.pol.MaxTurns = max(b.eff.MaxTurns, 0)
	if len(b.p.MaxTurns) > 0 {
		n, err := parseMaxTurns(b.p.MaxTurns)
		if err != nil {
			return err
		}
		b.pol.MaxTurns = n
	}
	b.pol.Reasoning = b.eff.Reasoning
	if b.p.Reasoning != nil {
		if err := checkReasoning(*b.p.Reasoning); err != nil {
			return err
		}
		b.pol.Reasoning = *b.p.Reasoning
	}
	b.pol.Streaming = b.eff.Streaming
	return nil
}

func (b *builder) flagsStep() error {
	b.pol.Yolo = deref(b.p.Yolo, false)
	b.pol.Checkpoints = deref(b.p.Checkpoints, b.eff.Checkpoints)
	b.pol.AcceptHooks = deref(b.p.AcceptHooks, false)
	b.pol.PassSessionID = deref(b.p.PassSessionID, false)
	b.pol.IgnoreRules = deref(b.p.IgnoreRules, false) || b.pol.SafeMode
	b.pol.Hidden = deref(b.p.Hidden, false)
	if b.p.Title != nil {
		if err := CheckTitle(*b.p.Title); err != nil {
			return err
		}
		b.pol.Title = *b.p.Title
	}
	return nil
}

func (b *builder) toolsetsStep() error {
	explicit := b.p.Toolsets
	if explicit != nil { // the MCP names are mcpStep's
		_, rest := splitMCP(*explicit)
		explicit = &rest
	}
	f, err := foldToolsets(folding{
		source:    b.pol.Source,
		explicit:  explicit,
		workspace: IsCodeWorkspace(b.pol.Cwd),
		platform:  b.eff.PlatformToolsets,
		disabled:  b.eff.DisabledToolsets,
	})
	b.pol.Toolsets, b.pol.CodingPosture = f.toolsets, f.posture
	return err
}

func (b *builder) skillsStep() error {
	if b.p.Skills == nil {
		return nil
	}
	if err := checkSkillNames(*b.p.Skills); err != nil {
		return err
	}
	text, err := RenderSkills(b.eff.SkillsDir, *b.p.Skills)
	if err != nil {
		return err
	}
	b.pol.SkillsPrompt = &text
	return nil
}

func (b *builder) editorStep() error {
	if len(b.p.Editor) == 0 {
		return nil
	}
	ed, err := canonicalEditor(b.p.Editor, b.pol.Source)
	b.pol.Editor = ed
	return err
}

// frozenStep freezes the config snapshot, the request and the terminal scope.
func (b *builder) frozenStep() error {
	cfg := b.eff.ConfigSnapshot
	if cfg == nil {
		cfg = map[string]any{}
	}
	raw, err := CanonicalJSON(cfg)
	if err != nil {
		return protocol.Wrap(protocol.ReasonStorageUnavailable, fmt.Errorf("freeze config snapshot: %w", err))
	}
	b.pol.ConfigJSON = string(raw)
	term, err := CanonicalJSON(map[string]string{terminalCwdKey: b.pol.Cwd})
	if err != nil {
		return protocol.Wrap(protocol.ReasonStorageUnavailable, err)
	}
	b.pol.TerminalJSON = string(term)
	b.pol.RequestJSON, err = FrozenRequest(b.p)
	return err
}

// terminalCwdKey is the terminal scope's cwd key in terminal_json.
const terminalCwdKey = "TERMINAL_CWD"

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}
