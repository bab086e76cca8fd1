package cli

import (
	"context"

	"github.com/hermes-gateway/hermes/internal/worker"
)

// workerCmd is `hermes worker`, an internal command that is not in `hermes
// help`: the daemon starts it for every safe_mode turn (SPEC §5) with a
// fresh environment, writes the turn's worker.Spec (API key included) as the
// first line on its stdin, and speaks the newline-delimited JSON protocol of
// package worker over stdin/stdout. It takes no arguments and ignores
// --home: everything it needs arrives in the spec.
func workerCmd(ctx context.Context, e *env, _ []string) error {
	return worker.Serve(ctx, e.io.In, e.io.Out)
}
