package lifecycle

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
)

// TestUnsafeHomeRefused: a profile home writable by group or others (a
// shared 1777 directory) or owned by another uid is refused with exit 2
// and a message that says what to fix, before anything in it changes —
// whether the home comes from --home or from HERMES_HOME.
func TestUnsafeHomeRefused(t *testing.T) {
	t.Parallel()
	bin := gt.Build(t)
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, home string)
		want  string
	}{
		{"mode 1777", func(t *testing.T, home string) { chmod(t, home, 0o777|fs.ModeSticky) }, "chmod 700 "},
		{"mode 0770", func(t *testing.T, home string) { chmod(t, home, 0o770) }, "chmod 700 "},
		{"another uid", func(t *testing.T, home string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give the home to another uid")
			}
			if err := os.Chown(home, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "owned by uid 65534, not you"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, via := range []string{"--home", "HERMES_HOME"} {
				home := gt.NewHome(t, "")
				tc.setup(t, home)
				before := statHome(t, home)
				out, code := runGateway(t, bin, home, via)
				if code != 2 {
					t.Errorf("%s: exit %d, want 2\n%s", via, code, out)
				}
				if !strings.Contains(out, tc.want) || !strings.Contains(out, home) {
					t.Errorf("%s: message %q does not say %q about %s", via, out, tc.want, home)
				}
				if after := statHome(t, home); after != before {
					t.Errorf("%s: home changed from %+v to %+v", via, before, after)
				}
				if entries, _ := os.ReadDir(home); len(entries) != 0 {
					t.Errorf("%s: the refused start created %d entries in the home", via, len(entries))
				}
			}
		})
	}
}

type homeStat struct {
	mode     fs.FileMode
	uid, gid uint32
}

func statHome(t *testing.T, home string) homeStat {
	t.Helper()
	fi, err := os.Stat(home)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return homeStat{mode: fi.Mode(), uid: st.Uid, gid: st.Gid}
}

func chmod(t *testing.T, path string, mode fs.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// runGateway runs `hermes gateway run` on home given via --home or
// HERMES_HOME and returns its output and exit code (it must exit by itself).
func runGateway(t *testing.T, bin, home, via string) (string, int) {
	t.Helper()
	cmd := exec.CommandContext(gt.Context(t, wait), bin, "gateway", "run")
	cmd.Env = gt.CleanEnv()
	if via == "--home" {
		cmd.Args = []string{bin, "--home", home, "gateway", "run"}
	} else {
		cmd.Env = append(cmd.Env, "HERMES_HOME="+home)
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	}
	t.Fatalf("run: %v", err)
	return "", 0
}

// TestCreatedFilesArePrivate: every file the gateway creates in its home
// (state.db and its -wal/-shm, the log, the lock, the socket, the legacy
// token) is 0600 and every directory 0700, whatever umask it started with.
func TestCreatedFilesArePrivate(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{Extra: "dashboard:\n  legacy_token: true\n"})
	d := f.Start()
	c := d.Connect(gt.Context(t, wait))
	if err := c.Ping(gt.Context(t, wait)); err != nil {
		t.Fatal(err)
	}
	want := []string{"state.db", "state.db-wal", "state.db-shm", "gateway.lock", "gateway.sock", "dashboard.token", "logs/gateway.log"}
	seen := map[string]bool{}
	err := filepath.WalkDir(f.Home, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(f.Home, path)
		seen[rel] = true
		wantPerm := fs.FileMode(0o600)
		if fi.IsDir() {
			wantPerm = 0o700
		}
		if fi.Mode()&fs.ModeSymlink == 0 && fi.Mode().Perm() != wantPerm {
			t.Errorf("%s: mode %04o, want %04o", rel, fi.Mode().Perm(), wantPerm)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range want {
		if !seen[name] {
			t.Errorf("%s was not created (saw %v)", name, seen)
		}
	}
}
