package authority

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/hermes-gateway/hermes/internal/session"
)

// payload is the canonical admission payload. Binding is the private
// server-written operator binding: it never reaches a model request, an
// event or a snapshot (only Text does).
type payload struct {
	Text        string          `json:"text"`
	Attachments json.RawMessage `json:"attachments,omitempty"`
	Binding     *binding        `json:"local_operator_v1,omitempty"`
}

type binding struct {
	ProfileID   string `json:"profile_id"`
	SessionID   string `json:"session_id"`
	PrincipalID string `json:"principal_id"`
}

func parsePayload(raw string) payload {
	var p payload
	_ = json.Unmarshal([]byte(raw), &p)
	return p
}

// digest fingerprints the public input of an admission (target + text +
// attachments + intent); the same key with another digest is a conflict.
func digest(target string, text string, attachments json.RawMessage) string {
	var att any
	if len(attachments) > 0 {
		_ = json.Unmarshal(attachments, &att)
	}
	b, _ := session.CanonicalJSON(map[string]any{
		"canonical_target": target,
		"payload":          map[string]any{"input": map[string]any{"text": text, "attachments": att}, "intent": "queue"},
	})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
