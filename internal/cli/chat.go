package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hermes-gateway/hermes/internal/ids"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

// chatOptions are the flags of `hermes chat` (SPEC §1).
type chatOptions struct {
	query        string // -q TEXT
	final        string // -z TEXT
	oneshot      bool   // -q or -z was given
	finalOnly    bool   // -z: print only message.complete.text
	resume       string // --resume ID (TUI)
	model        string
	cwd          string
	toolsets     string // comma separated; "" = the defaults
	toolsetsSet  bool   // --toolsets was given (possibly empty: no tools)
	yolo         bool
	requestID    string
	submissionID string
	noAutostart  bool
}

func chatCmd(ctx context.Context, e *env, args []string) error {
	o, err := parseChat(e, args)
	if err != nil {
		return err
	}
	if o.oneshot {
		return runOneshot(ctx, e, o)
	}
	return runTUI(ctx, e, o)
}

func parseChat(e *env, args []string) (chatOptions, error) {
	var o chatOptions
	fs := newFlags("chat", e)
	fs.StringVar(&o.query, "q", "", "one-shot: submit TEXT and stream the answer (- reads stdin)")
	fs.StringVar(&o.final, "z", "", "one-shot: submit TEXT and print only the final answer (- reads stdin)")
	fs.StringVar(&o.resume, "resume", "", "attach the terminal UI to session ID")
	fs.StringVar(&o.model, "model", "", "model of the new session (default: model.default)")
	fs.StringVar(&o.cwd, "cwd", "", "working directory of the new session (default: the current directory)")
	fs.StringVar(&o.toolsets, "toolsets", "", "comma-separated toolsets of the new session (default: the platform's)")
	fs.BoolVar(&o.yolo, "yolo", false, "run dangerous commands without asking")
	fs.StringVar(&o.requestID, "request-id", "", "idempotency key of session.create")
	fs.StringVar(&o.submissionID, "submission-id", "", "idempotency key of prompt.submit")
	fs.BoolVar(&o.noAutostart, "no-autostart", false, "fail (exit 3) instead of starting the daemon")
	if err := parse(fs, args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, usagef("chat: unexpected argument %q (the prompt goes after -q or -z)", fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "q":
			o.oneshot = true
		case "z":
			o.oneshot, o.finalOnly = true, true
		case "toolsets":
			o.toolsetsSet = true
		}
	})
	return o, checkChat(o)
}

func checkChat(o chatOptions) error {
	switch {
	case o.oneshot && o.query != "" && o.final != "":
		return usagef("chat: -q and -z exclude each other")
	case o.oneshot && o.resume != "":
		return usagef("chat: --resume is for the terminal UI, not with -q or -z")
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
	cwd := o.cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return p, failf(exitRuntime, "chat: no current directory: %v", err)
		}
		cwd = wd
	}
	if abs, err := filepath.Abs(cwd); err == nil {
		cwd = abs
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

// The client commands register themselves so that cli.go, which others
// edit concurrently, needs no change for them.
func init() {
	commands["chat"] = chatCmd
	commands["sessions"] = sessionsCmd
	commands["acp"] = acpCmd
}
