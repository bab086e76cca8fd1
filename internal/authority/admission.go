package authority

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
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

func (a *Authority) receipt(adm store.Admission) protocol.Receipt {
	r := protocol.Receipt{
		AdmissionID:    adm.AdmissionID,
		Ref:            protocol.Ref{ProfileID: a.cfg.ProfileID, SessionID: adm.TargetSessionID},
		Sequence:       adm.Seq,
		Status:         adm.Status,
		AuthorityEpoch: adm.OwnerEpoch,
	}
	if adm.Outcome != "" {
		o := adm.Outcome
		r.Outcome = &o
	}
	r.ExecutionGeneration = generation(adm.Generation)
	return r
}

// generation is a row's execution generation on the wire: null until claimed.
func generation(g int64) *int64 {
	if g == 0 {
		return nil
	}
	return &g
}

func pendingList(rows []store.Admission) []protocol.PendingAdmission {
	briefs := make([]store.PendingBrief, len(rows))
	for i, a := range rows {
		briefs[i] = store.PendingBrief{
			Seq: a.Seq, AdmissionID: a.AdmissionID, RequestID: a.RequestID, Status: a.Status,
			Generation: a.Generation, Text: parsePayload(a.PayloadJSON).Text,
		}
	}
	return briefList(briefs)
}

// briefList converts pending rows to their public shape (text only, never
// the private binding).
func briefList(rows []store.PendingBrief) []protocol.PendingAdmission {
	out := make([]protocol.PendingAdmission, 0, len(rows))
	for _, r := range rows {
		out = append(out, protocol.PendingAdmission{
			AdmissionID: r.AdmissionID, InputID: r.RequestID, Status: r.Status, Sequence: r.Seq,
			ExecutionGeneration: generation(r.Generation), Text: r.Text,
		})
	}
	return out
}
