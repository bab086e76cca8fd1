package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// sessionsCmd is `hermes sessions list|info|resolve` (SPEC §1): the session
// picker and admin verbs over the WebSocket protocol. They never start a
// daemon: with none running they exit 3.
func sessionsCmd(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef("sessions needs a verb: list, info or resolve")
	}
	switch args[0] {
	case "list":
		return sessionsList(ctx, e, args[1:])
	case "info":
		return sessionsInfo(ctx, e, args[1:])
	case "resolve":
		return sessionsResolve(ctx, e, args[1:])
	}
	return usagef("unknown sessions verb %q: use list, info or resolve", args[0])
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments, and returns the positionals.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parse(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func sessionsList(ctx context.Context, e *env, args []string) error {
	fs := newFlags("sessions list", e)
	stored := fs.Bool("stored", false, "list every stored session, not only the live ones")
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("limit", 0, "at most this many sessions (1..200; default 50)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("sessions list takes no arguments")
	}
	c, err := connect(ctx, e.home, false)
	if err != nil {
		return err
	}
	defer c.Close()
	scope := "live"
	if *stored {
		scope = "stored"
	}
	p := protocol.SessionListParams{Scope: &scope}
	if *limit != 0 {
		p.Limit = limit
	}
	res, err := c.ListSessions(ctx, p)
	if err != nil {
		return callFailure("session.list", err)
	}
	if *asJSON {
		return writeJSON(e.io.Out, res)
	}
	printSessions(e.io.Out, res)
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printSessions(w io.Writer, res protocol.SessionListResult) {
	if len(res.Sessions) == 0 {
		fmt.Fprintf(w, "no %s sessions\n", res.Scope)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tTITLE\tSOURCE\tSTARTED\tMESSAGES\tSTATE")
	for _, s := range res.Sessions {
		state := "idle"
		if s.Running {
			state = "running"
		}
		title := s.Title
		if title == "" {
			title = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", s.SessionID, oneLine(title, 40), s.Source, s.StartedAt, s.MessageCount, state)
	}
	_ = tw.Flush()
}

func sessionsInfo(ctx context.Context, e *env, args []string) error {
	fs := newFlags("sessions info", e)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: hermes sessions info ID [--json]")
	}
	c, err := connect(ctx, e.home, false)
	if err != nil {
		return err
	}
	defer c.Close()
	info, err := c.SessionInfo(ctx, pos[0])
	if err != nil {
		return callFailure("session.info", err)
	}
	if *asJSON {
		return writeJSON(e.io.Out, info)
	}
	printInfo(e.io.Out, pos[0], info)
	return nil
}

func printInfo(w io.Writer, id string, info protocol.SessionInfo) {
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-10s %s\n", k+":", v)
		}
	}
	row("session", id)
	row("title", info.Title)
	row("source", info.Source)
	row("model", info.Model)
	row("cwd", info.Cwd)
	row("profile", info.ProfileID)
	row("protocol", info.DesktopProtocol)
	row("paused", info.PausedReason)
	flags := []string{}
	if info.Lazy {
		flags = append(flags, "lazy (no turn yet)")
	}
	if info.Archived {
		flags = append(flags, "archived")
	}
	row("state", strings.Join(flags, ", "))
	if len(info.LaunchRequest) > 0 && string(info.LaunchRequest) != "null" {
		row("launch", string(info.LaunchRequest))
	}
}

// sessionsResolve settles an unknown admission: resume first to learn its
// execution_generation from the snapshot's pending list.
func sessionsResolve(ctx context.Context, e *env, args []string) error {
	pos, err := parseInterleaved(newFlags("sessions resolve", e), args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("usage: hermes sessions resolve ID ADMISSION")
	}
	c, err := connect(ctx, e.home, false)
	if err != nil {
		return err
	}
	defer c.Close()
	rec, err := resolveUnknown(ctx, c, pos[0], pos[1])
	if err != nil {
		return err
	}
	outcome := "-"
	if rec.Outcome != nil {
		outcome = *rec.Outcome
	}
	fmt.Fprintf(e.io.Out, "admission %s: %s (%s); the session's queue goes on\n", rec.AdmissionID, rec.Status, outcome)
	return nil
}

func resolveUnknown(ctx context.Context, c *client.Client, sid, admission string) (protocol.Receipt, error) {
	snap, err := c.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &sid})
	if err != nil {
		return protocol.Receipt{}, callFailure("session.resume", err)
	}
	for _, p := range snap.Pending {
		if p.AdmissionID != admission {
			continue
		}
		if p.Status != protocol.StatusUnknown || p.ExecutionGeneration == nil {
			return protocol.Receipt{}, failf(exitRuntime, "admission %s is %s, not unknown: nothing to resolve", admission, p.Status)
		}
		rec, err := c.ResolveUnknown(ctx, protocol.ResolveUnknownParams{
			SessionID: sid, AdmissionID: admission, ExecutionGeneration: *p.ExecutionGeneration,
		})
		if err != nil {
			return rec, callFailure("prompt.resolve_unknown", err)
		}
		return rec, nil
	}
	return protocol.Receipt{}, failf(exitRuntime, "admission %s is not pending in session %s (already settled, or not this session's)", admission, sid)
}
