// Package service installs the gateway as a systemd user service
// (`hermes gateway install|uninstall`): it writes
// ~/.config/systemd/user/hermes-gateway.service, runs `systemctl --user
// daemon-reload` and `enable --now` (or `disable --now` and removes the
// unit), and says when lingering is off, since without it a user service
// stops at logout and does not start at boot.
//
// It imports nothing internal and must never import daemon or config: the
// unit only names the binary and its home, and systemd starts the daemon
// like any other command.
//
// The unit's hardening is what a user unit can apply without breaking the
// tool sandbox (docs/security.md): the sandbox needs unprivileged user
// namespaces, mount namespaces and Landlock in the gateway's own process.
//   - NoNewPrivileges=yes is compatible: it is a prctl bit that the sandbox
//     sets anyway before Landlock and seccomp; an unprivileged user
//     namespace needs no privileges to gain.
//   - LockPersonality, RestrictRealtime, RestrictSUIDSGID are seccomp
//     filters that no tool needs to cross; they stack with the sandbox's.
//   - UMask=0077 matches the daemon's own private umask.
//   - Not set, on purpose: ProtectSystem, ProtectHome, PrivateTmp,
//     PrivateDevices, ProtectKernel*, ReadWritePaths and the like. In a user
//     unit systemd can only apply them by implicitly turning on
//     PrivateUsers=, which runs the gateway in a user namespace that maps
//     only its own uid; the sandbox's nested namespaces and the uid/gid
//     maps its helper writes then fail, and ProtectSystem/ProtectHome would
//     also make the user's projects read-only to the tools. PrivateUsers
//     and RestrictNamespaces would forbid the sandbox outright, and
//     MemoryDenyWriteExecute / SystemCallFilter would be inherited by every
//     tool (JIT runtimes such as node or java break).
package service

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
)

// UnitName is the unit Install writes.
const UnitName = "hermes-gateway.service"

// DefaultLingerDir is where logind records lingering users (one file per
// user name).
const DefaultLingerDir = "/var/lib/systemd/linger"

// Runner runs a command and returns its combined output. The default runs
// it with os/exec; tests pass a fake.
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// Options configure Install and Uninstall. Only Home is required.
type Options struct {
	Home       string // the profile home; made absolute
	Executable string // the hermes binary; "" = os.Executable()
	// ConfigHome is $XDG_CONFIG_HOME; "" = $XDG_CONFIG_HOME, else ~/.config.
	ConfigHome string
	// Path is the PATH the unit gives the gateway (and so its tools); "" =
	// this process's PATH. A user manager's own PATH is minimal.
	Path      string
	User      string // whose lingering to check; "" = the current user
	LingerDir string // "" = DefaultLingerDir
	Run       Runner // nil = os/exec
}

// Result says what Install or Uninstall did.
type Result struct {
	UnitPath string   // the unit file
	Replaced bool     // Install: a unit was there and was rewritten
	Removed  bool     // Uninstall: a unit was there and was removed
	Commands []string // the systemctl commands run, in order
	Linger   bool     // lingering is on for the user
	// Hint is one line for the user, or "": the loginctl enable-linger
	// command when lingering is off (Install).
	Hint string
}

// Install writes the unit for opts.Home, reloads the user manager and
// enables and starts the service. A unit already there is replaced (it may
// name another home or binary). Errors from systemctl carry its output.
func Install(ctx context.Context, opts Options) (Result, error) {
	o, err := resolve(opts)
	if err != nil {
		return Result{}, err
	}
	res := Result{UnitPath: o.unitPath()}
	if _, err := os.Stat(res.UnitPath); err == nil {
		res.Replaced = true
	}
	if err := writeUnit(res.UnitPath, Unit(o.Executable, o.Home, o.Path)); err != nil {
		return res, err
	}
	for _, args := range [][]string{{"--user", "daemon-reload"}, {"--user", "enable", "--now", UnitName}} {
		if err := o.systemctl(ctx, &res, args...); err != nil {
			return res, err
		}
	}
	res.Linger = lingering(o.LingerDir, o.User)
	if !res.Linger {
		res.Hint = fmt.Sprintf("lingering is off for %s: the gateway stops at logout and does not start at boot; run `loginctl enable-linger %s` to keep it running",
			o.User, o.User)
	}
	return res, nil
}

// Uninstall stops and disables the service and removes the unit. Without a
// unit it does nothing (Removed false, no error).
func Uninstall(ctx context.Context, opts Options) (Result, error) {
	o, err := resolve(opts)
	if err != nil {
		return Result{}, err
	}
	res := Result{UnitPath: o.unitPath(), Linger: lingering(o.LingerDir, o.User)}
	if _, err := os.Stat(res.UnitPath); errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err := o.systemctl(ctx, &res, "--user", "disable", "--now", UnitName); err != nil {
		return res, err
	}
	if err := os.Remove(res.UnitPath); err != nil {
		return res, fmt.Errorf("remove %s: %w", res.UnitPath, err)
	}
	res.Removed = true
	return res, o.systemctl(ctx, &res, "--user", "daemon-reload")
}

// resolve fills in the defaults of opts.
func resolve(o Options) (Options, error) {
	if o.Home == "" {
		return o, errors.New("service: no profile home (set HERMES_HOME or pass --home DIR)")
	}
	var err error
	if o.Home, err = filepath.Abs(o.Home); err != nil {
		return o, fmt.Errorf("service: home: %w", err)
	}
	if o.Executable == "" {
		if o.Executable, err = os.Executable(); err != nil {
			return o, fmt.Errorf("service: the hermes binary: %w", err)
		}
	}
	if o.Executable, err = filepath.Abs(o.Executable); err != nil {
		return o, fmt.Errorf("service: the hermes binary: %w", err)
	}
	if strings.ContainsAny(o.Home+o.Executable, "\n\r\x00") {
		return o, errors.New("service: the home and the binary path must not contain line breaks or NUL")
	}
	if o.ConfigHome == "" {
		o.ConfigHome = os.Getenv("XDG_CONFIG_HOME")
	}
	if o.ConfigHome == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return o, fmt.Errorf("service: no config directory: %w", err)
		}
		o.ConfigHome = filepath.Join(home, ".config")
	}
	if o.Path == "" {
		o.Path = os.Getenv("PATH")
	}
	if o.User == "" {
		if u, err := user.Current(); err == nil {
			o.User = u.Username
		}
	}
	if o.LingerDir == "" {
		o.LingerDir = DefaultLingerDir
	}
	if o.Run == nil {
		o.Run = execRun
	}
	return o, nil
}

func (o Options) unitPath() string { return filepath.Join(o.ConfigHome, "systemd", "user", UnitName) }

// systemctl runs one systemctl command and records it in res.
func (o Options) systemctl(ctx context.Context, res *Result, args ...string) error {
	res.Commands = append(res.Commands, "systemctl "+strings.Join(args, " "))
	out, err := o.Run(ctx, "systemctl", args...)
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("systemctl %s: %s", strings.Join(args, " "), msg)
	}
	return nil
}

func execRun(ctx context.Context, name string, args ...string) ([]byte, error) {
	return exec.CommandContext(ctx, name, args...).CombinedOutput()
}

// writeUnit writes data to path (0644, like any unit file; it holds no
// secret) through a temporary file and a rename.
func writeUnit(path, data string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil { // whatever the umask
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// lingering reports whether logind keeps user's manager running without a
// session (a file named after the user in dir).
func lingering(dir, user string) bool {
	if user == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, user))
	return err == nil
}
