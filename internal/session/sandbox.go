package session

import (
	"path/filepath"
	"slices"
	"strings"
)

// Sandbox modes, as config.yaml sandbox.mode spells them.
const (
	SandboxAuto   = "auto"
	SandboxStrict = "strict"
	SandboxOff    = "off"
)

// SandboxPolicy is the sandbox part of the frozen policy: what the profile's
// sandbox.* settings said when the session was created, so a later edit of
// config.yaml (mode off, a new writable root) never changes a running
// session. Paths are frozen as written (absolute, or ~/… and $VAR/…), and
// expanded where a command is started.
type SandboxPolicy struct {
	Mode          string   `json:"mode"`           // auto, strict or off
	Network       bool     `json:"network"`        // false = loopback only
	WritableRoots []string `json:"writable_roots"` // besides the cwd and the private temp dir
	HiddenPaths   []string `json:"hidden_paths"`   // besides the profile home, always hidden
}

// Clone returns a deep copy of p (nil for nil).
func (p *SandboxPolicy) Clone() *SandboxPolicy {
	if p == nil {
		return nil
	}
	c := *p
	c.WritableRoots = slices.Clone(p.WritableRoots)
	c.HiddenPaths = slices.Clone(p.HiddenPaths)
	return &c
}

// sandboxStep freezes the sandbox settings of the effective defaults. A
// caller that gives none leaves the field nil, which means "the profile's
// current settings" (as for receipts older than the sandbox).
func (b *builder) sandboxStep() error {
	b.pol.Sandbox = b.eff.Sandbox.Clone()
	return nil
}

// checkSandbox fails a receipt whose frozen sandbox a tampered or damaged
// database could have weakened into something config.yaml cannot say.
func checkSandbox(p *SandboxPolicy) error {
	if p == nil {
		return nil
	}
	if !slices.Contains([]string{SandboxAuto, SandboxStrict, SandboxOff}, p.Mode) {
		return storageErr("receipt: policy.sandbox.mode is unknown")
	}
	for _, path := range slices.Concat(p.WritableRoots, p.HiddenPaths) {
		if !frozenPath(path) {
			return storageErr("receipt: policy.sandbox holds a path that is not absolute")
		}
	}
	return nil
}

// frozenPath reports whether path is absolute, ~/… or $VAR/….
func frozenPath(path string) bool {
	return filepath.IsAbs(path) || path == "~" || strings.HasPrefix(path, "~/") || strings.HasPrefix(path, "$")
}
