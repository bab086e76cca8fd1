package session

import (
	"encoding/json"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// FrozenRequest is the idempotency key material of session.create: the
// canonical JSON (sorted keys) of the params as given, without request_id and
// api_key, with source defaulted to "cli". Omitted fields stay omitted, so an
// explicit false differs from an omitted field; key order and spacing of the
// client's JSON do not matter.
func FrozenRequest(p protocol.SessionCreateParams) (string, error) {
	p.RequestID, p.APIKey = nil, nil
	if p.Source == nil {
		cli := "cli"
		p.Source = &cli
	}
	for _, raw := range []json.RawMessage{p.MaxTurns, p.Editor} {
		if len(raw) > 0 && !json.Valid(raw) {
			return "", invalid("malformed params")
		}
	}
	b, err := CanonicalJSON(p)
	if err != nil {
		return "", invalid("malformed params")
	}
	return string(b), nil
}
