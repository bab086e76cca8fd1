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
// The home rule: when a writable root contains the user's home
// (Policy.Home; the default cwd is the home itself), the top level of the
// home is read-only, and so is everything beneath its dot-entries, while
// its other (non-dot, non-symlink, non-hidden) child directories stay
// writable: ~/project can be changed, ~/.bashrc, ~/.profile, ~/.aws/config
// or a new ~/.anything cannot be created or changed, whether or not they
// exist yet. Files directly in the home (~/notes.txt) are read-only too.
// See home_linux.go.
//
// At LevelFull the command is pid 1 of its pid namespace: when it exits or
// is killed, the kernel kills everything left in the namespace, so an
// interrupted turn leaves no orphans. It also inherits init's lot: orphans
// inside are reparented to it, and it ignores signals it has no handler
// for when they come from inside the namespace.
//
// The helper's exit status is 125 when the sandbox could not be built (one
// "hermes sandbox: …" line on stderr says why; nothing ran), 126 or 127
// when the command cannot be executed or found, as with env(1).
//
// Layout: sandbox.go and env.go are the API, with group_linux.go (the
// process group every agent-caused command leads, killed whole) and
// output.go (the capped buffer its output goes to); command_linux.go
// clones the helper and probes; helper_linux.go is the helper's sequence,
// with the mount view in view_linux.go, privileges in privs_linux.go, Landlock in
// landlock_linux.go and allow_linux.go, seccomp in seccomp_*.go.
//
// The package imports nothing internal; the daemon owns one Launcher.
package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
	LevelLandlock Level = "landlock+seccomp" // no user namespaces here: see below
	LevelNone     Level = "none"             // mode off, or nothing available
)

// What LevelLandlock cannot do, lacking a mount namespace: hidden paths are
// refused (EACCES), not replaced by empty ones, and the names inside a
// hidden directory stay listable; a directory that holds a hidden path
// (the home directory, when it is the cwd) gets no new entries, since a
// Landlock grant on it would reach into the hidden path; ReadOnlyPaths are
// not enforced: a Landlock grant cannot have a hole without every
// directory above the hole losing its own grant, so holes for .git/hooks
// and .git/config would forbid creating, removing and renaming entries
// directly in the cwd and directly in .git (git's index.lock, HEAD.lock:
// every git add, commit and checkout), which breaks the agent's ordinary
// work, and the cwd's read-only footholds are left to LevelFull; a unix socket
// under a hidden path is still connectable (Landlock up to ABI 7 does not
// govern connect to path sockets); the host's /tmp (unless TempDir) and
// /dev/shm are shared; there is no pid namespace, so the daemon's
// processes are visible in /proc (Landlock's signal scope and the seccomp
// filter keep the command from touching them) and only the process group,
// not the pid, ends background children; the network is the host's.

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
	// .hermes (DefaultReadOnly). LevelFull only. The directories between a
	// writable root and each of them (.git) cannot be renamed or removed,
	// so that the read-only ones cannot be taken away with their parent.
	//
	// Residual: footholds that do not exist when the command starts are
	// not protected: in a cwd without a repository a command may `git
	// init` and write .git/hooks/post-checkout, or mkdir .hermes and write
	// its configuration. That is the agent creating its own repository or
	// project configuration, as trusted as any other file it writes into
	// the cwd (a Makefile, package.json scripts): whoever runs git or
	// hermes there later runs what the agent wrote. From the next command
	// on they exist and are read-only like any other.
	ReadOnlyPaths []string `json:"read_only_paths,omitempty"`
	// Home is the user's home directory; "" = no home rule (package doc).
	Home string `json:"home,omitempty"`
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

// host is what the probe found this process can build. It is separate from
// Launcher so that tests can construct a Launcher for a machine that lacks
// something (newLauncher) without a global hook.
type host struct {
	userNS       bool   // the helper ran under the full clone flags and built the view
	userNSDetail string // why not, when !userNS
	landlockABI  int    // 0 = no Landlock
	abiDetail    string // why not, when landlockABI == 0
}

// New returns a Launcher that re-executes exe (os.Executable() of the
// daemon, or a test binary that calls MaybeHelper from TestMain) in mode,
// after probing what this machine supports. The probe runs once per exe
// and process; later calls reuse its answer.
func New(exe string, mode Mode) *Launcher {
	if mode == ModeOff {
		return &Launcher{exe: exe, mode: mode, status: Status{Mode: mode, Level: LevelNone, Detail: "sandbox.mode is off"}}
	}
	return newLauncher(exe, mode, probeCached(exe))
}

