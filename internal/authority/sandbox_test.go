package authority

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/sandbox"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// TestSandboxEnvFrozenWins: a session's frozen sandbox settings decide its
// launcher mode, network and paths; the profile's current settings apply
// only to receipts without them. The profile home is hidden under both of
// its spellings, and the temp dir is private and outside it.
func TestSandboxEnvFrozenWins(t *testing.T) {
	root := t.TempDir()
	realHome := filepath.Join(root, "real-home")
	if err := os.Mkdir(realHome, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "home-link")
	if err := os.Symlink(realHome, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", filepath.Join(root, "user"))
	t.Setenv("TMPDIR", filepath.Join(root, "tmp"))
	var modes []sandbox.Mode
	a := New(Config{ProfileHome: link, Launcher: func(m sandbox.Mode) *sandbox.Launcher {
		modes = append(modes, m)
		return sandbox.New("/nonexistent", sandbox.ModeOff)
	}})
	live := Settings{
		Sandbox:        session.SandboxPolicy{Mode: "auto", Network: true, WritableRoots: []string{"~/live"}},
		EnvPassthrough: []string{"GOPATH"},
	}
	frozen := &session.SandboxPolicy{Mode: "strict", Network: false, WritableRoots: []string{"~/cache", "relative/x"}, HiddenPaths: []string{"~/.ssh"}}
	cwd := filepath.Join(root, "proj")

	var env tools.Env
	a.turns.sandboxEnv(&env, "local-1", session.Policy{Cwd: cwd, Sandbox: frozen}, live)
	user := filepath.Join(root, "user")
	want := sandbox.Policy{
		Cwd:           cwd,
		WritableRoots: []string{filepath.Join(user, "cache")},
		HiddenPaths:   []string{link, realHome, filepath.Join(user, ".ssh"), filepath.Dir(env.SandboxPolicy.TempDir)}, // the other sessions' temp dirs
		ReadOnlyPaths: []string{filepath.Join(cwd, ".git", "hooks"), filepath.Join(cwd, ".git", "config"), filepath.Join(cwd, ".hermes")},
		Home:          user,
		TempDir:       env.SandboxPolicy.TempDir,
		Network:       false,
	}
	if diff := cmp.Diff(want, env.SandboxPolicy); diff != "" {
		t.Fatalf("frozen policy (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]sandbox.Mode{"strict"}, modes); diff != "" {
		t.Fatalf("launcher modes (-want +got):\n%s", diff)
	}
	if env.ProfileHome != link || !slices.Equal(env.WritableRoots, want.WritableRoots) ||
		!slices.Contains(env.ProtectedPaths, filepath.Join(user, ".bashrc")) || !slices.Contains(env.ProtectedPaths, realHome) ||
		!slices.Equal(env.EnvPassthrough, []string{"GOPATH"}) {
		t.Fatalf("file tool paths: %+v", env)
	}
	checkPrivateTempDir(t, env.SandboxPolicy.TempDir, filepath.Join(root, "tmp"))

	var old tools.Env // a receipt from before the sandbox: the live settings
	a.turns.sandboxEnv(&old, "local-1", session.Policy{Cwd: cwd}, live)
	if !old.SandboxPolicy.Network || !slices.Equal(old.WritableRoots, []string{filepath.Join(user, "live")}) || modes[1] != "auto" {
		t.Fatalf("nil frozen sandbox did not follow the profile: %+v, modes %v", old.SandboxPolicy, modes)
	}
	if old.SandboxPolicy.TempDir != env.SandboxPolicy.TempDir {
		t.Fatalf("temp dir changed between turns of one session: %q, %q", old.SandboxPolicy.TempDir, env.SandboxPolicy.TempDir)
	}
}

func checkPrivateTempDir(t *testing.T, dir, tmp string) {
	t.Helper()
	if filepath.Dir(filepath.Dir(dir)) != tmp {
		t.Fatalf("temp dir %q is not under %q/hermes-<uid>/", dir, tmp)
	}
	for _, p := range []string{dir, filepath.Dir(dir)} {
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v, want a 0700 directory", p, fi.Mode(), err)
		}
	}
}

// TestPrivateTempDirRefusesForeignParent: a hermes-<uid> that is a symlink
// (another user's trap in a shared /tmp) is not used.
func TestPrivateTempDirRefusesForeignParent(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(tmp, "hermes-"+strconv.Itoa(os.Getuid()))); err != nil {
		t.Fatal(err)
	}
	if dir, err := privateTempDir(tmp, "local-1"); err == nil {
		t.Fatalf("privateTempDir through a symlinked parent = %q, want an error", dir)
	}
}

func TestExpandPaths(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	got := expandPaths([]string{"~", "~/.ssh", "/abs/./x", "$XDG_RUNTIME_DIR", "$XDG_RUNTIME_DIR/bus", "$HERMES_EMPTY_TEST_VAR/x", "relative", ""})
	want := []string{"/home/u", "/home/u/.ssh", "/abs/x", "/run/user/1000", "/run/user/1000/bus"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("expandPaths (-want +got):\n%s", diff)
	}
}
