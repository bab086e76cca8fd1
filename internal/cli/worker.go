package cli

import (
	"github.com/spf13/cobra"

	"github.com/hermes-gateway/hermes/internal/worker"
)

// workerCommand is `hermes worker`, an internal command that is not in `hermes
// help`: the daemon starts it for every safe_mode turn (docs/protocol.md#safe-mode) with a
// fresh environment, writes the turn's worker.Spec (API key included) as the
// first line on its stdin, and speaks the newline-delimited JSON protocol of
// package worker over stdin/stdout. It takes no arguments and ignores
// --home: everything it needs arrives in the spec.
func workerCommand(e *env) *cobra.Command {
	c := &cobra.Command{Use: "worker", Short: "internal: one safe_mode turn for the daemon", Hidden: true, DisableFlagParsing: true}
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		e.ran = true
		return worker.Serve(cmd.Context(), e.io.In, e.io.Out)
	}
	return c
}
