package authority

import (
	"context"
	"errors"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/store"
)

// errModel marks the failure of a model request the gateway made for a
// caller (compression's summary); the model's error is wrapped beside it.
var errModel = errors.New("model request failed")

// reasons is the one mapping from what the authority's dependencies return
// (store sentinels, a refused queue move, a failed model request, a done
// context) to the wire. The first entry whose sentinel the error wraps
// (errors.Is) gives the reason and the public detail; the error itself
// becomes the Cause, which is logged and never sent. A *store.MoveError
// wraps ErrUnknownExecution (a cancel meeting an unknown row) or
// ErrStaleGeneration (every other refused move). Everything else, store
// errors such as ErrConflict and ErrCorrupt included, is
// storage_unavailable with no detail.
var reasons = []struct {
	is     error
	reason protocol.Reason
	detail string
}{
	{store.ErrStaleEpoch, protocol.ReasonStaleEpoch, ""},
	{store.ErrUnknownExecution, protocol.ReasonUnknownExecution, "an interrupted execution must be resolved first"},
	{store.ErrStaleGeneration, protocol.ReasonStaleGeneration, "the execution generation is not current"},
	{store.ErrNotFound, protocol.ReasonNotFound, "not found"},
	// The model's text may name the endpoint; the detail never does.
	{errModel, protocol.ReasonModelUnavailable, "compression needs a summary from the model, which failed; see the gateway log"},
	// The caller went away (its connection closed): nobody reads the reply.
	{context.Canceled, protocol.ReasonStorageUnavailable, ""},
	{context.DeadlineExceeded, protocol.ReasonStorageUnavailable, ""},
}

// wireError maps err through reasons. An error that already carries a
// *protocol.Error (a rule's own reason, checked where the rule is) is left
// as it is, as rpc.WireError would read it.
func wireError(err error) error {
	var pe *protocol.Error
	if err == nil || errors.As(err, &pe) {
		return err
	}
	for _, r := range reasons {
		if errors.Is(err, r.is) {
			return &protocol.Error{Reason: r.reason, Detail: r.detail, Cause: err}
		}
	}
	return protocol.Wrap(protocol.ReasonStorageUnavailable, err)
}

// reply is deferred by every exported method that answers a client: it
// notes a fenced epoch (fenced) and maps *errp once, through reasons.
func (a *Authority) reply(errp *error) {
	if *errp != nil {
		*errp = wireError(a.fenced(*errp))
	}
}
