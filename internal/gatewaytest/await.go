package gatewaytest

import (
	"context"
	"testing"
	"time"
)

// pollInterval is how often Await re-evaluates a condition.
const pollInterval = 10 * time.Millisecond

// Await fails t unless cond becomes true within timeout. cond is polled;
// it must be cheap and must not call t.Fatal.
func Await(t testing.TB, timeout time.Duration, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := AwaitCtx(ctx, cond); err != nil {
		t.Fatalf("gatewaytest: condition not met within %v", timeout)
	}
}

// AwaitCtx polls cond until it is true (nil) or ctx ends (ctx.Err()).
func AwaitCtx(ctx context.Context, cond func() bool) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		if cond() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// Context is a context bounded by timeout and cancelled in t.Cleanup.
func Context(t testing.TB, timeout time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}
