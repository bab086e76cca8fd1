package store

import (
	"context"
)

// HookConsent is a hook_consents row: the project hook set a viewer
// accepted for a cwd (issue 12).
type HookConsent struct {
	Cwd          string
	Digest       string // hooks.Config.Digest of .hermes/hooks.yaml as accepted
	CommandsJSON string // JSON array of the commands the prompt listed
	AcceptedBy   string // the viewer's subject
	AcceptedAtMs int64
}

// HookConsentDigest returns the digest accepted for cwd; ok is false when
// none was.
func (s *Store) HookConsentDigest(ctx context.Context, cwd string) (digest string, ok bool, err error) {
	err = s.r.QueryRowContext(ctx, `SELECT digest FROM hook_consents WHERE cwd = ?`, cwd).Scan(&digest)
	return maybe(digest, err, "hook consent")
}

// PutHookConsent records (or replaces) the consent of cwd.
func (tx *Tx) PutHookConsent(c HookConsent) error {
	_, err := tx.execSQL("put hook consent", `INSERT INTO hook_consents (cwd, digest, commands_json, accepted_by,
	accepted_at_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT (cwd) DO UPDATE SET digest = excluded.digest,
	commands_json = excluded.commands_json, accepted_by = excluded.accepted_by, accepted_at_ms = excluded.accepted_at_ms`,
		c.Cwd, c.Digest, c.CommandsJSON, c.AcceptedBy, c.AcceptedAtMs)
	return err
}
