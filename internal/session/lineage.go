package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// End reasons of a physical transcript that has a lineage child.
const (
	EndCompression = "compression"
	EndReset       = "session_reset"
)

// model_config markers of a child transcript (docs/protocol.md#database). A reset
// child carries ResetFromKey = parent id; branch and delegate children are
// never lineage steps.
const (
	ResetFromKey    = "_reset_from"
	BranchedFromKey = "_branched_from"
	DelegateFromKey = "_delegate_from"
)

// TranscriptRow is what lineage validation needs of a sessions row.
type TranscriptRow struct {
	ID, ChatID, UserID, SessionKey string
	ParentSessionID                string
	EndReason                      string
	ModelConfig                    string // JSON object, "" or "null" = none
}

// Chain is the receipt's lineage: Lineage, or [SessionID] before the first
// compression or reset. The last element is the current physical target.
func (r Receipt) Chain() []string {
	if r.Lineage == nil {
		return []string{r.SessionID}
	}
	return r.Lineage
}

// Advance returns the receipt after a compression or reset moved the
// session to the child transcript childID: entry.session_id and updated_at
// change, lineage gains childID. Nothing else changes; r is not modified.
func (r Receipt) Advance(childID string, now time.Time) Receipt {
	next := r
	next.Lineage = append(slices.Clone(r.Chain()), childID)
	next.Entry.SessionID = childID
	next.Entry.UpdatedAt = Timestamp(now)
	return next
}

// checkLineageShape: non-empty, unique, starts at the logical id, ends at
// entry.session_id; without a lineage the entry still targets the root.
func checkLineageShape(r Receipt, _ string) error {
	chain := r.Chain()
	switch {
	case len(chain) == 0:
		return storageErr("receipt: lineage is empty")
	case chain[0] != r.SessionID:
		return storageErr("receipt: lineage does not start at the session id")
	case chain[len(chain)-1] != r.Entry.SessionID:
		return storageErr("receipt: lineage does not end at entry.session_id")
	}
	seen := make(map[string]bool, len(chain))
	for _, id := range chain {
		if id == "" || seen[id] {
			return storageErr("receipt: lineage has an empty or repeated id")
		}
		seen[id] = true
	}
	return nil
}

// CheckLineage walks the receipt's lineage over the transcript rows (row
// returns false for a missing row). Each step parent→child needs
// child.parent_session_id == parent and either a reset (parent ended
// session_reset, child model_config._reset_from == parent) or a compression
// (parent ended compression, child is neither a reset, branch nor delegate
// child: the one the receipt names). The tip belongs to this session
// (chat_id, user_id, session_key) and has not itself ended by compression or
// reset (else a newer child exists that the receipt does not name). Errors
// are storage_unavailable; row ids go only into the logged Cause.
func CheckLineage(r Receipt, row func(id string) (TranscriptRow, bool)) error {
	if err := checkLineageShape(r, r.SessionID); err != nil {
		return err
	}
	chain := r.Chain()
	parent, err := lookup(row, chain[0])
	if err != nil {
		return err
	}
	for _, id := range chain[1:] {
		child, err := lookup(row, id)
		if err != nil {
			return err
		}
		if err := checkStep(parent, child); err != nil {
			return err
		}
		parent = child
	}
	return checkTip(r, parent)
}

func lookup(row func(string) (TranscriptRow, bool), id string) (TranscriptRow, error) {
	t, ok := row(id)
	if !ok || t.ID != id {
		return TranscriptRow{}, lineageErr("a lineage transcript is missing", "transcript %s", id)
	}
	return t, nil
}

func checkStep(parent, child TranscriptRow) error {
	if child.ParentSessionID != parent.ID {
		return lineageErr("a lineage step is not parent and child", "%s → %s", parent.ID, child.ID)
	}
	markers, ok := modelConfig(child.ModelConfig)
	if !ok {
		return lineageErr("a lineage transcript has malformed model_config", "transcript %s", child.ID)
	}
	switch parent.EndReason {
	case EndReset:
		if markers[ResetFromKey] != parent.ID {
			return lineageErr("a reset step's child is not the reset child", "%s → %s", parent.ID, child.ID)
		}
	case EndCompression:
		for _, k := range []string{ResetFromKey, BranchedFromKey, DelegateFromKey} {
			if _, marked := markers[k]; marked {
				return lineageErr("a compression step's child is not the compression child", "%s → %s", parent.ID, child.ID)
			}
		}
	default:
		return lineageErr("a lineage parent did not end by compression or reset", "%s (%q)", parent.ID, parent.EndReason)
	}
	return nil
}

func checkTip(r Receipt, tip TranscriptRow) error {
	switch {
	case tip.ChatID != r.SessionID || tip.UserID != r.PrincipalID || tip.SessionKey != r.Route:
		return lineageErr("the current transcript belongs to another session", "tip %s", tip.ID)
	case tip.EndReason == EndCompression || tip.EndReason == EndReset:
		return lineageErr("the current transcript has ended; the receipt is stale", "tip %s", tip.ID)
	}
	return nil
}

func modelConfig(s string) (map[string]any, bool) {
	if s == "" || s == "null" {
		return map[string]any{}, true
	}
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return nil, false
	}
	return m, true
}

func lineageErr(detail, cause string, args ...any) *protocol.Error {
	return &protocol.Error{
		Reason: protocol.ReasonStorageUnavailable,
		Detail: "lineage: " + detail,
		Cause:  fmt.Errorf(cause, args...),
	}
}
