// Package cli is the composition root of the hermes binary: it parses the
// command line and runs the daemon (gateway run), the admin verbs over the
// control socket and the WebSocket protocol, and the clients.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/hermes-gateway/hermes/internal/daemon"
)

// Exit codes (SPEC §1).
const (
	exitOK          = 0
	exitRuntime     = 1
	exitUsage       = 2
	exitUnavailable = 3
	exitTurnFailed  = 4
	exitDamaged     = 5
)

// Stdio is the process's standard streams.
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}

// Version is set at link time (-ldflags "-X …/cli.Version=v1.2.3").
var Version = "dev"

// env is one invocation: the global flags and the streams.
type env struct {
	home string
	io   Stdio
}

type command func(ctx context.Context, e *env, args []string) error

var commands = map[string]command{
	"gateway": gatewayCmd,
	"version": versionCmd,
	"help":    helpCmd,
	"worker":  workerCmd,
}

// Main runs the command line and returns the exit code.
func Main(ctx context.Context, args []string, stdio Stdio) int {
	e := &env{io: stdio}
	args, err := e.globalFlags(args)
	if err == nil && len(args) == 0 {
		err = usagef("no command; try `hermes help`")
	}
	if err == nil {
		cmd, ok := commands[args[0]]
		if !ok {
			err = usagef("unknown command %q; try `hermes help`", args[0])
		} else {
			err = cmd(ctx, e, args[1:])
		}
	}
	return e.report(err)
}

// globalFlags takes --home DIR anywhere on the line.
func (e *env) globalFlags(args []string) ([]string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--home":
			if i+1 >= len(args) {
				return nil, usagef("--home needs a directory")
			}
			e.home = args[i+1]
			i++
		case strings.HasPrefix(a, "--home="):
			e.home = strings.TrimPrefix(a, "--home=")
		default:
			rest = append(rest, a)
		}
	}
	if e.home == "" {
		e.home = os.Getenv("HERMES_HOME")
	}
	if e.home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, usagef("no home directory: set HERMES_HOME or pass --home DIR")
		}
		e.home = filepath.Join(h, ".hermes")
	}
	if abs, err := filepath.Abs(e.home); err == nil {
		e.home = abs
	}
	return rest, nil
}

// exitError carries an exit code and a one-line message.
type exitError struct {
	code int
	msg  string
}

func (x *exitError) Error() string { return x.msg }

func usagef(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

func failf(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

func (e *env) report(err error) int {
	if err == nil {
		return exitOK
	}
	var x *exitError
	var d *daemon.ExitError
	switch {
	case errors.As(err, &x):
		if x.msg != "" {
			fmt.Fprintln(e.io.Err, "hermes:", x.msg)
		}
		return x.code
	case errors.As(err, &d):
		fmt.Fprintln(e.io.Err, "hermes:", d.Msg)
		return d.Code
	}
	fmt.Fprintln(e.io.Err, "hermes:", err)
	return exitRuntime
}

func versionCmd(_ context.Context, e *env, _ []string) error {
	commit := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				commit = s.Value
			}
		}
	}
	fmt.Fprintf(e.io.Out, "hermes %s (commit %s, %s)\n", Version, commit, runtime.Version())
	return nil
}

const helpText = `hermes — a local gateway that owns coding-agent sessions

  hermes gateway run|start|stop|status [--json]   the daemon (foreground, detached, stop, status)
  hermes chat [-q TEXT | -z TEXT] [--resume ID]   chat with the agent (terminal UI or one-shot)
  hermes sessions list [--stored] [--json]        list sessions
  hermes sessions info ID [--json]                show one session
  hermes sessions resolve ID ADMISSION            settle an interrupted (unknown) admission
  hermes acp                                      Agent Client Protocol agent on stdio (editors)
  hermes dashboard                                print the dashboard link
  hermes version                                  version, commit, Go version

Global flag: --home DIR (default $HERMES_HOME, else ~/.hermes).
Exit codes: 0 ok, 1 runtime error, 2 usage, 3 gateway unavailable, 4 turn not completed, 5 damaged database.
`

func helpCmd(_ context.Context, e *env, _ []string) error {
	fmt.Fprint(e.io.Out, helpText)
	return nil
}
