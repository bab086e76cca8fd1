package authority

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"

	"github.com/hermes-gateway/hermes/internal/sandbox"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// shellStartupFiles run code in every later shell of the user: file tools
// always ask before writing them, wherever the writable roots are.
var shellStartupFiles = []string{
	".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".config/fish/config.fish",
}

// sandboxEnv fills the sandbox part of a tool Env from the session's
// frozen sandbox settings (the profile's current ones for receipts older
// than the sandbox): the launcher for the frozen mode, the policy every
// command runs under, and the paths file tools treat specially.
func (b turnBuilder) sandboxEnv(env *tools.Env, sid string, pol session.Policy, set Settings) {
	box := pol.Sandbox
	if box == nil {
		box = &set.Sandbox
	}
	hidden := append(b.profileHomePaths(), expandPaths(box.HiddenPaths)...)
	writable := expandPaths(box.WritableRoots)
	env.ProfileHome = b.profileHome
	env.WritableRoots = writable
	env.ProtectedPaths = append(append([]string{}, hidden...), startupFiles()...)
	env.UserHome = userHome()
	env.EnvPassthrough = set.EnvPassthrough
	temp := b.sessionTempDir(sid)
	boxHidden := hidden
	if temp != "" {
		// The other sessions' temp directories beside this one: in view
		// where /tmp is not replaced (the landlock level, a TMPDIR other
		// than /tmp, a writable root that holds it).
		boxHidden = append(slices.Clone(hidden), filepath.Dir(temp))
	}
	env.SandboxPolicy = sandbox.Policy{
		Cwd:           pol.Cwd,
		WritableRoots: writable,
		HiddenPaths:   boxHidden,
		ReadOnlyPaths: sandbox.DefaultReadOnly(pol.Cwd), // also for the file tools
		Home:          userHome(),
		TempDir:       temp,
		Network:       box.Network,
	}
	if b.launcher != nil {
		env.Sandbox = b.launcher(sandbox.Mode(box.Mode))
	}
}

// profileHomePaths is the profile home as configured and, when it differs,
// as resolved: hiding only one spelling of a symlinked home would leave the
// other readable.
func (b turnBuilder) profileHomePaths() []string {
	home := b.profileHome
	if home == "" {
		return nil
	}
	out := []string{home}
	if real, err := filepath.EvalSymlinks(home); err == nil && real != home {
		out = append(out, real)
	}
	return out
}

// expandPaths expands the ~/… and $XDG_RUNTIME_DIR spellings config.yaml
// allows against the user's home and drops what does not expand.
func expandPaths(paths []string) []string {
	home, _ := os.UserHomeDir()
	return sandbox.ExpandPaths(paths, home)
}

// userHome is the user's home as ~ expands to it ("" when unknown): the
// sandbox keeps its top level read-only inside a writable root.
func userHome() string {
	home, _ := os.UserHomeDir()
	return home
}

// startupFiles are the user's shell startup files (absolute).
func startupFiles() []string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return nil
	}
	out := make([]string, 0, len(shellStartupFiles))
	for _, f := range shellStartupFiles {
		out = append(out, filepath.Join(home, f))
	}
	return out
}

// sessionTempDir is the session's private temp directory (the sandbox's
// /tmp and TMPDIR): os.TempDir()/hermes-<uid>/<hash of the session id>,
// 0700, outside the hidden profile home. "" (a fresh tmpfs per command)
// when it cannot be made safely.
func (b turnBuilder) sessionTempDir(sid string) string {
	dir, err := privateTempDir(os.TempDir(), sid)
	if err != nil {
		b.log.Warn("no private temp directory for the session; its commands get a fresh /tmp each", "session_id", sid, "err", err)
		return ""
	}
	return dir
}

func privateTempDir(tmp, sid string) (string, error) {
	parent := filepath.Join(tmp, "hermes-"+strconv.Itoa(os.Getuid()))
	sum := sha256.Sum256([]byte(sid))
	dir := filepath.Join(parent, hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	// In a shared /tmp another user may have made parent first (or a
	// symlink in its place): use it only if it is ours alone.
	for _, p := range []string{parent, dir} {
		if err := ownPrivateDir(p); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// ownPrivateDir accepts p only if it is a real directory (not a symlink)
// of our uid, and makes it 0700.
func ownPrivateDir(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s is not a directory of ours (mode %v)", p, fi.Mode())
	}
	if fi.Mode().Perm() != 0o700 {
		return os.Chmod(p, 0o700)
	}
	return nil
}
