package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// idPrefix starts every logical session id (docs/protocol.md#create-idempotency).
const idPrefix = "local-"

// fullIDLen is the length of a whole logical id: local- and a hex sha256.
const fullIDLen = len(idPrefix) + 64

// resolveSessionID turns what the user typed into a session id: a whole id
// as it is; a prefix of at least 8 characters after "local-" (the "local-"
// may be left out) into the one session it names (session.find). An
// ambiguous prefix lists its matches (exit 2); anything shorter goes to the
// gateway as typed, which answers not_found for what it does not know.
func resolveSessionID(ctx context.Context, c *client.Client, arg string) (string, error) {
	if len(arg) == fullIDLen && strings.HasPrefix(arg, idPrefix) {
		return arg, nil
	}
	prefix := arg
	if !strings.HasPrefix(prefix, idPrefix) {
		prefix = idPrefix + prefix
	}
	if len(prefix)-len(idPrefix) < protocol.FindMinPrefix || len(prefix) > fullIDLen {
		return arg, nil
	}
	res, err := c.FindSessions(ctx, prefix)
	if client.Reason(err) == protocol.ReasonUnknownMethod {
		return arg, nil // a gateway from before session.find: whole ids only
	}
	if err != nil {
		return "", callFailure("session.find", err)
	}
	switch {
	case len(res.Sessions) == 1:
		return res.Sessions[0].SessionID, nil
	case len(res.Sessions) == 0:
		return "", failf(exitRuntime, "no session id starts with %s (see `hermes sessions list --stored`)", protocol.Visible(prefix))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s is ambiguous; it starts the ids of:", protocol.Visible(prefix))
	for _, s := range res.Sessions {
		fmt.Fprintf(&b, "\n  %s  %s  %s", s.SessionID, s.StartedAt, oneLine(protocol.Visible(orDash(s.Title)), 40))
	}
	if res.More {
		b.WriteString("\n  …")
	}
	b.WriteString("\ngive more characters of the id")
	return "", usagef("%s", b.String())
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// latestSessionIn is the newest stored session (hidden, archived, tool and
// one-shot ones aside) whose cwd is dir: what `chat --continue` resumes.
func latestSessionIn(ctx context.Context, c *client.Client, dir string) (string, error) {
	scope, limit := "stored", 200
	res, err := c.ListSessions(ctx, protocol.SessionListParams{Scope: &scope, Limit: &limit})
	if err != nil {
		return "", callFailure("session.list", err)
	}
	want := sameDir(dir)
	for _, s := range res.Sessions {
		info, err := c.SessionInfo(ctx, s.SessionID)
		if err != nil {
			continue // not restorable (or gone): not one to continue
		}
		if want(info.Cwd) {
			return s.SessionID, nil
		}
	}
	return "", failf(exitRuntime, "no session to continue in %s; start one with `hermes chat`", protocol.Visible(dir))
}

// sameDir reports whether a path names dir: equal when cleaned, or after
// resolving symlinks (a session's cwd keeps the symlinks it was given).
func sameDir(dir string) func(string) bool {
	dir = filepath.Clean(dir)
	real, _ := filepath.EvalSymlinks(dir)
	return func(p string) bool {
		if p == "" {
			return false
		}
		if filepath.Clean(p) == dir {
			return true
		}
		r, err := filepath.EvalSymlinks(p)
		return err == nil && real != "" && r == real
	}
}

// completeSessionIDs completes a session id argument from the running
// gateway (never starting one): stored sessions and live ones, titles as
// descriptions.
func (e *env) completeSessionIDs(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 || e.resolveHome() != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
	defer cancel()
	c, err := connect(ctx, e.home, false)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer c.Close()
	seen := map[string]bool{}
	var out []cobra.Completion
	for _, scope := range []string{"live", "stored"} {
		limit := 200
		res, err := c.ListSessions(ctx, protocol.SessionListParams{Scope: &scope, Limit: &limit})
		if err != nil {
			continue
		}
		for _, s := range res.Sessions {
			if !seen[s.SessionID] {
				seen[s.SessionID] = true
				out = append(out, cobra.CompletionWithDesc(s.SessionID, oneLine(protocol.Visible(orDash(s.Title)), 50)))
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
