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

	"github.com/spf13/cobra"

	"github.com/hermes-gateway/hermes/internal/daemon"
)

// Exit codes (docs/protocol.md#exit-codes).
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
	home string // the profile home, absolute; set by resolveHome before a command runs
	io   Stdio

	homeFlag string // --home as given; "" = $HERMES_HOME, else ~/.hermes
	ran      bool   // a command's own code ran: its errors are its own, not usage errors
}

// Main runs the command line and returns the exit code.
func Main(ctx context.Context, args []string, stdio Stdio) int {
	e := &env{io: stdio}
	root := newRoot(e)
	root.SetArgs(normalizeArgs(root, args))
	cmd, err := root.ExecuteContextC(ctx)
	return e.report(cmd, err)
}

// resolveHome settles the profile home: --home, else $HERMES_HOME, else
// ~/.hermes; always absolute.
func (e *env) resolveHome() error {
	e.home = e.homeFlag
	if e.home == "" {
		e.home = os.Getenv("HERMES_HOME")
	}
	if e.home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return usagef("no home directory: set HERMES_HOME or pass --home DIR")
		}
		e.home = filepath.Join(h, ".hermes")
	}
	if abs, err := filepath.Abs(e.home); err == nil {
		e.home = abs
	}
	return nil
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

// report prints err and returns its exit code. An error the command line
// library raised before any command ran (a bad flag, a missing argument)
// is a usage error: exit 2.
func (e *env) report(cmd *cobra.Command, err error) int {
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
	case !e.ran:
		path := "hermes"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(e.io.Err, "hermes: %v (see `%s --help`)\n", err, path)
		return exitUsage
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
