package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// allowedEnv are the variables every tool process gets: what programs
// need to find themselves, their user and their locale. A deny-list cannot
// know the name of every secret, so everything else is dropped unless the
// caller passes it through by name.
var allowedEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TERM", "TZ", "TMPDIR"}

// Environ returns the environment of a tool process: the entries of
// environ ("NAME=value") whose name is allowed (allowedEnv, LC_*) or
// matched by passthrough (exact names, or prefixes ending in '*'), in
// environ's order. Malformed entries are dropped.
func Environ(environ []string, passthrough []string) []string {
	out := make([]string, 0, len(allowedEnv)+len(passthrough))
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if ok && name != "" && envAllowed(name, passthrough) {
			out = append(out, kv)
		}
	}
	return out
}

func envAllowed(name string, passthrough []string) bool {
	if slices.Contains(allowedEnv, name) || strings.HasPrefix(name, "LC_") {
		return true
	}
	for _, p := range passthrough {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if prefix != "" && strings.HasPrefix(name, prefix) {
				return true
			}
		} else if p == name {
			return true
		}
	}
	return false
}

// ExpandPaths expands "~" and "~/x" against home and "$XDG_RUNTIME_DIR"
// and "$XDG_RUNTIME_DIR/x" against the runtime directory (the variable, or
// /run/user/<uid> when that exists), cleans the results and drops what is
// empty, relative or unexpandable (an absent runtime directory hides
// nothing, so dropping it loses nothing).
func ExpandPaths(paths []string, home string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if x, ok := expandPath(p, home); ok {
			out = append(out, x)
		}
	}
	return out
}

func expandPath(p, home string) (string, bool) {
	const xdg = "$XDG_RUNTIME_DIR"
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return "", false
		}
		p = home + p[1:]
	case p == xdg || strings.HasPrefix(p, xdg+"/"):
		d := runtimeDir()
		if d == "" {
			return "", false
		}
		p = d + p[len(xdg):]
	}
	if !filepath.IsAbs(p) {
		return "", false
	}
	return filepath.Clean(p), true
}

func runtimeDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return d
	}
	d := "/run/user/" + strconv.Itoa(os.Getuid())
	if _, err := os.Stat(d); err == nil {
		return d
	}
	return ""
}

// DefaultReadOnly is what stays read-only inside cwd even though cwd is
// writable: the places where a command could leave code that runs later,
// outside the sandbox, as the user (a hook, core.fsmonitor or a pager in
// .git/config, project configuration in .hermes). The helper skips the
// ones that do not exist.
//
// Residual: a path that does not exist cannot be mounted over, so a
// command may create .hermes (or .git/config in a directory that has no
// repository yet, or a whole new .git). Whoever reads those later must not
// trust them just because they sit in the cwd. .git/hooks is the one we
// close: see ensureHooksDir.
func DefaultReadOnly(cwd string) []string {
	return []string{
		filepath.Join(cwd, ".git", "hooks"),
		filepath.Join(cwd, ".git", "config"),
		filepath.Join(cwd, ".hermes"),
	}
}

// ensureHooksDir creates cwd/.git/hooks when cwd holds a repository
// without one, so that the helper has something to make read-only: else a
// command could create the directory and a hook in it. git init creates
// the same empty directory, so no repository changes meaning. Failure is
// ignored: the helper then finds nothing to protect, which is the
// documented residual.
func ensureHooksDir(cwd string) {
	git := filepath.Join(cwd, ".git")
	if fi, err := os.Lstat(git); err != nil || !fi.IsDir() {
		return
	}
	_ = os.Mkdir(filepath.Join(git, "hooks"), 0o755) // exists already, or the residual
}
