package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// sessionsCheckpointsCommand is `hermes sessions checkpoints ID`: the
// session's checkpoints, oldest first (session.checkpoints).
func sessionsCheckpointsCommand(e *env) *cobra.Command {
	var asJSON bool
	c := e.leaf(&cobra.Command{
		Use:               "checkpoints ID",
		Short:             "list the checkpoints a rewind can return to (session.checkpoints)",
		Args:              exactArgs(1),
		ValidArgsFunction: e.completeSessionIDs,
	}, func(ctx context.Context, args []string) error { return sessionsCheckpoints(ctx, e, args[0], asJSON) })
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func sessionsCheckpoints(ctx context.Context, e *env, arg string, asJSON bool) error {
	_, err := onSession(ctx, e, arg, "session.checkpoints", asJSON, func(c *client.Client, id string) (protocol.SessionCheckpointsResult, error) {
		return c.Checkpoints(ctx, id)
	}, func(w io.Writer, _ string, res protocol.SessionCheckpointsResult) error {
		printCheckpoints(w, res.Checkpoints)
		return nil
	})
	return err
}

func printCheckpoints(w io.Writer, cks []protocol.Checkpoint) {
	if len(cks) == 0 {
		fmt.Fprintln(w, "no checkpoints (is `checkpoints` on for this session?)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECKPOINT\tCREATED\tFILES\tTURN")
	for _, ck := range cks {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", protocol.Visible(ck.CheckpointID), protocol.Visible(ck.CreatedAt),
			ck.Files, protocol.Visible(oneLine(ck.Summary, 59)))
	}
	_ = tw.Flush()
}

// sessionsRewindCommand is `hermes sessions rewind ID CHECKPOINT
// [--files|--conversation|--both] [--force]` (session.rewind). Conflicts
// (files the user changed since the agent wrote them) change nothing and
// exit 1 with the paths listed, unless --force.
func sessionsRewindCommand(e *env) *cobra.Command {
	var files, conversation, both, force, asJSON bool
	c := e.leaf(&cobra.Command{
		Use:               "rewind ID CHECKPOINT",
		Short:             "return the files, the conversation or both to a checkpoint (session.rewind)",
		Args:              exactArgs(2),
		ValidArgsFunction: e.completeSessionIDs,
	}, func(ctx context.Context, args []string) error {
		mode, err := rewindMode(files, conversation, both)
		if err != nil {
			return err
		}
		return sessionsRewind(ctx, e, args[0], protocol.SessionRewindParams{CheckpointID: args[1], Mode: mode, Force: &force}, asJSON)
	})
	c.Flags().BoolVar(&files, "files", false, "restore the files (the default)")
	c.Flags().BoolVar(&conversation, "conversation", false, "continue from the conversation as it was before that turn")
	c.Flags().BoolVar(&both, "both", false, "files first, then the conversation")
	c.Flags().BoolVar(&force, "force", false, "overwrite files changed since the agent wrote them")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func rewindMode(files, conversation, both bool) (string, error) {
	n := 0
	mode := "files"
	for _, m := range []struct {
		on   bool
		name string
	}{{files, "files"}, {conversation, "conversation"}, {both, "both"}} {
		if m.on {
			n, mode = n+1, m.name
		}
	}
	if n > 1 {
		return "", usagef("choose one of --files, --conversation and --both")
	}
	return mode, nil
}

func sessionsRewind(ctx context.Context, e *env, arg string, p protocol.SessionRewindParams, asJSON bool) error {
	res, err := onSession(ctx, e, arg, "session.rewind", asJSON, func(c *client.Client, id string) (protocol.SessionRewindResult, error) {
		p.SessionID = id
		return c.Rewind(ctx, p)
	}, func(w io.Writer, _ string, res protocol.SessionRewindResult) error {
		printRewind(w, res)
		return nil
	})
	if err != nil {
		return err
	}
	if res.Status == "conflicts" {
		return failf(exitRuntime, "nothing was changed: %d file(s) changed since the agent wrote them; "+
			"look at them, then repeat with --force to overwrite them", len(res.Conflicts))
	}
	return nil
}

func printRewind(w io.Writer, res protocol.SessionRewindResult) {
	for _, l := range []struct {
		label string
		paths []string
	}{{"restored", res.Restored}, {"removed", res.Removed}, {"conflict", res.Conflicts}} {
		for _, p := range l.paths {
			fmt.Fprintf(w, "%-9s %s\n", l.label, protocol.Visible(p))
		}
	}
	fmt.Fprintf(w, "%s: %d restored, %d removed, %d conflicts\n", res.Status, len(res.Restored), len(res.Removed), len(res.Conflicts))
}
