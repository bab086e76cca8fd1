package session

import "encoding/json"

// HooksPolicy is the hook set an accept_hooks session runs (issue 12),
// frozen at creation: config.yaml's hooks and the cwd's .hermes/hooks.yaml
// as they were then, so a later edit of either never changes what a
// running session executes. The set is opaque here (package hooks owns its
// shape); Digest is its sha256, checked again before every use.
type HooksPolicy struct {
	Digest string          `json:"digest"`
	Set    json.RawMessage `json:"set"` // hooks.Set
	// ProjectDigest is the digest of the project hooks alone ("" = none):
	// what their first-use consent is remembered by, per cwd.
	ProjectDigest string `json:"project_digest,omitempty"`
}
