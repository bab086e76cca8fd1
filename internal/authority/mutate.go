package authority

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
	"github.com/hermes-gateway/hermes/internal/strictjson"
)

// mutation is one validated session.mutate request.
type mutation struct {
	p      auth.Principal
	l      *live
	params protocol.SessionMutateParams
	digest string
}

// Mutate answers session.mutate: revision-fenced, idempotent by request_id.
// rename and archive change the logical row; compress and reset publish a
// new physical transcript (compress.go, reset.go).
func (a *Authority) Mutate(ctx context.Context, p auth.Principal, params protocol.SessionMutateParams) (_ protocol.SessionMutateResult, err error) {
	defer a.reply(&err)
	if params.RequestID == "" || len(params.RequestID) > maxIDLen {
		return protocol.SessionMutateResult{}, protocol.Errorf(protocol.ReasonInvalidParams, "request_id must be 1..1024 characters")
	}
	l, err := a.access(ctx, p, params.SessionID, protocol.CapControl)
	if err != nil {
		return protocol.SessionMutateResult{}, err
	}
	m := mutation{p: p, l: l, params: params, digest: mutationDigest(params)}
	if res, ok, err := a.priorMutation(ctx, m); ok || err != nil {
		return res, err
	}
	switch params.Operation {
	case "rename", "archive":
		return a.mutateRow(ctx, m)
	case "compress", "reset":
		return a.replaceTranscript(ctx, m)
	}
	return protocol.SessionMutateResult{}, protocol.Errorf(protocol.ReasonInvalidParams, "operation must be rename, archive, compress or reset")
}

func mutationDigest(p protocol.SessionMutateParams) string {
	var payload any
	_ = json.Unmarshal(p.Payload, &payload)
	b, _ := session.CanonicalJSON(map[string]any{
		"operation": p.Operation, "payload": payload,
		"expected_revision": p.ExpectedRevision, "expected_generation": p.ExpectedGeneration,
	})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// priorMutation returns the stored result of a repeated request_id.
func (a *Authority) priorMutation(ctx context.Context, m mutation) (protocol.SessionMutateResult, bool, error) {
	var res protocol.SessionMutateResult
	var found bool
	err := a.cfg.Store.InTx(ctx, a.cfg.Epoch, func(tx *store.Tx) error {
		digest, raw, ok, err := tx.Mutation(m.p.Subject, m.l.id, m.params.RequestID)
		if err != nil || !ok {
			return err
		}
		if digest != m.digest {
			return protocol.Errorf(protocol.ReasonInvalidParams, "request_id was already used for a different mutation")
		}
		found = true
		return json.Unmarshal([]byte(raw), &res)
	})
	return res, found, err
}

// fence checks expected_revision and expected_generation inside the tx.
func fence(tx *store.Tx, m mutation) (store.Session, error) {
	row, err := tx.Session(m.l.id)
	if err != nil {
		return row, err
	}
	if row.RuntimeRevision != m.params.ExpectedRevision {
		return row, protocol.Errorf(protocol.ReasonRevisionConflict, "revision is %d", row.RuntimeRevision)
	}
	if g := m.params.ExpectedGeneration; g != nil && *g != row.RuntimeGeneration {
		return row, protocol.Errorf(protocol.ReasonStaleGeneration, "execution_generation is %d", row.RuntimeGeneration)
	}
	return row, nil
}

func (a *Authority) mutateRow(ctx context.Context, m mutation) (protocol.SessionMutateResult, error) {
	apply, err := rowChange(m)
	if err != nil {
		return protocol.SessionMutateResult{}, err
	}
	var res protocol.SessionMutateResult
	err = a.commit(ctx, m.l.id, func(tx *store.Tx, j *journal) error {
		if _, err := fence(tx, m); err != nil {
			return err
		}
		if err := apply(tx); err != nil {
			return err
		}
		var err error
		res, err = a.finishMutation(tx, j, m, nil)
		return err
	}, nil)
	return res, err
}

// rowChange validates a rename/archive payload and returns its write.
func rowChange(m mutation) (func(*store.Tx) error, error) {
	id := m.l.id
	if m.params.Operation == "rename" {
		var p struct {
			Title string `json:"title"`
		}
		if err := strictjson.Decode(m.params.Payload, &p); err != nil {
			return nil, protocol.Errorf(protocol.ReasonInvalidParams, "rename needs payload {title} of 1..200 characters")
		}
		if err := session.CheckTitle(p.Title); err != nil {
			return nil, err
		}
		return func(tx *store.Tx) error { return tx.SetTitle(id, p.Title) }, nil
	}
	var p struct {
		Archived *bool `json:"archived"`
	}
	if err := strictjson.Decode(m.params.Payload, &p); err != nil || p.Archived == nil {
		return nil, protocol.Errorf(protocol.ReasonInvalidParams, "archive needs payload {archived: bool}")
	}
	return func(tx *store.Tx) error { return tx.SetArchived(id, *p.Archived) }, nil
}

// replaceTranscript answers compress and reset: the FIFO is reserved while
// the child transcript is built (compress asks the model for a summary), and
// the child is published in the mutation's own fenced transaction.
func (a *Authority) replaceTranscript(ctx context.Context, m mutation) (protocol.SessionMutateResult, error) {
	op := m.params.Operation
	if err := strictjson.Decode(m.params.Payload, &struct{}{}); err != nil {
		return protocol.SessionMutateResult{}, protocol.Errorf(protocol.ReasonInvalidParams, "%s takes an empty payload", op)
	}
	if err := m.l.reserve(); err != nil {
		return protocol.SessionMutateResult{}, err
	}
	defer a.release(m.l)
	c := resetChild(m.l)
	if op == "compress" {
		msgs, err := a.compacted(ctx, m.l)
		if err != nil {
			return protocol.SessionMutateResult{}, err
		}
		c = compressedChild(m.l, msgs)
	}
	var res protocol.SessionMutateResult
	n := len(c.messages)
	err := a.publishChild(ctx, m.l, c, func(tx *store.Tx, j *journal) error {
		if _, err := fence(tx, m); err != nil {
			return err
		}
		var err error
		res, err = a.finishMutation(tx, j, m, &n)
		return err
	})
	if err != nil {
		return protocol.SessionMutateResult{}, err
	}
	return res, nil
}

// finishMutation bumps the revision, stores the idempotent result and
// journals session.info, all in the mutation's transaction.
func (a *Authority) finishMutation(tx *store.Tx, j *journal, m mutation, count *int) (protocol.SessionMutateResult, error) {
	rev, err := tx.BumpRevision(m.l.id)
	if err != nil {
		return protocol.SessionMutateResult{}, err
	}
	res := protocol.SessionMutateResult{SessionID: m.l.id, Revision: rev, Operation: m.params.Operation, MessageCount: count}
	raw, _ := json.Marshal(res)
	if err := tx.PutMutation(m.p.Subject, m.l.id, m.params.RequestID, m.digest, string(raw)); err != nil {
		return res, err
	}
	return res, a.addInfo(tx, j, m.l, m.l.isRunning(), stamp{})
}
