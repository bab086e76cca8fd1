package authority

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/queue"
	"github.com/hermes-gateway/hermes/internal/store"
)

// TestWireError pins the reason table: each dependency error becomes its
// reason, its text stays in the Cause (never in the detail), and an error
// that already carries a reason keeps it.
func TestWireError(t *testing.T) {
	t.Parallel()
	const secret = "internal-text-42"
	wrap := func(err error) error { return fmt.Errorf("%s: %w", secret, err) }
	ruled := protocol.Errorf(protocol.ReasonRevisionConflict, "revision is 3")
	for _, tc := range []struct {
		name string
		err  error
		want protocol.Reason
	}{
		{"stale epoch", wrap(store.ErrStaleEpoch), protocol.ReasonStaleEpoch},
		{"not found", wrap(store.ErrNotFound), protocol.ReasonNotFound},
		{"stale generation", wrap(store.ErrStaleGeneration), protocol.ReasonStaleGeneration},
		{"unknown execution", wrap(store.ErrUnknownExecution), protocol.ReasonUnknownExecution},
		{"cancel of a started row", wrap(&store.MoveError{Event: queue.Cancel, From: queue.Started, Now: queue.Started}), protocol.ReasonStaleGeneration},
		{"cancel of an unknown row", wrap(&store.MoveError{Event: queue.Cancel, From: queue.Queued, Now: queue.Unknown}), protocol.ReasonUnknownExecution},
		{"model", fmt.Errorf("compression summary: %w: %w", errModel, errors.New(secret)), protocol.ReasonModelUnavailable},
		{"model cut by the caller", fmt.Errorf("%w: %w", errModel, context.Canceled), protocol.ReasonModelUnavailable},
		{"caller gone", wrap(context.Canceled), protocol.ReasonStorageUnavailable},
		{"deadline", wrap(context.DeadlineExceeded), protocol.ReasonStorageUnavailable},
		{"conflict", wrap(store.ErrConflict), protocol.ReasonStorageUnavailable},
		{"corrupt", wrap(store.ErrCorrupt), protocol.ReasonStorageUnavailable},
		{"anything else", errors.New(secret), protocol.ReasonStorageUnavailable},
		{"a rule's own reason", fmt.Errorf("%s: %w", secret, ruled), protocol.ReasonRevisionConflict},
		{"a reason over a sentinel", protocol.Wrap(protocol.ReasonStorageUnavailable, store.ErrNotFound), protocol.ReasonStorageUnavailable},
	} {
		var pe *protocol.Error
		if !errors.As(wireError(tc.err), &pe) || pe.Reason != tc.want {
			t.Errorf("%s: %v, want reason %s", tc.name, wireError(tc.err), tc.want)
			continue
		}
		if strings.Contains(pe.Detail, secret) {
			t.Errorf("%s: detail %q holds internal text", tc.name, pe.Detail)
		}
		if pe != ruled && !errors.Is(pe, tc.err) {
			t.Errorf("%s: the cause is not kept for the log", tc.name)
		}
	}
	if wireError(nil) != nil {
		t.Error("wireError(nil) != nil")
	}
}