// newLauncher picks the level mode asks for from what h offers. Strict
// demands user namespaces; Landlock is the second layer wherever the kernel
// has it, in every mode, and its ABI is reported rather than required, so
// that strict works on kernels before 5.13 with the namespaces as the wall.
func newLauncher(exe string, mode Mode, h host) *Launcher {
	st := Status{Mode: mode, Level: LevelNone}
	var why []string
	if !h.userNS {
		why = append(why, "user namespaces: "+h.userNSDetail)
	}
	if h.landlockABI == 0 {
		why = append(why, "landlock: "+h.abiDetail)
	}
	switch {
	case h.userNS:
		st.Level, st.LandlockABI = LevelFull, h.landlockABI
	case mode == ModeAuto && h.landlockABI > 0:
		st.Level, st.LandlockABI = LevelLandlock, h.landlockABI
	}
	st.Detail = strings.Join(why, "; ")
	return &Launcher{exe: exe, mode: mode, status: st}
}

// Status reports what l enforces.
func (l *Launcher) Status() Status { return l.status }

// Command returns a command that runs argv under p with environment env
// (already allow-listed by the caller; see Environ). The caller sets
// Stdout/Stderr, starts and waits for it; killing its process (SIGKILL)
// ends every process inside the sandbox at LevelFull, and cancelling ctx
// kills its whole process group at every level. It returns ErrUnavailable
// (wrapped, with the reason) when the mode cannot be honoured.
//
// The helper exits 125 when it cannot build the sandbox (one line on
// stderr says why), 126 when the command cannot be executed and 127 when
// it is not found, like env(1); any other status is the command's own.
func (l *Launcher) Command(ctx context.Context, p Policy, env []string, argv ...string) (*exec.Cmd, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("sandbox: empty command")
	}
	if !filepath.IsAbs(p.Cwd) {
		return nil, fmt.Errorf("sandbox: cwd %q is not absolute", p.Cwd)
	}
	if env == nil {
		env = []string{} // a nil Env would hand the daemon's whole environment over
	}
	switch {
	case l.mode == ModeStrict && l.status.Level != LevelFull:
		return nil, fmt.Errorf("%w: strict mode needs user namespaces: %s", ErrUnavailable, l.status.Detail)
	case l.mode == ModeOff || l.status.Level == LevelNone:
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = withTmpdir(env, p.TempDir)
		return finish(cmd, p.Cwd, LevelNone, true), nil
	}
	spec := helperSpec{Policy: p, Level: l.status.Level, ABI: l.status.LandlockABI, UID: os.Geteuid(), GID: os.Getegid()}
	spec.ReadOnlyPaths = append(slices.Clone(p.ReadOnlyPaths), DefaultReadOnly(p.Cwd)...)
	ensureHooksDir(p.Cwd)
	js, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode policy: %w", err)
	}
	args := append([]string{HelperArg, string(js), "--"}, argv...)
	cmd := exec.CommandContext(ctx, l.exe, args...)
	cmd.Env = withTmpdir(env, p.TempDir)
	if l.status.Level == LevelFull {
		cmd.Env = withTmpdir(env, "/tmp") // TempDir, or a fresh tmpfs, is /tmp inside
	}
	return finish(cmd, p.Cwd, l.status.Level, p.Network), nil
}

// helperSpec is the POLICY-JSON argument of HelperArg: the policy plus
// what the parent decided to build, so that the helper does not probe.
type helperSpec struct {
	Policy
	Level Level `json:"level"`
	ABI   int   `json:"landlock_abi"` // Landlock rights to handle; 0 = none
	Probe bool  `json:"probe,omitempty"`
	// UID and GID are the daemon's effective ids, which the helper maps to
	// themselves at LevelFull (mapSelf): born unmapped, it sees only the
	// overflow id and cannot learn them. The kernel lets it map no other.
	UID int `json:"uid"`
	GID int `json:"gid"`
}

// withTmpdir returns env with TMPDIR set to dir (replacing any TMPDIR the
// caller passed: the host's may not be writable inside), or env itself
// when dir is "".
func withTmpdir(env []string, dir string) []string {
	if dir == "" {
		return env
	}
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") })
	return append(out, "TMPDIR="+dir)
}

// init dispatches the helper as early as the language allows: a package's
// init runs once its imports are initialized, which here is before the TUI
// and markdown packages' init (chroma's lexers and styles alone take
// ~15 ms) that would otherwise run first for every sandboxed command: the
// hermes binary's setup (`true` at LevelFull) measured 27-32 ms p50 with
// the dispatch in main and 3.6-4.4 ms with it here. The helper needs only this package's imports, all
// initialized by then; MaybeHelper in main stays as the documented entry.
func init() { MaybeHelper() }

// MaybeHelper runs the helper and exits when os.Args asks for HelperArg.
// The binary's main and the TestMain of every package whose tests run
// sandboxed commands call it first (this package's init already does, as
// early as possible; the calls keep the dispatch explicit).
func MaybeHelper() {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		runHelper(os.Args[2:]) // never returns
	}
}
