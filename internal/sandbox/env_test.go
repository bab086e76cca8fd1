package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEnviron(t *testing.T) {
	t.Parallel()
	environ := []string{
		"PATH=/bin", "AWS_SECRET_ACCESS_KEY=x", "HOME=/h", "LC_ALL=C", "OPENAI_API_KEY=k", "TERM=xterm",
		"GOFLAGS=-mod=mod", "GOPATH=/g", "NOEQUALS", "=novalue", "TMPDIR=/t", "LCX=no", "MY_VAR=1", "TZ=UTC",
	}
	for _, tc := range []struct {
		name        string
		passthrough []string
		want        []string
	}{
		{"allow-list only", nil, []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "TERM=xterm", "TMPDIR=/t", "TZ=UTC"}},
		{"exact name", []string{"MY_VAR"}, []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "TERM=xterm", "TMPDIR=/t", "MY_VAR=1", "TZ=UTC"}},
		{"prefix", []string{"GO*"}, []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "TERM=xterm", "GOFLAGS=-mod=mod", "GOPATH=/g", "TMPDIR=/t", "TZ=UTC"}},
		{"a bare star is no prefix", []string{"*"}, []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "TERM=xterm", "TMPDIR=/t", "TZ=UTC"}},
		{"a name is not a prefix", []string{"MY"}, []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "TERM=xterm", "TMPDIR=/t", "TZ=UTC"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Environ(environ, tc.passthrough)); diff != "" {
				t.Errorf("Environ (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExpandPaths(t *testing.T) {
	rt := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", rt)
	in := []string{"~", "~/.ssh", "~x", "$XDG_RUNTIME_DIR", "$XDG_RUNTIME_DIR/bus", "$XDG_RUNTIME_DIRX",
		"/a/../b/", "relative", "", "/run/docker.sock"}
	want := []string{"/home/u", "/home/u/.ssh", rt, filepath.Join(rt, "bus"), "/b", "/run/docker.sock"}
	if diff := cmp.Diff(want, ExpandPaths(in, "/home/u")); diff != "" {
		t.Errorf("ExpandPaths (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/x"}, ExpandPaths([]string{"~/.ssh", "/x"}, "")); diff != "" {
		t.Errorf("without a home (-want +got):\n%s", diff)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	got := ExpandPaths([]string{"$XDG_RUNTIME_DIR/bus"}, "/h")
	if d := "/run/user/" + strconv.Itoa(os.Getuid()); dirExists(d) {
		if diff := cmp.Diff([]string{d + "/bus"}, got); diff != "" {
			t.Errorf("fallback (-want +got):\n%s", diff)
		}
	} else if len(got) != 0 {
		t.Errorf("no runtime directory, yet %v", got)
	}
}

func dirExists(d string) bool {
	_, err := os.Stat(d)
	return err == nil
}

func TestDefaultReadOnly(t *testing.T) {
	t.Parallel()
	want := []string{"/w/.git/hooks", "/w/.git/config", "/w/.hermes"}
	if diff := cmp.Diff(want, DefaultReadOnly("/w")); diff != "" {
		t.Errorf("DefaultReadOnly (-want +got):\n%s", diff)
	}
}

func TestEnsureHooksDir(t *testing.T) {
	t.Parallel()
	repo, plain := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	ensureHooksDir(repo)
	ensureHooksDir(plain)
	if !dirExists(filepath.Join(repo, ".git", "hooks")) {
		t.Error("no .git/hooks in a repository without one")
	}
	if dirExists(filepath.Join(plain, ".git")) {
		t.Error("created .git where there was no repository")
	}
}
