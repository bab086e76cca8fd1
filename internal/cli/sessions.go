package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// sessionsCommand is `hermes sessions …` (docs/protocol.md#commands): the
// session picker, transcripts and admin verbs over the WebSocket protocol.
// They never start a daemon: with none running they exit 3. Wherever they
// take a session ID, a unique prefix of at least 8 characters after
// "local-" works too.
func sessionsCommand(e *env) *cobra.Command {
	verbs := []*cobra.Command{
		sessionsListCommand(e), sessionsInfoCommand(e), sessionsResolveCommand(e),
		sessionsShowCommand(e), sessionsExportCommand(e), sessionsImportCommand(e),
		sessionsCheckpointsCommand(e), sessionsRewindCommand(e),
	}
	return group(&cobra.Command{Use: "sessions", Short: "list sessions, show, export and import transcripts"}, verbs...)
}

func sessionsListCommand(e *env) *cobra.Command {
	var stored, asJSON bool
	var limit int
	c := e.leaf(&cobra.Command{
		Use:   "list",
		Short: "list the live sessions (or every stored one with --stored)",
		Args:  noArgs,
	}, func(ctx context.Context, _ []string) error { return sessionsList(ctx, e, stored, asJSON, limit) })
	c.Flags().BoolVar(&stored, "stored", false, "list every stored session, not only the live ones")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().IntVar(&limit, "limit", 0, "at most `N` sessions (1..200; default 50)")
	return c
}

func sessionsList(ctx context.Context, e *env, stored, asJSON bool, limit int) error {
	c, err := connect(ctx, e.home, false)
	if err != nil {
		return err
	}
	defer c.Close()
	scope := "live"
	if stored {
		scope = "stored"
	}
	p := protocol.SessionListParams{Scope: &scope}
	if limit != 0 {
		p.Limit = &limit
	}
	res, err := c.ListSessions(ctx, p)
	if err != nil {
		return callFailure("session.list", err)
	}
	if asJSON {
		return writeJSON(e.io.Out, res)
	}
	printSessions(e.io.Out, res)
	return nil
}

// onSession is the shape of the verbs on one session: connect to the
// running daemon (never starting one), resolve arg (an ID or a unique
// prefix), call with the session ID, then print the result (as JSON with
// asJSON, else with print) and return it. call's error is wrapped with
// callFailure(method, …); with method "" it is returned as it is (call
// names its own RPCs).
func onSession[R any](ctx context.Context, e *env, arg, method string, asJSON bool,
	call func(c *client.Client, id string) (R, error), print func(w io.Writer, id string, res R) error) (R, error) {
	var zero R
	c, err := connect(ctx, e.home, false)
	if err != nil {
		return zero, err
	}
	defer c.Close()
	id, err := resolveSessionID(ctx, c, arg)
	if err != nil {
		return zero, err
	}
	res, err := call(c, id)
	if err != nil {
		if method != "" {
			err = callFailure(method, err)
		}
		return zero, err
	}
	if asJSON {
		return res, writeJSON(e.io.Out, res)
	}
	return res, print(e.io.Out, id, res)
}

// writeJSON prints v as indented JSON. Runes a terminal would interpret
// (DEL, C1 controls, bidi marks; json already escapes C0) are written as
// \u escapes: the same JSON value, and nothing in it drives the terminal.
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	var out strings.Builder
	out.Grow(b.Len())
	for _, r := range b.String() {
		if r >= 0x7f && protocol.Spoofing(r) {
			fmt.Fprintf(&out, "\\u%04x", r)
		} else {
			out.WriteRune(r)
		}
	}
	_, err := io.WriteString(w, out.String())
	return err
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", s.SessionID, oneLine(protocol.Visible(title), 40), s.Source, s.StartedAt, s.MessageCount, state)
	}
	_ = tw.Flush()
}

func sessionsInfoCommand(e *env) *cobra.Command {
	var asJSON bool
	c := e.leaf(&cobra.Command{
		Use:               "info ID",
		Short:             "show one session (session.info)",
		Args:              exactArgs(1),
		ValidArgsFunction: e.completeSessionIDs,
	}, func(ctx context.Context, args []string) error { return sessionsInfo(ctx, e, args[0], asJSON) })
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func sessionsInfo(ctx context.Context, e *env, arg string, asJSON bool) error {
	_, err := onSession(ctx, e, arg, "session.info", asJSON, func(c *client.Client, id string) (protocol.SessionInfo, error) {
		return c.SessionInfo(ctx, id)
	}, func(w io.Writer, id string, info protocol.SessionInfo) error {
		printInfo(w, id, info)
		return nil
	})
	return err
}

func printInfo(w io.Writer, id string, info protocol.SessionInfo) {
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-10s %s\n", k+":", protocol.Visible(v))
		}
	}
	row("session", id)
	row("title", info.Title)
	row("source", info.Source)
	row("model", info.Model)
	row("usage", info.Usage.String())
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

func sessionsResolveCommand(e *env) *cobra.Command {
	return e.leaf(&cobra.Command{
		Use:               "resolve ID ADMISSION",
		Short:             "settle an admission left unknown by a stopped daemon, so the session's queue goes on",
		Args:              exactArgs(2),
		ValidArgsFunction: e.completeSessionIDs,
	}, func(ctx context.Context, args []string) error { return sessionsResolve(ctx, e, args[0], args[1]) })
}

// sessionsResolve settles an unknown admission: resume first to learn its
// execution_generation from the snapshot's pending list.
func sessionsResolve(ctx context.Context, e *env, arg, admission string) error {
	_, err := onSession(ctx, e, arg, "", false, func(c *client.Client, sid string) (protocol.Receipt, error) {
		return resolveUnknown(ctx, c, sid, admission)
	}, func(w io.Writer, _ string, rec protocol.Receipt) error {
		outcome := "-"
		if rec.Outcome != nil {
			outcome = *rec.Outcome
		}
		fmt.Fprintf(w, "admission %s: %s (%s); the session's queue goes on\n", rec.AdmissionID, rec.Status, outcome)
		return nil
	})
	return err
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
