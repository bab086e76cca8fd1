package daemon

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/hermes-gateway/hermes/internal/config"
	"github.com/hermes-gateway/hermes/internal/sandbox"
	"github.com/hermes-gateway/hermes/internal/session"
)

// setNonDumpable makes the daemon's /proc/<pid>/environ, mem, maps and
// fd links owned by root and closed to ptrace by same-uid processes: a tool
// process that escaped or runs without namespaces still cannot read the
// keys in the daemon's environment or memory (issue 9 item 3). Children
// are dumpable again after their exec.
func setNonDumpable() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return exitf(ExitRuntime, "cannot make the gateway non-dumpable (PR_SET_DUMPABLE): %v", err)
	}
	return nil
}

// launchers keeps one sandbox.Launcher per mode, made on first use: the
// profile's mode for new sessions, and whatever mode older sessions froze.
type launchers struct {
	exe string // the binary that serves sandbox.HelperArg

	mu     sync.Mutex
	byMode map[sandbox.Mode]*sandbox.Launcher // guarded by mu
}

func newLaunchers(exe string) *launchers {
	return &launchers{exe: exe, byMode: map[sandbox.Mode]*sandbox.Launcher{}}
}

// For returns the launcher of mode; an unknown mode (which config and
// receipt checks refuse) gets the strict one, never none.
func (l *launchers) For(mode sandbox.Mode) *sandbox.Launcher {
	switch mode {
	case sandbox.ModeAuto, sandbox.ModeStrict, sandbox.ModeOff:
	default:
		mode = sandbox.ModeStrict
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if la := l.byMode[mode]; la != nil {
		return la
	}
	la := sandbox.New(l.exe, mode)
	l.byMode[mode] = la
	return la
}

// sandboxStatus is what the profile's current sandbox.mode enforces here,
// for runtime.describe and the control socket.
func (d *daemon) sandboxStatus() sandbox.Status {
	return d.sandboxes.For(sandbox.Mode(d.settings.Settings().Sandbox.Mode)).Status()
}

// openSandbox makes the launcher of the configured mode and says what it
// enforces, loudly when that is less than the mode promises.
func (d *daemon) openSandbox() error {
	exe, err := os.Executable()
	if err != nil {
		return exitf(ExitRuntime, "cannot find the gateway binary for the tool sandbox: %v", err)
	}
	d.sandboxes = newLaunchers(exe)
	st := d.sandboxStatus()
	attrs := []any{"mode", st.Mode, "level", st.Level, "landlock_abi", st.LandlockABI, "detail", st.Detail}
	switch {
	case st.Mode == sandbox.ModeOff:
		d.log.Warn("sandbox.mode is off: tool processes run without a sandbox", attrs...)
	case st.Level != sandbox.LevelFull:
		d.log.Warn(fmt.Sprintf("tool sandbox weaker than %s", sandbox.LevelFull), attrs...)
	default:
		d.log.Info("tool sandbox", attrs...)
	}
	return nil
}

// sandboxSettings converts config.yaml sandbox.* to the frozen form.
func sandboxSettings(c config.Sandbox) session.SandboxPolicy {
	return session.SandboxPolicy{
		Mode: c.Mode, Network: c.Network != "off",
		WritableRoots: append([]string{}, c.WritableRoots...), HiddenPaths: append([]string{}, c.HiddenPaths...),
	}
}

// safeModeSandbox is the sandbox of safe_mode/ignore_user_config sessions:
// the code defaults, but never weaker than the profile's own settings (a
// profile in strict mode or without network keeps that, and its hidden
// paths stay hidden), since skipping user config must not lower the
// boundary the owner configured.
func safeModeSandbox(code, profile session.SandboxPolicy) *session.SandboxPolicy {
	out := code
	if profile.Mode == config.SandboxStrict {
		out.Mode = config.SandboxStrict
	}
	out.Network = code.Network && profile.Network
	out.WritableRoots = append([]string{}, code.WritableRoots...)
	out.HiddenPaths = append(append([]string{}, code.HiddenPaths...), profile.HiddenPaths...)
	return &out
}
