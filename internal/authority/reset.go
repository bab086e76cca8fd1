package authority

import (
	"context"

	"github.com/hermes-gateway/hermes/internal/faults"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/store"
)

// reset starts an empty child transcript. The frozen policy and every queued
// admission stay (they belong to the logical id); a running turn refuses it
// with admission_conflict and nothing is cancelled.
func (a *Authority) reset(ctx context.Context, m mutation) (protocol.SessionMutateResult, error) {
	if err := strictPayload(m.params.Payload, &struct{}{}); err != nil {
		return protocol.SessionMutateResult{}, protocol.Errorf(protocol.ReasonInvalidParams, "reset takes an empty payload")
	}
	if err := m.l.reserve(); err != nil {
		return protocol.SessionMutateResult{}, err
	}
	defer a.release(m.l)
	parent := m.l.current().Entry.SessionID
	var res protocol.SessionMutateResult
	zero := 0
	c := child{endReason: "session_reset", modelConfig: map[string]any{"_reset_from": parent}, faultPoint: faults.ResetBeforeCommit}
	err := a.publishChild(ctx, m.l, c, func(tx *store.Tx, j *journal) error {
		if _, err := fence(tx, m); err != nil {
			return err
		}
		var err error
		res, err = a.finishMutation(tx, j, m, &zero)
		return err
	})
	if err != nil {
		return protocol.SessionMutateResult{}, err
	}
	faults.Hit(faults.ResetAfterCommit)
	return res, nil
}
