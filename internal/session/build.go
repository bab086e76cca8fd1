package session

import (
	"time"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// builder carries one Build through its named steps. Each step validates
// one group of fields and writes its part of the policy.
type builder struct {
	p         protocol.SessionCreateParams
	d         Defaults // as the caller gave them
	eff       Defaults // d, or the code defaults under safe_mode/ignore_user_config
	requestID string
	apiKey    string
	pol       Policy
}

// buildSteps run in order; the first error wins. bypass precedes every step
// that reads defaults, cwd precedes toolsets (workspace detection).
var buildSteps = []func(*builder) error{
	(*builder).requestIDStep,
	(*builder).sourceStep,
	(*builder).bypassStep,
	(*builder).cwdStep,
	(*builder).modelStep,
	(*builder).endpointStep,
	(*builder).apiKeyStep,
	(*builder).limitsStep,
	(*builder).flagsStep,
	(*builder).toolsetsStep,
	(*builder).skillsStep,
	(*builder).editorStep,
	(*builder).mcpStep, // after toolsets and editor
	(*builder).sandboxStep,
	(*builder).frozenStep,
}

func (b *builder) launch(subject string, now time.Time) Launch {
	return Launch{
		Receipt:     newReceipt(b.d.ProfileID, subject, b.requestID, b.pol, now),
		APIKey:      b.apiKey,
		RequestID:   b.requestID,
		RequestJSON: b.pol.RequestJSON,
	}
}

func (b *builder) requestIDStep() error {
	if b.p.RequestID == nil {
		b.requestID = newRequestID()
		return nil
	}
	if !validRequestID(*b.p.RequestID) {
		return invalid("request_id: must be 1..256 characters")
	}
	b.requestID = *b.p.RequestID
	return nil
}

func (b *builder) sourceStep() error {
	src := deref(b.p.Source, "cli")
	if err := checkSource(src); err != nil {
		return err
	}
	b.pol.Source, b.pol.Platform = src, SourcePlatform[src]
	return nil
}

// bypassStep applies safe_mode ⇒ ignore_user_config and picks the defaults.
func (b *builder) bypassStep() error {
	safe, ignore := deref(b.p.SafeMode, false), deref(b.p.IgnoreUserConfig, false)
	if safe && b.p.IgnoreUserConfig != nil && !ignore {
		return invalid("ignore_user_config: safe_mode implies ignore_user_config")
	}
	ignore = ignore || safe
	b.pol.SafeMode, b.pol.IgnoreUserConfig = safe, ignore
	b.eff = b.d
	if !ignore {
		return nil
	}
	if b.p.Model == nil {
		return invalid("model: required with safe_mode or ignore_user_config")
	}
	if b.p.Skills != nil {
		return invalid("skills: not allowed with safe_mode or ignore_user_config")
	}
	b.eff = builtinCodeDefaults()
	if b.d.CodeDefaults != nil {
		b.eff = *b.d.CodeDefaults
	}
	b.eff.ProfileID, b.eff.HomeDir, b.eff.CodeDefaults = b.d.ProfileID, b.d.HomeDir, nil
	return nil
}

func (b *builder) cwdStep() error {
	if b.p.Cwd != nil {
		cwd, err := cleanCwd("cwd", *b.p.Cwd)
		b.pol.Cwd = cwd
		return err
	}
	def := b.eff.DefaultCwd
	if def == "" {
		def = b.eff.HomeDir
	}
	cwd, err := cleanCwd("cwd", def)
	if err != nil {
		return invalid("cwd: the default directory is not an existing absolute directory; pass cwd")
	}
	b.pol.Cwd = cwd
	return nil
}

func (b *builder) modelStep() error {
	if b.p.Model != nil {
		b.pol.Model = *b.p.Model
		return checkModel(b.pol.Model)
	}
	if blank(b.eff.Model) {
		return invalid("model: required (no default model configured)")
	}
	b.pol.Model = b.eff.Model
	return nil
}
