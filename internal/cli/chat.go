package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"github.com/hermes-gateway/hermes/internal/ids"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

// chatOptions are the flags of `hermes chat` (docs/protocol.md#commands).
type chatOptions struct {
	query        string // -q TEXT
	final        string // -z TEXT
	oneshot      bool   // -q or -z was given
	finalOnly    bool   // -z: print only message.complete.text
	resume       string // --resume ID (TUI); a unique prefix is resolved before use
	cont         bool   // --continue: resume the newest session of the cwd (TUI)
	model        string
	cwd          string
	toolsets     string // comma separated; "" = the defaults
	toolsetsSet  bool   // --toolsets was given (possibly empty: no tools)
	yolo         bool
	requestID    string
	submissionID string
	noAutostart  bool
}

const chatLong = `chat opens the terminal UI on a new gateway session (source tui), or on an
existing one with --resume ID or --continue. With -q TEXT or -z TEXT it is a
one-shot instead (source oneshot): create a session, submit TEXT, stream the
answer to stdout and exit 0 when the turn completed, 4 otherwise. TEXT "-"
reads the prompt from stdin. Without a terminal, a one-shot answers approvals
"deny" and clarify questions with an empty answer.`

func chatCommand(e *env) *cobra.Command {
	var o chatOptions
	c := &cobra.Command{
		Use:   "chat [-q TEXT | -z TEXT] [--resume ID | --continue]",
		Short: "chat with the agent: the terminal UI, or a one-shot prompt",
		Long:  chatLong,
		Example: "  hermes chat\n  hermes chat --continue\n  hermes chat -z 'what does main.go do?'\n" +
			"  git diff | hermes chat -q -",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("chat: unexpected argument %q (the prompt goes after -q or -z; see `hermes chat --help`)", args[0])
			}
			return nil
		},
	}
	o.flags(c.Flags())
	_ = c.RegisterFlagCompletionFunc("resume", e.completeSessionIDs)
	return e.leaf(c, func(ctx context.Context, _ []string) error {
		if err := o.settle(c.Flags()); err != nil {
			return err
		}
		if o.oneshot {
			return runOneshot(ctx, e, o)
		}
		return runTUI(ctx, e, o)
	})
}

// flags declares the flags of chat on fs.
func (o *chatOptions) flags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.query, "query", "q", "", "one-shot: submit `TEXT` and stream the answer (- reads stdin)")
	fs.StringVarP(&o.final, "final", "z", "", "one-shot: submit `TEXT` and print only the final answer (- reads stdin)")
	fs.StringVar(&o.resume, "resume", "", "attach the terminal UI to session `ID` (or a unique prefix of 8+ characters)")
	fs.BoolVar(&o.cont, "continue", false, "attach the terminal UI to the most recent session of this directory (--cwd)")
	fs.StringVar(&o.model, "model", "", "model of the new session (default: model.default)")
	fs.StringVar(&o.cwd, "cwd", "", "working directory of the new session (default: the current directory)")
	fs.StringVar(&o.toolsets, "toolsets", "", "comma-separated toolsets of the new session; \"\" means none (default: the platform's)")
	fs.BoolVar(&o.yolo, "yolo", false, "run dangerous commands without asking")
	fs.StringVar(&o.requestID, "request-id", "", "idempotency key of session.create")
	fs.StringVar(&o.submissionID, "submission-id", "", "idempotency key of prompt.submit (one-shot only)")
	fs.BoolVar(&o.noAutostart, "no-autostart", false, "fail (exit 3) instead of starting the daemon")
}

// settle derives what the flags given on fs mean and checks their
// combination.
func (o *chatOptions) settle(fs *pflag.FlagSet) error {
	o.oneshot = fs.Changed("query") || fs.Changed("final")
	o.finalOnly = fs.Changed("final")
	o.toolsetsSet = fs.Changed("toolsets")
	return checkChat(*o)
}

func checkChat(o chatOptions) error {
	switch {
	case o.oneshot && o.query != "" && o.final != "":
		return usagef("chat: -q and -z exclude each other")
	case o.oneshot && (o.resume != "" || o.cont):
		return usagef("chat: --resume and --continue are for the terminal UI, not with -q or -z")
	case o.resume != "" && o.cont:
		return usagef("chat: --resume ID and --continue exclude each other")
	case o.oneshot && o.text() == "":
		return usagef("chat: -q/-z need a non-empty prompt")
	case !o.oneshot && o.submissionID != "":
		return usagef("chat: --submission-id needs -q or -z")
	}
	return nil
}

// text is the one-shot prompt as given ("-" = stdin).
func (o chatOptions) text() string {
	if o.finalOnly {
		return o.final
	}
	return o.query
}

// promptText resolves "-" to stdin.
func (o chatOptions) promptText(in io.Reader) (string, error) {
	t := o.text()
	if t != "-" {
		return t, nil
	}
	if in == nil {
		return "", usagef("chat: no standard input to read the prompt from")
	}
	b, err := io.ReadAll(in)
	if err != nil {
		return "", failf(exitRuntime, "chat: read stdin: %v", err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", usagef("chat: the prompt read from stdin is empty")
	}
	return strings.TrimRight(string(b), "\n"), nil
}

// createParams builds session.create for source src.
func (o chatOptions) createParams(src string) (protocol.SessionCreateParams, error) {
	p := protocol.SessionCreateParams{Source: &src}
	reqID := o.requestID
	if reqID == "" {
		reqID = ids.New(src+"-", 16)
	}
	p.RequestID = &reqID
	cwd, err := o.workDir()
	if err != nil {
		return p, err
	}
	p.Cwd = &cwd
	if o.model != "" {
		p.Model = &o.model
	}
	if o.toolsetsSet {
		ts := splitList(o.toolsets)
		p.Toolsets = &ts
	}
	if o.yolo {
		p.Yolo = &o.yolo
	}
	return p, nil
}

// workDir is --cwd, else the current directory, absolute.
func (o chatOptions) workDir() (string, error) {
	cwd := o.cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", failf(exitRuntime, "chat: no current directory: %v", err)
		}
		cwd = wd
	}
	if abs, err := filepath.Abs(cwd); err == nil {
		cwd = abs
	}
	return cwd, nil
}

func splitList(s string) []string {
	out := []string{}
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// isTerminal reports whether r is a terminal device.
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// callFailure maps a failed call to an exit error: a request the gateway
// refused as invalid is a usage error, a lost connection is "unavailable".
func callFailure(what string, err error) error {
	var ce *rpc.CallError
	switch {
	case errors.As(err, &ce) && (ce.Reason == protocol.ReasonInvalidParams || ce.Reason == protocol.ReasonUnknownSkill):
		return usagef("%s: %s", what, describeCallError(ce))
	case errors.As(err, &ce):
		return failf(exitRuntime, "%s: %s", what, describeCallError(ce))
	case errors.Is(err, rpc.ErrClosed):
		return failf(exitUnavailable, "%s: the gateway closed the connection", what)
	}
	return failf(exitRuntime, "%s: %v", what, err)
}

func describeCallError(ce *rpc.CallError) string {
	s := string(ce.Reason)
	if s == "" {
		s = ce.Message
	}
	if ce.Detail != "" {
		s += ": " + ce.Detail
	}
	return s
}
